// How worked hours are classified as regular, overtime and double time (docs/pay-periods.md, "How
// hours are classified"; checked against docs/overtime-vectors.json). Exact seconds throughout.
import { offsetMsAt, parseIsoInstant, wallClockIn } from '../time';
import { datesOf, workweekStartOf } from './periods';
import {
  type GroupRules,
  type MealBreak,
  type OvertimeRules,
  type PayPeriodSettings,
  type RoundingMinutes,
  type Weekday,
  thresholdSeconds,
} from './settings';

/**
 * A closed record as classification sees it: the date of its stored in_time on its own wall clock,
 * its elapsed time in whole seconds, and (for the meal-break rule) its start and end in seconds
 * since the epoch, all after rounding when the group rounds.
 */
export interface WorkedRecord {
  date: string;
  seconds: number;
  start?: number;
  end?: number;
}

/**
 * One date's hours in seconds; `records` is the number of closed records counted on it.
 * `worked` is after a meal break's deduction, which `break_deducted` holds (0 when none).
 */
export interface DayHours {
  date: string;
  worked: number;
  regular: number;
  overtime: number;
  double_time: number;
  records: number;
  break_deducted: number;
}

/** The rules of CONTRACT 6.5 beyond the overtime thresholds: a pay group's `exempt`, `meal_break`, `rounding`. */
export interface GroupDayRules {
  exempt: boolean;
  meal_break: MealBreak | null;
  rounding: { minutes: RoundingMinutes } | null;
}

/** No 6.5 rule: hours as 6.3 classifies them. */
export const NO_GROUP_DAY_RULES: GroupDayRules = Object.freeze({ exempt: false, meal_break: null, rounding: null });

const SQL_UTC_PATTERN = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?$/;

/** Seconds since the epoch of a UTC time written 'YYYY-MM-DD HH:MM:SS' (as stored) or ISO-8601 with a zone. */
function utcSecondsOf(value: string): number {
  const match = SQL_UTC_PATTERN.exec(value);
  if (match) {
    const year = Number(match[1]);
    const [month, day, hour, minute, second] = [
      Number(match[2]) - 1,
      Number(match[3]),
      Number(match[4]),
      Number(match[5]),
      Number(match[6]),
    ];
    // Date.UTC reads years 0-99 as 1900-1999; setUTCFullYear does not.
    if (year >= 100) return Date.UTC(year, month, day, hour, minute, second) / 1000;
    const date = new Date(0);
    date.setUTCFullYear(year, month, day);
    date.setUTCHours(hour, minute, second, 0);
    return date.getTime() / 1000;
  }
  const instant = parseIsoInstant(value);
  if (!instant) throw new RangeError(`not a UTC time: ${JSON.stringify(value)}`);
  return Math.floor(instant.getTime() / 1000);
}

const DAY_SECONDS = 86_400;
const MAX_CACHED_DAYS = 4096;

/** The date an instant (seconds since the epoch) has on a zone's wall clock. */
export type LocalDater = (timeZone: string, epochSeconds: number) => string;

/**
 * A LocalDater that remembers, per zone and UTC day, the zone's offset when it is the same at both
 * ends of that day, and the dates of day numbers: an export dates hundreds of thousands of records,
 * and reading a wall clock through Intl costs far more than adding an offset (a day with a change
 * is read through Intl record by record). It assumes no zone changes its offset and back within one
 * UTC day. Its memory is its caller's: one per reading (a timesheet, an export batch), never shared.
 */
export function localDater(): LocalDater {
  const steadyOffsets = new Map<string, Map<number, number | null>>();
  const dateTexts = new Map<number, string>();

  const steadyOffsetOf = (timeZone: string, utcDay: number): number | null => {
    let days = steadyOffsets.get(timeZone);
    if (!days) steadyOffsets.set(timeZone, (days = new Map()));
    let offset = days.get(utcDay);
    if (offset === undefined) {
      const start = offsetMsAt(timeZone, new Date(utcDay * DAY_SECONDS * 1000));
      const end = offsetMsAt(timeZone, new Date(((utcDay + 1) * DAY_SECONDS - 1) * 1000));
      offset = start === end ? start / 1000 : null;
      if (days.size >= MAX_CACHED_DAYS) days.clear();
      days.set(utcDay, offset);
    }
    return offset;
  };
  const dateTextOf = (dayNumber: number): string => {
    let text = dateTexts.get(dayNumber);
    if (text === undefined) {
      text = new Date(dayNumber * DAY_SECONDS * 1000).toISOString().slice(0, 10);
      if (dateTexts.size >= MAX_CACHED_DAYS) dateTexts.clear();
      dateTexts.set(dayNumber, text);
    }
    return text;
  };
  return (timeZone, epochSeconds) => {
    const offset = timeZone === 'UTC' ? 0 : steadyOffsetOf(timeZone, Math.floor(epochSeconds / DAY_SECONDS));
    if (offset === null) return wallClockIn(timeZone, new Date(epochSeconds * 1000)).slice(0, 10);
    return dateTextOf(Math.floor((epochSeconds + offset) / DAY_SECONDS));
  };
}

