import { addDays, daysBetween, weekdayOf } from '../time';

// The hours of leave and holidays (CONTRACT 6.8, docs/leave.md "Hours"): pure functions over plain
// values, no database, no clock. src/leave/days.ts is the one adapter that reads their input.

export const WEEKDAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type WeekdayName = (typeof WEEKDAY_NAMES)[number];

/** The instance settings the hours depend on. */
export interface LeaveSettings {
  /** The working days of the instance's week (default monday to friday). */
  work_week: readonly WeekdayName[];
  /** The hours of a full working day (default 8). */
  standard_day_hours: number;
}

export const DEFAULT_LEAVE_SETTINGS: LeaveSettings = Object.freeze({
  work_week: Object.freeze(['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] as const),
  standard_day_hours: 8,
});

export type Portion = 'full' | 'am' | 'pm' | 'hours';

/**
 * The planned hours of each date's published shifts, by date (YYYY-MM-DD): what readPlannedHours
 * of src/leave/days.ts reads from the shifts table (docs/leave.md, "Shifts").
 */
export type PlannedHoursByDate = ReadonlyMap<string, number>;

/** The weekday name of a calendar date. */
export function weekdayNameOf(date: string): WeekdayName {
  // weekdayOf: 0 is Sunday.
  return WEEKDAY_NAMES[(weekdayOf(date) + 6) % 7] as WeekdayName;
}

export function isWorkWeekDay(date: string, settings: LeaveSettings): boolean {
  return settings.work_week.includes(weekdayNameOf(date));
}

/** Every date from `start` to `end`, both included. */
export function datesOf(start: string, end: string): string[] {
  const dates: string[] = [];
  for (let offset = 0; offset <= daysBetween(start, end); offset += 1) dates.push(addDays(start, offset));
  return dates;
}

/**
 * The dates of [start, end] a leave's default `days` cover (all `full`): the employee's workdays,
 * that is a date with a published shift, or a working day of the work week that is not one of the
 * employee's holidays (a holiday counts as a workday when the type `include_holidays`).
 */
export function defaultLeaveDates(input: {
  start: string;
  end: string;
  settings: LeaveSettings;
  holidayDates: ReadonlySet<string>;
  includeHolidays: boolean;
  planned: PlannedHoursByDate;
}): string[] {
  return datesOf(input.start, input.end).filter((date) => {
    if ((input.planned.get(date) ?? 0) > 0) return true;
    if (!isWorkWeekDay(date, input.settings)) return false;
    return input.includeHolidays || !input.holidayDates.has(date);
  });
}

/**
 * The hours a whole day off is worth on `date`: the planned hours of its published shifts, else
 * standard_day_hours on a working day of the work week, else 0.
 */
export function fullDayHours(date: string, settings: LeaveSettings, planned: PlannedHoursByDate): number {
  const shiftHours = planned.get(date);
  if (shiftHours !== undefined && shiftHours > 0) return shiftHours;
  return isWorkWeekDay(date, settings) ? settings.standard_day_hours : 0;
}

/** The hours of one day of leave: a full day, half of it for am/pm, `hours` as given. */
export function leaveDayHours(
  day: { date: string; portion: Portion; hours: number | null },
  settings: LeaveSettings,
  planned: PlannedHoursByDate,
): number {
  if (day.portion === 'hours') return day.hours ?? 0;
  const full = fullDayHours(day.date, settings, planned);
  return day.portion === 'full' ? full : full / 2;
}

/** One day of an employee's leave as the hours need it. */
export interface LeaveDayInput {
  date: string;
  portion: Portion;
  hours: number | null;
  status: 'pending' | 'approved';
  paid: boolean;
  /** The export code of a paid type (PTO or the type's code); null for unpaid types. */
  code: string | null;
}

export interface HolidayInput {
  date: string;
  portion: 'full' | 'half';
  paid: boolean;
}

/** One employee's leave and holiday hours of one date. */
export interface DayLeaveHours {
  date: string;
  /** Hours of approved paid leave. */
  leave_hours: number;
  /** Hours of paid holiday. */
  holiday_hours: number;
  /** The export code of the day's approved paid leave, null without one. */
  code: string | null;
}

/** Hours are kept to the hundredth, as the timesheets'. */
const round2 = (hours: number) => Math.round(hours * 100) / 100;

/**
 * One employee's paid leave and holiday hours per date, dates without either left out, in date
 * order. Only approved leave counts. A paid holiday pays standard_day_hours (half of it for a half
 * holiday) on a working day of the work week to an employee not on leave that day (pending or
 * approved leave counts as on leave: the leave's own hours pay it once approved).
 */
export function leaveHoursOf(input: {
  leaveDays: readonly LeaveDayInput[];
  holidays: readonly HolidayInput[];
  settings: LeaveSettings;
  planned: PlannedHoursByDate;
}): DayLeaveHours[] {
  const byDate = new Map<string, DayLeaveHours>();
  const dayOf = (date: string) => {
    let day = byDate.get(date);
    if (!day) byDate.set(date, (day = { date, leave_hours: 0, holiday_hours: 0, code: null }));
    return day;
  };
  const onLeave = new Set(input.leaveDays.map((day) => day.date));
  for (const leave of input.leaveDays) {
    if (leave.status !== 'approved' || !leave.paid) continue;
    const hours = leaveDayHours(leave, input.settings, input.planned);
    if (hours <= 0) continue;
    const day = dayOf(leave.date);
    day.leave_hours = round2(day.leave_hours + hours);
    day.code = leave.code;
  }
  for (const holiday of input.holidays) {
    if (!holiday.paid || onLeave.has(holiday.date) || !isWorkWeekDay(holiday.date, input.settings)) continue;
    const hours = holiday.portion === 'half' ? input.settings.standard_day_hours / 2 : input.settings.standard_day_hours;
    const day = dayOf(holiday.date);
    // Two holidays on one date (a national and a regional one) pay the day once.
    day.holiday_hours = round2(Math.max(day.holiday_hours, hours));
  }
  return [...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}
