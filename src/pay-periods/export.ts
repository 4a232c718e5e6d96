import { createHmac, type KeyObject } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Db } from '../db/connect';
import { readAttendanceMarks } from '../period-guard/change-marks';
import { lastReadingOn } from '../time';
import { type ExportProfile, exportFilename, findTemplate, templateProfile } from '../export-profiles/definition';
import { type DaySeconds, type EmployeeFields, longRows, profileWriter } from '../export-profiles/render';
import { findExportProfile } from '../export-profiles/repository';
import { BadRequestError } from '../errors';
import { type DayLeaveHours, employeesWithPaidHours, leaveFingerprint, readLeaveHours } from '../leave/days';
import { groupRulesFingerprint, readGroupRules } from '../pay-groups/repository';
import type { GroupRulesBook } from '../pay-rules/classify';
import { addDays } from '../pay-rules/periods';
import type { PayPeriodSettings } from '../pay-rules/settings';
import type { PayPeriod } from './periods';
import type { PeriodGroup } from './settings';
import { employeeFieldsOf, usesEmployeeFields, usesReferenceNames } from './export-fields';
import { unclosedRecordsOf } from './open-records';
import { classifiedDaysOf, daysFromFrozen, snapshotLeaveOf } from './timesheets';

// The payroll export of a period (docs/pay-periods.md, "Export"): one row per employee, date and
// code with hours, ordered by the employee's code (bytes), date, then REG, OT, DT. Written in
// batches of employees, so its memory does not grow with the rows.

export type ExportFormat = 'csv' | 'json';

/**
 * The version of the export's rendering. Part of an open period's ETag: a release that renders
 * the same data differently must not answer 304 to a copy made by the previous one.
 */
const EXPORT_RENDERING = 4;

/** The profile an export uses when the request names none (CONTRACT 6.6): exactly 6.3's CSV. */
export const DEFAULT_PROFILE: ExportProfile = templateProfile(findTemplate('default')!);

/**
 * Employees per batch of the export. Small enough that a batch's rows are gone before the young
 * generation is collected: larger batches kept more alive across their query and the server's
 * heap grew with the export (docs/performance.md, "Pay periods").
 */
export const EXPORT_BATCH = 100;

/** An employee of the export and their place in its order. */
interface ExportEmployee {
  id: number;
  code: string;
}

/** By the code's UTF-8 bytes, as the export is ordered (JavaScript's < compares UTF-16 units). */
export function byCodeBytes(a: { code: string; bytes?: Buffer }, b: { code: string; bytes?: Buffer }): number {
  return Buffer.compare(Buffer.from(a.code, 'utf8'), Buffer.from(b.code, 'utf8'));
}

/**
 * A strong ETag of the export, computed before anything is sent. A locked period's export depends
 * only on its lock (its snapshots are written once, with the lock row, the employees' names and
 * ids with them): the lock's start, time and version name it (an adjustment's also the version it
 * is compared with). An open period's depends on the settings, the pay groups' rules (their
 * count and latest change: each employee is classified by their group's),
 * the records counted in it (and its first workweek), the employees (codes, names, payroll ids)
 * and the approvals: for the records, the change marks of the months they count in (a row per
 * employee and month, src/period-guard/change-marks.ts, not a read of every record); for the
 * others a fingerprint (count, largest id, sum of ids, latest change); with a profile that
 * writes department, job title or pay grade names, those names; and the rendering version. A CSV's
 * tag also names its profile and the profile's version (a template's: TEMPLATES_VERSION), so a
 * changed profile never answers 304 to a file made by its previous version. Any write that
 * changes what the export shows changes one of them (docs/pay-periods.md, "Export"). An HMAC
 * under the instance's entity-tag key (`key`), as every other ETag: the counts and ids it covers
 * stay unreadable.
 */