/**
 * An instant (seconds since the epoch) rounded to the nearest multiple of `minutes` on the zone's
 * wall clock at that instant, a tie up: 09:07:30 is 09:15 with 15 minutes, and in Kathmandu
 * (+05:45) the multiples are of local time, not of UTC.
 */
export function roundedOnWallClock(epochSeconds: number, timeZone: string, minutes: RoundingMinutes): number {
  const offset = timeZone === 'UTC' ? 0 : offsetMsAt(timeZone, new Date(epochSeconds * 1000)) / 1000;
  const step = minutes * 60;
  const local = epochSeconds + offset;
  return Math.floor((local + step / 2) / step) * step - offset;
}

function workedRecordWith(
  dateOf: LocalDater,
  inTime: string,
  outTime: string,
  timeZone: string,
  rounding: { minutes: RoundingMinutes } | null,
): WorkedRecord {
  const inSeconds = utcSecondsOf(inTime);
  const outSeconds = utcSecondsOf(outTime);
  // The date is the stored in_time's: rounding changes a record's length, never its date.
  const date = dateOf(timeZone, inSeconds);
  const start = rounding ? roundedOnWallClock(inSeconds, timeZone, rounding.minutes) : inSeconds;
  const end = Math.max(start, rounding ? roundedOnWallClock(outSeconds, timeZone, rounding.minutes) : outSeconds);
  return { date, seconds: end - start, start, end };
}

/** A closed record's date (its in_time on its own wall clock), elapsed seconds, start and end. */
export function workedRecordOf(record: { in_time_utc: string; out_time_utc: string; timezone: string }): WorkedRecord {
  return workedRecordWith(localDater(), record.in_time_utc, record.out_time_utc, record.timezone, null);
}

/** workedRecordOf with the record's in and out time rounded on its wall clock (a group's `rounding`). */
export function roundedWorkedRecordOf(
  record: { in_time_utc: string; out_time_utc: string; timezone: string },
  rounding: { minutes: RoundingMinutes } | null,
): WorkedRecord {
  return workedRecordWith(localDater(), record.in_time_utc, record.out_time_utc, record.timezone, rounding);
}

/**
 * The seconds a meal break deducts from a date: `minutes` when the date's worked seconds exceed
 * `after_hours` and no two of its records (by their start) leave a gap of at least `minutes`
 * between the end of everything before and the next start; never more than the date's worked
 * time. A record without start and end counts as one without gaps.
 */
export function mealBreakSeconds(records: readonly WorkedRecord[], worked: number, mealBreak: MealBreak): number {
  if (worked <= thresholdSeconds(mealBreak.after_hours)) return 0;
  const length = mealBreak.minutes * 60;
  const timed = records
    .filter((record): record is WorkedRecord & { start: number; end: number } => record.start !== undefined && record.end !== undefined)
    .sort((a, b) => a.start - b.start);
  let endSoFar: number | null = null;
  for (const record of timed) {
    if (endSoFar !== null && record.start - endSoFar >= length) return 0;
    endSoFar = endSoFar === null ? record.end : Math.max(endSoFar, record.end);
  }
  return Math.min(length, worked);
}

const SEVENTH_DAY_OVERTIME_SECONDS = 8 * 3600;

interface Thresholds {
  daily: number | null;
  double: number | null;
  weekly: number | null;
  seventhDay: boolean;
}

function thresholdsOf(rules: OvertimeRules): Thresholds {
  const seconds = (hours: number | null) => (hours === null ? null : thresholdSeconds(hours));
  return {
    daily: seconds(rules.daily_after_hours),
    double: seconds(rules.daily_double_after_hours),
    weekly: seconds(rules.weekly_after_hours),
    seventhDay: rules.seventh_day,
  };
}

