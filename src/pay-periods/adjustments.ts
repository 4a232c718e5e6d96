import type { Db } from '../db/connect';
import { ConflictError, NotFoundError } from '../errors';
import type { ExportProfile } from '../export-profiles/definition';
import { adjustmentRows, type EmployeeFields, profileWriter } from '../export-profiles/render';
import type { DayLeaveHours } from '../leave/days';
import {
  byCodeBytes,
  codeOnly,
  DEFAULT_PROFILE,
  EXPORT_BATCH,
  type ExportFormat,
  type ExportSink,
  exportedPeriod,
  withPaidHours,
} from './export';
import type { PeriodGroup } from './settings';
import { employeeFieldsOf, usesEmployeeFields } from './export-fields';
import type { PayPeriod } from './periods';
import { daysFromFrozen, snapshotLeaveOf } from './timesheets';

// The adjustment export (docs/pay-periods.md, "Adjustments after a re-lock"; CONTRACT 6.5):
// `GET /pay-periods/{start}/export?since_version=N` answers only what changed between lock
// version N of a period and its current lock, in the layout and profile of the full export, with
// signed hours. Version N's snapshots were kept when it was unlocked (pay_period_version_snapshots);
// the current lock's are pay_period_snapshots.

/** A lock's snapshot row of one employee, as the adjustment reads it. */
interface SnapshotRow {
  employee_id: number | string;
  employee_code: string;
  timesheet_status: string;
  days: string;
  employee_fields: string | null;
  leave: string | null;
}

/**
 * The versions an adjustment compares: 409 `period_not_locked` while the period is open (there is
 * no current lock to compare with), 404 when version N is no lock of the period (a later one, or
 * one undone before migration 0028 began to keep them).
 */
export async function adjustmentVersions(
  db: Db,
  period: PayPeriod,
  sinceVersion: number,
  groupId: number,
): Promise<{ since: number; current: number }> {
  if (period.status !== 'locked' || period.lock_version === null)
    throw new ConflictError({
      code: 'period_not_locked',
      detail: `The pay period ${period.start} to ${period.end} is not locked: an adjustment is the difference between lock version ${sinceVersion} and the current lock`,
    });
  const current = period.lock_version;
  const known =
    sinceVersion === current ||
    (sinceVersion < current &&
      (await db('pay_period_lock_versions')
        .where({ group_id: groupId, period_start: period.start, lock_version: sinceVersion })
        .first('lock_version')) !== undefined);
  if (!known)
    throw new NotFoundError({
      detail: `The pay period ${period.start} has no lock version ${sinceVersion} (its current lock is version ${current})`,
    });
  return { since: sinceVersion, current };
}

/**
 * Writes the adjustment between lock version `since` and the current lock to `sink` (the caller
 * has checked the versions with adjustmentVersions and sent the headers): per employee of either
 * lock, ordered as the full export (the code's bytes), the rows whose hours differ. A CSV in
 * `profile`'s layout (long: date and code; wide: the period's codes), JSON in CONTRACT 6.3's rows
 * with `since_version` and `lock_version`. Employees are read in batches, as the full export.
 */
export async function writeAdjustment(
  db: Db,
  period: PayPeriod,
  versions: { since: number; current: number },
  format: ExportFormat,
  sink: ExportSink,
  group: PeriodGroup,
  profile: ExportProfile = DEFAULT_PROFILE,
): Promise<void> {
  const groupId = group.id;
  const writer = profileWriter(profile, { start: period.start, end: period.end, group: group.name });
  if (format === 'csv') await sink.write(writer.header);
  else
    await sink.write(
      `{"period":${JSON.stringify(exportedPeriod(period))},"since_version":${versions.since},"lock_version":${versions.current},"rows":[`,
    );
  const earlier = (query: Db) =>
    query('pay_period_version_snapshots').where({ group_id: groupId, period_start: period.start, lock_version: versions.since });
  const current = (query: Db) => query('pay_period_snapshots').where({ group_id: groupId, period_start: period.start });
  const same = versions.since === versions.current;

  // Every employee of either lock, by the code the current lock knows them by (else the earlier's).
  const codes = new Map<number, string>();
  if (!same) {
    for (const row of (await earlier(db).select('employee_id', 'employee_code')) as SnapshotRow[])
      codes.set(Number(row.employee_id), String(row.employee_code));
    for (const row of (await current(db).select('employee_id', 'employee_code')) as SnapshotRow[])
      codes.set(Number(row.employee_id), String(row.employee_code));
  }
  const employees = [...codes].map(([id, code]) => ({ id, code })).sort(byCodeBytes);
  const withFields = format === 'csv' && usesEmployeeFields(profile);
  const columns = ['employee_id', 'employee_code', 'timesheet_status', 'days', 'employee_fields', 'leave'];
  let first = true;
  for (let at = 0; at < employees.length; at += EXPORT_BATCH) {
    const ids = employees.slice(at, at + EXPORT_BATCH).map((employee) => employee.id);
    const [before, after] = await Promise.all([
      earlier(db).whereIn('employee_id', ids).select(columns) as Promise<SnapshotRow[]>,
      current(db).whereIn('employee_id', ids).select(columns) as Promise<SnapshotRow[]>,
    ]);
    const was = new Map(before.map((row) => [Number(row.employee_id), row]));
    const now = new Map(after.map((row) => [Number(row.employee_id), row]));
    // Each lock's leave and holiday hours as it froze them: a change between the locks is a row too.
    const [leaveWas, leaveNow] = await Promise.all([snapshotLeaveOf(db, before, period), snapshotLeaveOf(db, after, period)]);
    // A lock taken before migration 0025 froze no names: those employees' current ones.
    const unfrozen = withFields ? ids.filter((id) => (now.get(id) ?? was.get(id))?.employee_fields == null) : [];
    const named = unfrozen.length > 0 ? await employeeFieldsOf(db, unfrozen) : new Map<number, EmployeeFields>();
    let text = '';
    for (const id of ids) {
      const shown = (now.get(id) ?? was.get(id))!;
      const code = String(shown.employee_code);
      const fields: EmployeeFields = !withFields
        ? codeOnly(id, code)
        : shown.employee_fields != null
          ? { ...(JSON.parse(String(shown.employee_fields)) as EmployeeFields), id, code }
          : { ...(named.get(id) ?? codeOnly(id, code)), code };
      const status = String(shown.timesheet_status);
      const daysOf = (row: SnapshotRow | undefined, leave: Map<number, DayLeaveHours[]>) =>
        row ? withPaidHours(daysFromFrozen(String(row.days), period), leave.get(id) ?? []) : [];
      const [daysBefore, daysAfter] = [daysOf(was.get(id), leaveWas), daysOf(now.get(id), leaveNow)];
      if (format === 'csv') {
        text += writer.adjustmentLines(fields, status, daysBefore, daysAfter);
        continue;
      }
      for (const row of adjustmentRows(daysBefore, daysAfter, { hours_format: 'decimal', decimals: 2 })) {
        const line = JSON.stringify({
          employee_id: code,
          employee: String(id),
          date: row.date,
          code: row.code,
          hours: row.units / 100,
          timesheet_status: status,
        });
        text += first ? line : `,${line}`;
        first = false;
      }
    }
    if (text) await sink.write(text);
  }
  if (format === 'json') await sink.write(']}');
}
