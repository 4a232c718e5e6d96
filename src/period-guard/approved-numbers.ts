import type { Db } from '../db/connect';
import { type DayHours, type GroupRulesBook, groupSheetClassifier, type StoredRecordTimes } from '../pay-rules/classify';
import { type Period, workweekStartOf } from '../pay-rules/periods';
import type { PayPeriodSettings } from '../pay-rules/settings';
import { lastReadingOn } from '../time';

// Approval is of numbers (docs/pay-periods.md, "Approving"; CONTRACT 6.5): an approval keeps the
// numbers it approved, and a timesheet stays approved only while its numbers equal them.

/**
 * Why an approved timesheet is open again (the timesheet's `reopened_reason`, the event's
 * `reason`): `reopened` by POST .../reopen, `attendance_changed` by a write that changed its
 * numbers, `rules_changed` by PUT /pay-periods/settings changing them, `leave_changed` by a
 * leave approved, changed or cancelled on its dates or a leave type's code or pay changed (its
 * leave hours), `holidays_changed` by a holiday added, imported or deleted, and
 * `leave_settings_changed` by PUT /leave-settings (its leave or holiday hours).
 */
export const REOPEN_REASONS = [
  'reopened',
  'attendance_changed',
  'rules_changed',
  'leave_changed',
  'holidays_changed',
  'leave_settings_changed',
] as const;
export type ReopenReason = (typeof REOPEN_REASONS)[number];

/** An approved day: `[date, worked, regular, overtime, double_time]` in exact seconds. */
type ApprovedDay = [string, number, number, number, number];

/** The numbers an approval keeps: each date with hours, in exact seconds (not the records: moving one changes no number). */
export function approvedNumbersJson(days: readonly DayHours[]): string {
  const kept: ApprovedDay[] = days
    .filter((day) => day.worked > 0)
    .map((day) => [day.date, day.worked, day.regular, day.overtime, day.double_time]);
  return JSON.stringify(kept);
}

/** Whether `days` are the numbers approved; an approval given before approvals kept numbers (null) never is. */
export function sameNumbers(approved: string | null, days: readonly DayHours[]): boolean {
  return approved !== null && approved === approvedNumbersJson(days);
}

/**
 * The employees' current days of a period, in the transaction: their records of the period and of
 * its first workweek through groupSheetClassifier under each one's pay group's rules, as every
 * reader classifies them (`groups`: every group's rules, pay-groups/repository.ts readGroupRules).
 */
export async function currentNumbersOf(
  trx: Db,
  employeeIds: readonly number[],
  period: Period,
  settings: PayPeriodSettings,
  groups: GroupRulesBook,
): Promise<Map<number, DayHours[]>> {
  const result = new Map<number, DayHours[]>();
  if (employeeIds.length === 0) return result;
  const [rows, employees] = await Promise.all([
    trx('attendance')
      .whereIn('employee_id', employeeIds)
      // From the earliest first workweek of any group; each employee's records are cut at their own group's below.
      .where('in_time_local', '>=', `${earliestWorkweekStart(period, settings, groups)} 00:00:00`)
      .where('in_time_local', '<=', lastReadingOn(period.end))
      .select('employee_id', 'in_time_local', 'in_time_utc', 'out_time_utc', 'timezone') as Promise<
      Array<StoredRecordTimes & { employee_id: number | string; in_time_local: unknown }>
    >,
    trx('employees').whereIn('id', employeeIds).select('id', 'pay_group_id') as Promise<
      Array<{ id: number | string; pay_group_id: number | string | null }>
    >,
  ]);
  const groupOf = new Map(employees.map((row) => [Number(row.id), row.pay_group_id === null ? null : Number(row.pay_group_id)]));
  // Each employee under their group's workweek, as their timesheet classifies them (`settings` for a group that is gone).
  const settingsOf = (id: number) => groups.get(groupOf.get(id) ?? -1) ?? settings;
  const byEmployee = new Map<number, StoredRecordTimes[]>(employeeIds.map((id) => [id, []]));
  for (const row of rows) {
    const id = Number(row.employee_id);
    const first = `${workweekStartOf(period.start, settingsOf(id).workweek_start)} 00:00:00`;
    if (String(row.in_time_local).slice(0, 19) >= first) byEmployee.get(id)?.push(row);
  }
  const classifiers = new Map<PayPeriodSettings, ReturnType<typeof groupSheetClassifier>>();
  for (const [id, records] of byEmployee) {
    const own = settingsOf(id);
    let classify = classifiers.get(own);
    if (!classify) classifiers.set(own, (classify = groupSheetClassifier(groups, own, { from: period.start, to: period.end })));
    result.set(id, classify(groupOf.get(id) ?? null, records).days);
  }
  return result;
}

/** The first day of the period's first workweek under whichever group's workweek_start begins it earliest. */
function earliestWorkweekStart(period: Period, settings: PayPeriodSettings, groups: GroupRulesBook): string {
  const weekdays = new Set([settings.workweek_start, ...[...groups.values()].map((group) => group.workweek_start)]);
  return [...weekdays].map((weekday) => workweekStartOf(period.start, weekday)).sort()[0]!;
}