/**
 * classifyDays for one set of rules and range, with what does not depend on the records (the
 * thresholds, the dates and their positions) worked out once: a reader classifying many employees
 * alike makes one and calls it for each.
 */
export function dayClassifier(
  rules: OvertimeRules,
  workweekStart: Weekday,
  range: { from: string; to: string },
  groupRules: GroupDayRules = NO_GROUP_DAY_RULES,
): (records: readonly WorkedRecord[]) => DayHours[] {
  if (range.from > range.to) return () => [];
  // Exempt: no daily, weekly or seventh-day rule, so every worked hour stays regular.
  const { daily, double, weekly, seventhDay } = groupRules.exempt
    ? { daily: null, double: null, weekly: null, seventhDay: false }
    : thresholdsOf(rules);
  const mealBreak = groupRules.meal_break;
  const dates = datesOf({ start: workweekStartOf(range.from, workweekStart), end: range.to });
  const positions = new Map(dates.map((date, index) => [date, index]));
  const firstReported = dates.indexOf(range.from);

  return (records) => {
    const days: DayHours[] = dates.map((date) => ({
      date,
      worked: 0,
      regular: 0,
      overtime: 0,
      double_time: 0,
      records: 0,
      break_deducted: 0,
    }));
    const recordsOfDay = mealBreak ? dates.map((): WorkedRecord[] => []) : null;
    for (const record of records) {
      const position = positions.get(record.date);
      if (position === undefined) continue;
      const day = days[position] as DayHours;
      day.worked += record.seconds;
      day.records += 1;
      recordsOfDay?.[position]?.push(record);
    }
    if (mealBreak && recordsOfDay) {
      // Before any rule: the deducted time is no worked time, so it reaches no threshold.
      days.forEach((day, index) => {
        day.break_deducted = mealBreakSeconds(recordsOfDay[index] ?? [], day.worked, mealBreak);
        day.worked -= day.break_deducted;
      });
    }

    for (let weekStart = 0; weekStart < days.length; weekStart += 7) {
      const weekEnd = Math.min(weekStart + 7, days.length);
      let workedEveryDate = weekEnd - weekStart === 7;
      for (let index = weekStart; index < weekEnd; index += 1) {
        // Daily rule: regular up to daily, overtime up to double, the rest double time.
        const day = days[index] as DayHours;
        const doubleFrom = double === null ? day.worked : Math.min(day.worked, double);
        day.regular = daily === null ? doubleFrom : Math.min(doubleFrom, daily);
        day.overtime = doubleFrom - day.regular;
        day.double_time = day.worked - doubleFrom;
        if (day.worked === 0) workedEveryDate = false;
      }
      if (seventhDay && workedEveryDate) {
        const seventh = days[weekStart + 6] as DayHours;
        seventh.regular = 0;
        seventh.overtime = Math.min(seventh.worked, SEVENTH_DAY_OVERTIME_SECONDS);
        seventh.double_time = seventh.worked - seventh.overtime;
      }
      if (weekly !== null) {
        let regularSoFar = 0;
        for (let index = weekStart; index < weekEnd; index += 1) {
          const day = days[index] as DayHours;
          const kept = Math.max(0, Math.min(day.regular, weekly - regularSoFar));
          regularSoFar += day.regular;
          day.overtime += day.regular - kept;
          day.regular = kept;
        }
      }
    }
    return firstReported === 0 ? days : days.slice(firstReported);
  };
}

/**
 * Each date of range.from..range.to (ascending, zeros included) with its worked seconds classified
 * by the daily rule, then the seventh-day rule, then the weekly rule. `records` may include the
 * dates of the first workweek before range.from: they count towards that week's weekly and
 * seventh-day rules but are not returned. Records on other dates are ignored.
 */
export function classifyDays(
  records: readonly WorkedRecord[],
  rules: OvertimeRules,
  workweekStart: Weekday,
  range: { from: string; to: string },
  groupRules: GroupDayRules = NO_GROUP_DAY_RULES,
): DayHours[] {
  return dayClassifier(rules, workweekStart, range, groupRules)(records);
}