export async function exportEtag(
  db: Db,
  key: KeyObject,
  period: PayPeriod,
  group: PeriodGroup,
  format: ExportFormat,
  profile: ExportProfile = DEFAULT_PROFILE,
  sinceVersion?: number,
): Promise<string> {
  const rendering =
    format === 'csv' ? [EXPORT_RENDERING, format, profile.id, profile.template, profile.version] : [EXPORT_RENDERING, format];
  const groupPart = group.id === 1 ? [] : [group.id];
  let parts: unknown[];
  if (period.status === 'locked') {
    // The lock version too: a re-lock within the same millisecond by the same user is another lock.
    // Its leave and holiday hours are frozen with it, but a lock taken before migration 0035 reads
    // them live (docs/leave.md, "Locked periods"): only such a lock's tag follows them.
    const unfrozen = await db('pay_period_snapshots').where('period_start', period.start).whereNull('leave').first('employee_id');
    parts = [
      'locked',
      ...rendering,
      // Group 1's tags stay those its exports had before groups were named in them.
      ...groupPart,
      period.start,
      period.end,
      period.locked_at,
      period.locked_by,
      period.lock_version,
      unfrozen ? await leaveFingerprint(db, period.start, period.end) : null,
    ];
    // An adjustment: the difference between a kept version (written once) and the current lock.
    if (sinceVersion !== undefined) parts.push('since', sinceVersion);
  } else {
    const first = addDays(period.start, -6);
    const [groups, records, employees, approvals, names, leave] = await Promise.all([
      groupRulesFingerprint(db),
      readAttendanceMarks(db, first, period.end),
      db('employees').first(
        db.raw('count(*) as n'),
        db.raw('max(id) as top'),
        db.raw('sum(id) as ids'),
        db.raw('max(updated_at) as changed'),
      ),
      db('timesheet_approvals')
        .where({ group_id: group.id, period_start: period.start })
        .first(
          db.raw('count(*) as n'),
          db.raw('max(updated_at) as changed'),
          db.raw("sum(case when status = 'approved' then employee_id else 0 end) as approved"),
        ),
      format === 'csv' ? referenceNamesFingerprint(db, profile) : Promise.resolve(null),
      leaveFingerprint(db, period.start, period.end),
    ]);
    parts = [
      'open',
      ...rendering,
      ...groupPart,
      period.start,
      period.end,
      group.storedSettings,
      group.settings,
      groups,
      records,
      employees,
      approvals,
      names,
      leave,
    ];
  }
  // 32 characters, the export tag's published form (an HMAC-SHA-256 as entityTag's, longer).
  const digest = createHmac('sha256', key)
    .update(JSON.stringify(parts, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value)))
    .digest('base64url');
  return `"${digest.slice(0, 32)}"`;
}

/** The names of the reference tables a profile writes (renaming one changes no employee row). */
async function referenceNamesFingerprint(db: Db, profile: ExportProfile): Promise<unknown> {
  const tables = usesReferenceNames(profile);
  if (tables.length === 0) return null;
  return Promise.all(tables.map((table) => db(table).orderBy('id').select('id', 'name')));
}

/**
 * The headers of an export's answer (docs/pay-periods.md, "Export"), sent before its rows: a CSV's
 * file name from its profile's pattern, made safe for the header.
 */
export function sendExportHeaders(
  res: ServerResponse,
  period: PayPeriod,
  group: PeriodGroup,
  format: ExportFormat,
  profile: ExportProfile = DEFAULT_PROFILE,
  sinceVersion?: number,
): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8; header=present' : 'application/json; charset=utf-8');
  const full = format === 'csv' ? exportFilename(profile.filename, period, String(group.id)) : `pay-period-${period.start}.json`;
  // An adjustment's file says so: pay-period-2026-11-01-since-v1.csv.
  const filename =
    sinceVersion === undefined ? full : full.replace(/(\.[A-Za-z0-9]{1,8})?$/, (extension) => `-since-v${sinceVersion}${extension}`);
  res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
}

/**
 * The profile `?profile=` names, else the one the pay group names (its `export_profile`), else
 * `default`; 400 naming `profile` when the request names none that exists.
 */
