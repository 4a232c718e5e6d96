import { addDays, dayNumber } from '../time';
import { matchRecords, windowOf } from './matching';
import type { DayFlag, DayLeave, DayRecord, DayShift, DayStatus, DayStatusName, EmployeeDaysInput } from './types';

// The status of an employee's day (CONTRACT 6.7, docs/schedules.md "Precedence"), computed at
// every read from plain values; nothing here reads a database or a clock.

const MINUTE = 60_000;
const HOUR = 3_600_000;

const hours = (ms: number) => Math.round((ms / HOUR) * 100) / 100;

/** Planned hours of a shift: elapsed minus the unpaid break, never below 0. */
export function plannedHours(shift: DayShift): number {
  return hours(Math.max(0, shift.end - shift.start - shift.unpaid_break_minutes * MINUTE));
}

/** The status of each date from..to (both included) inside the employment; dates before joining or after termination have none. */
export function employeeDays(input: EmployeeDaysInput): DayStatus[] {
  const matched = matchRecords(input.shifts, input.records);
  const days: DayStatus[] = [];
  for (let day = dayNumber(input.from); day <= dayNumber(input.to); day++) {
    const date = addDays(input.from, day - dayNumber(input.from));
    if (input.joinedDate !== null && date < input.joinedDate) continue;
    if (input.terminationDate !== null && date > input.terminationDate) continue;
    const shifts = input.shifts.filter((shift) => shift.date === date).sort((a, b) => a.start - b.start);
    const shiftIds = new Set(shifts.map((shift) => shift.id));
    const records = input.records
      .filter((record) =>
        shifts.length > 0 ? shiftIds.has(matched.get(record.id) ?? 0) : record.localDate === date && !matched.has(record.id),
      )
      .sort((a, b) => a.start - b.start);
    days.push(dayStatus(date, shifts, records, input, matched));
  }
  return days;
}

/**
 * The part of the day the employee is expected at work: all of it, but after the midpoint of the
 * day's shifts (first start to last end) with approved `am` leave, and before it with `pm` leave.
 * Late and early verdicts count from these bounds, so a morning off is not an afternoon's lateness.
 */
function expectedSpan(shifts: readonly DayShift[], leave: DayLeave | null): { from: number; to: number } {
  const whole = { from: -Infinity, to: Infinity };
  if (shifts.length === 0 || leave?.status !== 'approved' || (leave.portion !== 'am' && leave.portion !== 'pm')) return whole;
  const first = Math.min(...shifts.map((shift) => shift.start));
  const last = Math.max(...shifts.map((shift) => shift.end));
  const midpoint = first + Math.round((last - first) / 2 / MINUTE) * MINUTE;
  return leave.portion === 'am' ? { from: midpoint, to: Infinity } : { from: -Infinity, to: midpoint };
}

function dayStatus(
  date: string,
  shifts: readonly DayShift[],
  records: readonly DayRecord[],
  input: EmployeeDaysInput,
  matched: ReadonlyMap<number, number>,
): DayStatus {
  const leave = input.leaveOn(date);
  const holiday = input.holidayOn(date);
  const flags: DayFlag[] = [];
  let lateMinutes = 0;
  let earlyMinutes = 0;
  const expected = expectedSpan(shifts, leave);
  for (const shift of shifts) {
    const own = records.filter((record) => matched.get(record.id) === shift.id);
    const first = own[0];
    const last = own[own.length - 1];
    const start = Math.max(shift.start, expected.from);
    const end = Math.min(shift.end, expected.to);
    if (!first || !last || end <= start) continue;
    if (first.start > start + shift.late_grace_minutes * MINUTE) lateMinutes += Math.ceil((first.start - start) / MINUTE);
    if (last.end !== null && last.end < end - shift.early_exit_grace_minutes * MINUTE) earlyMinutes += Math.ceil((end - last.end) / MINUTE);
  }
  if (lateMinutes > 0) flags.push('late');
  if (earlyMinutes > 0) flags.push('early_exit');
  const approvedFullLeave = leave?.status === 'approved' && leave.portion === 'full';
  if (approvedFullLeave && records.length > 0) flags.push('worked_on_leave');
  if (holiday && records.length > 0) flags.push('holiday_worked');
  if (leave?.status === 'pending') flags.push('leave_pending');

  const worked = hours(records.reduce((sum, record) => sum + (record.end === null ? 0 : record.end - record.start), 0));
  const planned = Math.round(shifts.reduce((sum, shift) => sum + plannedHours(shift), 0) * 100) / 100;
  return {
    date,
    status: statusOf({ shifts, records, worked, approvedFullLeave, holiday: holiday !== null, now: input.now }),
    late_minutes: lateMinutes,
    early_exit_minutes: earlyMinutes,
    planned_hours: planned,
    worked_hours: worked,
    shifts: shifts.map((shift) => shift.id),
    attendance: records.map((record) => record.id),
    leave: leave?.id ?? null,
    holiday: holiday?.id ?? null,
    flags,
  };
}

/**
 * The precedence: approved full-day leave; a holiday without a published shift; no shift and no
 * record; records without a shift; an open record; a shift without records (absent once its last
 * window has closed, else pending); then present, or half_day / absent by the first shift's
 * thresholds on the worked hours.
 */
function statusOf(day: {
  shifts: readonly DayShift[];
  records: readonly DayRecord[];
  worked: number;
  approvedFullLeave: boolean;
  holiday: boolean;
  now: number;
}): DayStatusName {
  const { shifts, records } = day;
  if (day.approvedFullLeave) return 'on_leave';
  if (day.holiday && shifts.length === 0) return 'holiday';
  if (shifts.length === 0) {
    if (records.length === 0) return 'day_off';
    return records.some((record) => record.end === null) ? 'incomplete' : 'unscheduled';
  }
  if (records.length === 0) {
    const closes = Math.max(...shifts.map((shift) => windowOf(shift).closes));
    return day.now >= closes ? 'absent' : 'pending';
  }
  if (records.some((record) => record.end === null)) return 'incomplete';
  const rules = shifts[0] as DayShift;
  if (rules.absent_below_hours !== null && day.worked < rules.absent_below_hours) return 'absent';
  if (rules.half_day_below_hours !== null && day.worked < rules.half_day_below_hours) return 'half_day';
  return 'present';
}