/** An attendance record's times as stored: UTC instants, out_time_utc null while it is open. */
export interface StoredRecordTimes {
  in_time_utc: string;
  out_time_utc: string | null;
  timezone: string;
}

/** One employee's classified days, and their open records dated in the range. */
export interface SheetDays {
  days: DayHours[];
  openRecords: number;
}

/**
 * The one way from stored records to the rules, for every reader (a timesheet, the list, the
 * export, an event, an approval, a lock's snapshot): each closed record as workedRecordOf dates and
 * measures it, classified by classifyDays; an open record counts nothing and is reported when it is
 * dated in the range. Made once per reading, called once per employee: the dates it learns are
 * kept in the function it returns, so they go when the reading does.
 */
export function sheetClassifier(
  rules: OvertimeRules,
  workweekStart: Weekday,
  range: { from: string; to: string },
  groupRules: GroupDayRules = NO_GROUP_DAY_RULES,
): (records: readonly StoredRecordTimes[]) => SheetDays {
  const classify = dayClassifier(rules, workweekStart, range, groupRules);
  const dateOf = localDater();
  return (records) => {
    let openRecords = 0;
    const worked: WorkedRecord[] = [];
    for (const { in_time_utc: inTime, out_time_utc: outTime, timezone } of records) {
      if (outTime !== null) {
        worked.push(workedRecordWith(dateOf, inTime, outTime, timezone, groupRules.rounding));
        continue;
      }
      const date = dateOf(timezone, utcSecondsOf(inTime));
      if (date >= range.from && date <= range.to) openRecords += 1;
    }
    return { days: classify(worked), openRecords };
  };
}

/** Every pay group's rules by the group's id, as a reading loads them once (pay-groups/repository.ts, readGroupRules). */
export type GroupRulesBook = ReadonlyMap<number, GroupRules>;

/**
 * sheetClassifier for employees of several pay groups: each employee's records classified by
 * their group's overtime, exempt, meal break and rounding (CONTRACT 6.5), over the workweeks of
 * `settings` (group 1's: the periods and their workweeks stay group 1's until the pay-period
 * paths take `?group=`). An employee of a group `groups` does not hold (none should be) is
 * classified by `settings.overtime` alone. One sheetClassifier per group, made when first needed.
 */
export function groupSheetClassifier(
  groups: GroupRulesBook,
  settings: PayPeriodSettings,
  range: { from: string; to: string },
): (groupId: number | null, records: readonly StoredRecordTimes[]) => SheetDays {
  const classifiers = new Map<number | null, (records: readonly StoredRecordTimes[]) => SheetDays>();
  return (groupId, records) => {
    let classify = classifiers.get(groupId);
    if (!classify) {
      const group = groupId === null ? undefined : groups.get(groupId);
      classify = group
        ? sheetClassifier(group.overtime, settings.workweek_start, range, group)
        : sheetClassifier(settings.overtime, settings.workweek_start, range);
      classifiers.set(groupId, classify);
    }
    return classify(records);
  };
}

/** Seconds as hours rounded to 2 decimals, half up, in integer arithmetic (no binary fractions). */
export function hoursOf(seconds: number): number {
  return Math.floor((seconds + 18) / 36) / 100;
}

/** hoursOf written with exactly 2 decimals, e.g. "8.00". */
export function formatHours(seconds: number): string {
  const hundredths = Math.floor((seconds + 18) / 36);
  const sign = hundredths < 0 ? '-' : '';
  const absolute = Math.abs(hundredths);
  return `${sign}${Math.floor(absolute / 100)}.${String(absolute % 100).padStart(2, '0')}`;
}

/** Exact sums of the days' seconds (round only when reporting: hoursOf of each sum). */
export function totalsOf(days: readonly DayHours[]): {
  worked: number;
  regular: number;
  overtime: number;
  double_time: number;
  break_deducted: number;
} {
  const totals = { worked: 0, regular: 0, overtime: 0, double_time: 0, break_deducted: 0 };
  for (const day of days) {
    totals.worked += day.worked;
    totals.regular += day.regular;
    totals.overtime += day.overtime;
    totals.double_time += day.double_time;
    totals.break_deducted += day.break_deducted;
  }
  return totals;
}

/** The first date whose records classifyDays needs for range.from (the start of its workweek). */
export function firstCountedDate(from: string, workweekStart: Weekday): string {
  return workweekStartOf(from, workweekStart);
}