export async function exportProfileOf(db: Db, id: string | undefined, group: PeriodGroup): Promise<ExportProfile> {
  if (id === undefined) {
    const groupProfile = group.exportProfile;
    // A group's profile cannot be deleted (409 in_use), so it is there; `default` if it is not.
    return (groupProfile != null && (await findExportProfile(db, groupProfile))) || DEFAULT_PROFILE;
  }
  const profile = await findExportProfile(db, id);
  if (!profile)
    throw new BadRequestError({
      code: 'invalid_query',
      title: 'Invalid query parameters',
      detail: `profile names no export profile: ${id}`,
      errors: [{ field: 'profile', message: 'names no export profile (GET /export-profiles lists them)' }],
    });
  return profile;
}

/** Where the export goes: a response or a file; `write` resolves once the chunk may be followed by another. */
export interface ExportSink {
  write(chunk: string): Promise<void>;
}

/**
 * The export's rows, written to `sink` in batches of employees; the caller has sent the headers.
 * A CSV is written in `profile`; JSON keeps CONTRACT 6.3's rows. Either way each employee's
 * hours of a code add up to the timesheet's total for it (largest remainder, src/export-profiles/render.ts).
 */
export async function writeExport(
  db: Db,
  period: PayPeriod,
  group: PeriodGroup,
  format: ExportFormat,
  sink: ExportSink,
  profile: ExportProfile = DEFAULT_PROFILE,
): Promise<void> {
  const { settings } = group;
  const writer = profileWriter(profile, { start: period.start, end: period.end, group: group.name });
  const jsonRows = (sheet: ExportSheet) =>
    longRows(sheet.days, { hours_format: 'decimal', decimals: 2, include_zero: false }).map((row) =>
      JSON.stringify({
        employee_id: sheet.fields.code,
        employee: String(sheet.fields.id),
        date: row.date,
        code: row.code,
        hours: row.units / 100,
        timesheet_status: sheet.status,
      }),
    );
  let first = true;
  if (format === 'csv') await sink.write(writer.header);
  else await sink.write(`{"period":${JSON.stringify(exportedPeriod(period))},"rows":[`);

  const withFields = format === 'csv' && usesEmployeeFields(profile);
  const employees = await exportEmployeesOf(db, period, group.id);
  // Every group's rules, once for the whole export (each employee is classified by their group's).
  const groups: GroupRulesBook = period.status === 'locked' ? new Map() : await readGroupRules(db);
  for (let at = 0; at < employees.length; at += EXPORT_BATCH) {
    const batch = employees.slice(at, at + EXPORT_BATCH);
    const sheets = await batchSheets(db, period, settings, batch, withFields, groups, group.id);
    let text = '';
    for (const employee of batch) {
      const sheet = sheets.get(employee.id);
      if (!sheet) continue;
      if (format === 'csv') text += writer.employeeLines(sheet.fields, sheet.status, sheet.days);
      else
        for (const line of jsonRows(sheet)) {
          text += first ? line : `,${line}`;
          first = false;
        }
    }
    if (text) await sink.write(text);
  }
  if (format === 'json') await sink.write(`]${await openRecordsMember(db, period, group.id)}}`);
}

/**
 * The period as the JSON export has always shown it: without `lock_version`, so that a locked
 * period's export stays the bytes it was (the adjustment export names its versions).
 */
export function exportedPeriod(period: PayPeriod): Omit<PayPeriod, 'lock_version'> {
  const { lock_version: _version, ...shown } = period;
  return shown;
}

/**
 * The JSON export's `open_records` member: the records counted in the period without an out_time
 * (a locked period's are its missed punch-outs), by employee id; nothing when there are none, so
 * such an export stays as it was. A locked period's cannot change until it is unlocked: every
 * write into its dates is refused.
 */
async function openRecordsMember(db: Db, period: PayPeriod, groupId: number): Promise<string> {
  const unclosed = await unclosedRecordsOf(db, period, 'all', groupId);
  return unclosed.length === 0 ? '' : `,"open_records":${JSON.stringify(unclosed.map((record) => record.json))}`;
}

/**
 * The employees of the pay group with rows: an open period's with a record counted in it (or
 * paid leave), a locked one's frozen at its lock. Only ids and codes are held (sorted by the codes' bytes, which no collation of both
 * databases gives): memory grows with the employees, not with the rows.
 */
async function exportEmployeesOf(db: Db, period: PayPeriod, groupId: number): Promise<ExportEmployee[]> {
  const rows = (
    period.status === 'locked'
      ? await db('pay_period_snapshots')
          .where({ group_id: groupId, period_start: period.start })
          .select('employee_id as id', 'employee_code as code')
      : await db('employees as e')
          .where('e.pay_group_id', groupId)
          .whereExists(
            db('attendance as a')
              .whereRaw('a.employee_id = e.id')
              .where('a.in_time_local', '>=', `${period.start} 00:00:00`)
              .where('a.in_time_local', '<=', lastReadingOn(period.end))
              .whereNotNull('a.out_time_utc')
              .select(db.raw('1')),
          )
          .select('e.id', 'e.employee_id as code')
  ) as Array<{ id: number | string; code: string }>;
  if (period.status !== 'locked') {
    const listed = new Set(rows.map((row) => Number(row.id)));
    const paid = (await employeesWithPaidHours(db, period.start, period.end)).filter((id) => !listed.has(id));
    for (let at = 0; at < paid.length; at += EXPORT_BATCH)
      rows.push(
        ...((await db('employees')
          .where('pay_group_id', groupId)
          .whereIn('id', paid.slice(at, at + EXPORT_BATCH))
          .select('id', 'employee_id as code')) as typeof rows),
      );
  }
  return rows.map((row) => ({ id: Number(row.id), code: String(row.code) })).sort(byCodeBytes);
}

interface ExportSheet {
  fields: EmployeeFields;
  status: string;
  days: DaySeconds[];
  /** A locked period's paid leave and holiday hours, as frozen at its lock (snapshotLeaveOf). */
  frozenLeave?: DayLeaveHours[];
}

/**
 * Classified days with each date's paid leave (under its code) and paid holiday (HOL) seconds
 * added as `paid` parts, dates of leave alone included, in date order: what every export (full
 * or adjustment) writes.
 */
export function withPaidHours(days: readonly DaySeconds[], leave: readonly DayLeaveHours[]): DaySeconds[] {
  const paid = new Map(leave.map((day) => [day.date, day]));
  if (paid.size === 0) return [...days];
  const byDate = new Map(days.map((day) => [day.date, day]));
  for (const date of paid.keys()) if (!byDate.has(date)) byDate.set(date, { date, regular: 0, overtime: 0, double_time: 0 });
  return [...byDate.values()]
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
    .map((day) => {
      const hours = paid.get(day.date);
      if (!hours) return day;
      const parts: Array<{ code: string; seconds: number }> = [];
      if (hours.leave_hours > 0 && hours.code !== null) parts.push({ code: hours.code, seconds: Math.round(hours.leave_hours * 3600) });
      if (hours.holiday_hours > 0) parts.push({ code: 'HOL', seconds: Math.round(hours.holiday_hours * 3600) });
      return { ...day, paid: parts };
    });
}

/** Fields for a profile that writes only codes and ids (the default): no read of names. */
export function codeOnly(id: number, code: string): EmployeeFields {
  return { id, code, payroll_id: null, first_name: '', last_name: '', department: null, job_title: null, pay_grade: null };
}

/**
 * The batch's sheets with each date's paid leave (under its code) and paid holiday (HOL) seconds:
 * a locked period's as frozen at its lock (every employee with them is in its snapshots), an open
 * one's in one read of leave hours per batch (src/leave/days.ts). An employee with paid hours and
 * no record of an open period gets a sheet of them alone.
 */
async function batchSheets(
  db: Db,
  period: PayPeriod,
  settings: PayPeriodSettings,
  batch: ExportEmployee[],
  withFields: boolean,
  groups: GroupRulesBook,
  groupId: number,
): Promise<Map<number, ExportSheet>> {
  const ids = batch.map((employee) => employee.id);
  const [sheets, leave] = await Promise.all([
    workedSheets(db, period, settings, batch, withFields, groups, groupId),
    // A locked period's sheets carry the hours frozen at its lock.
    period.status === 'locked' ? new Map<number, DayLeaveHours[]>() : readLeaveHours(db, ids, period.start, period.end),
  ]);
  const missing = batch.filter((employee) => !sheets.has(employee.id) && (leave.get(employee.id) ?? []).length > 0);
  if (missing.length > 0 && period.status !== 'locked') {
    const fields = withFields
      ? await employeeFieldsOf(
          db,
          missing.map((employee) => employee.id),
        )
      : new Map<number, EmployeeFields>();
    const approvals = (await db('timesheet_approvals')
      .where({ group_id: groupId, period_start: period.start })
      .whereIn(
        'employee_id',
        missing.map((employee) => employee.id),
      )
      .where('status', 'approved')
      .select('employee_id')) as Array<{ employee_id: number | string }>;
    const approved = new Set(approvals.map((row) => Number(row.employee_id)));
    for (const employee of missing)
      sheets.set(employee.id, {
        fields: fields.get(employee.id) ?? codeOnly(employee.id, employee.code),
        status: approved.has(employee.id) ? 'approved' : 'open',
        days: [],
      });
  }
  for (const [id, sheet] of sheets) sheet.days = withPaidHours(sheet.days, sheet.frozenLeave ?? leave.get(id) ?? []);
  return sheets;
}

async function workedSheets(
  db: Db,
  period: PayPeriod,
  settings: PayPeriodSettings,
  batch: ExportEmployee[],
  withFields: boolean,
  groups: GroupRulesBook,
  groupId: number,
): Promise<Map<number, ExportSheet>> {
  const ids = batch.map((employee) => employee.id);
  const sheets = new Map<number, ExportSheet>();
  if (period.status === 'locked') {
    const rows = (await db('pay_period_snapshots')
      .where({ group_id: groupId, period_start: period.start })
      .whereIn('employee_id', ids)
      .select('employee_id', 'employee_code', 'timesheet_status', 'days', 'leave', ...(withFields ? ['employee_fields'] : []))) as Array<
      Record<string, unknown>
    >;
    const frozenLeave = await snapshotLeaveOf(db, rows, period);
    // A lock taken before migration 0025 froze no names: those employees' current ones.
    const unfrozen = withFields ? rows.filter((row) => row.employee_fields == null).map((row) => Number(row.employee_id)) : [];
    const current = unfrozen.length > 0 ? await employeeFieldsOf(db, unfrozen) : new Map<number, EmployeeFields>();
    for (const row of rows) {
      const id = Number(row.employee_id);
      const code = String(row.employee_code);
      const fields = !withFields
        ? codeOnly(id, code)
        : row.employee_fields != null
          ? { ...(JSON.parse(String(row.employee_fields)) as EmployeeFields), id, code }
          : { ...(current.get(id) ?? codeOnly(id, code)), code };
      sheets.set(id, {
        fields,
        status: String(row.timesheet_status),
        days: daysFromFrozen(String(row.days), period),
        frozenLeave: frozenLeave.get(id) ?? [],
      });
    }
    return sheets;
  }
  const [counts, approvals, fields] = await Promise.all([
    classifiedDaysOf(db, ids, period, settings, groups),
    db('timesheet_approvals')
      .where({ group_id: groupId, period_start: period.start })
      .whereIn('employee_id', ids)
      .where('status', 'approved')
      .select('employee_id') as Promise<Array<{ employee_id: number | string }>>,
    withFields ? employeeFieldsOf(db, ids) : Promise.resolve(new Map<number, EmployeeFields>()),
  ]);
  const approved = new Set(approvals.map((row) => Number(row.employee_id)));
  for (const employee of batch) {
    const counted = counts.get(employee.id);
    if (counted)
      sheets.set(employee.id, {
        fields: fields.get(employee.id) ?? codeOnly(employee.id, employee.code),
        status: approved.has(employee.id) ? 'approved' : 'open',
        days: counted.days,
      });
  }
  return sheets;
}
