import { createHmac, type KeyObject } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Db } from '../db/connect';
import { formatHours, hoursOf } from '../pay-rules/classify';
import { addDays } from '../pay-rules/periods';
import type { PayPeriodSettings } from '../pay-rules/settings';
import { lastReadingOn } from '../time';
import type { PayPeriod } from './periods';
import { readStoredPayPeriodSettings } from './settings';
import { unclosedRecordsOf } from './open-records';
import { classifiedDaysOf, daysFromFrozen } from './timesheets';

// The payroll export of a period (docs/pay-periods.md, "Export"): one row per employee, date and
// code with hours, ordered by the employee's code (bytes), date, then REG, OT, DT. Written in
// batches of employees, so its memory does not grow with the rows.

export type ExportFormat = 'csv' | 'json';

/**
 * The version of the export's rendering. Part of an open period's ETag: a release that renders
 * the same data differently must not answer 304 to a copy made by the previous one.
 */
const EXPORT_RENDERING = 2;

/**
 * Employees per batch of the export. Small enough that a batch's rows are gone before the young
 * generation is collected: larger batches kept more alive across their query and the server's
 * heap grew with the export (docs/performance.md, "Pay periods").
 */
const EXPORT_BATCH = 100;

export const CSV_HEADER = 'employee_id,employee,date,code,hours,timesheet_status\r\n';

/** An employee of the export and their place in its order. */
interface ExportEmployee {
  id: number;
  code: string;
}

/**
 * A CSV text field (RFC 4180): quoted when it holds a comma, a quote, CR or LF; quotes doubled.
 * Text beginning with =, +, -, @, tab or CR gets a leading ' first, so a spreadsheet shows it
 * rather than running it as a formula (CONTRACT 6.6). Numbers the server writes (ids, hours) do
 * not come through here.
 */
export function csvField(value: string): string {
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** By the code's UTF-8 bytes, as the export is ordered (JavaScript's < compares UTF-16 units). */
function byCodeBytes(a: { code: string; bytes?: Buffer }, b: { code: string; bytes?: Buffer }): number {
  return Buffer.compare(Buffer.from(a.code, 'utf8'), Buffer.from(b.code, 'utf8'));
}

/**
 * A strong ETag of the export, computed before anything is sent. A locked period's export depends
 * only on its lock (its snapshots are written once, with the lock row): the lock's start and time
 * name it. An open period's depends on the settings, the records counted in it (and its first
 * workweek), the employees' codes and the approvals: a fingerprint of each (count, largest id,
 * sum of ids, latest change) and the rendering version. Any write that changes what the export
 * shows changes one of them (docs/pay-periods.md, "Export"). An HMAC under the instance's
 * entity-tag key (`key`), as every other ETag: the counts and ids it covers stay unreadable.
 */
export async function exportEtag(
  db: Db,
  key: KeyObject,
  period: PayPeriod,
  settings: PayPeriodSettings,
  format: ExportFormat,
): Promise<string> {
  let parts: unknown[];
  if (period.status === 'locked') {
    parts = ['locked', EXPORT_RENDERING, format, period.start, period.end, period.locked_at, period.locked_by];
  } else {
    const first = addDays(period.start, -6);
    const [stored, records, employees, approvals] = await Promise.all([
      readStoredPayPeriodSettings(db),
      db('attendance')
        .where('in_time_local', '>=', `${first} 00:00:00`)
        .where('in_time_local', '<=', lastReadingOn(period.end))
        .first(db.raw('count(*) as n'), db.raw('max(id) as top'), db.raw('sum(id) as ids'), db.raw('max(updated_at) as changed')),
      db('employees').first(
        db.raw('count(*) as n'),
        db.raw('max(id) as top'),
        db.raw('sum(id) as ids'),
        db.raw('max(updated_at) as changed'),
      ),
      db('timesheet_approvals')
        .where('period_start', period.start)
        .first(
          db.raw('count(*) as n'),
          db.raw('max(updated_at) as changed'),
          db.raw("sum(case when status = 'approved' then employee_id else 0 end) as approved"),
        ),
    ]);
    parts = ['open', EXPORT_RENDERING, format, period.start, period.end, stored ?? null, settings, records, employees, approvals];
  }
  // 32 characters, the export tag's published form (an HMAC-SHA-256 as entityTag's, longer).
  const digest = createHmac('sha256', key)
    .update(JSON.stringify(parts, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value)))
    .digest('base64url');
  return `"${digest.slice(0, 32)}"`;
}

/** The headers of an export's answer (docs/pay-periods.md, "Export"), sent before its rows. */
export function sendExportHeaders(res: ServerResponse, period: PayPeriod, format: ExportFormat): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8; header=present' : 'application/json; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="pay-period-${period.start}.${format}"`);
}

/** Where the export goes: a response or a file; `write` resolves once the chunk may be followed by another. */
export interface ExportSink {
  write(chunk: string): Promise<void>;
}

/** The export's rows, written to `sink` in batches of employees; the caller has sent the headers. */
export async function writeExport(
  db: Db,
  period: PayPeriod,
  settings: PayPeriodSettings,
  format: ExportFormat,
  sink: ExportSink,
): Promise<void> {
  const row =
    format === 'csv'
      ? (code: string, id: number, date: string, kind: string, seconds: number, status: string) =>
          `${csvField(code)},${id},${date},${kind},${formatHours(seconds)},${status}\r\n`
      : (code: string, id: number, date: string, kind: string, seconds: number, status: string) =>
          JSON.stringify({ employee_id: code, employee: String(id), date, code: kind, hours: hoursOf(seconds), timesheet_status: status });
  let first = true;
  if (format === 'csv') await sink.write(CSV_HEADER);
  else await sink.write(`{"period":${JSON.stringify(period)},"rows":[`);

  const employees = await exportEmployeesOf(db, period);
  for (let at = 0; at < employees.length; at += EXPORT_BATCH) {
    const batch = employees.slice(at, at + EXPORT_BATCH);
    const sheets = await batchSheets(db, period, settings, batch);
    let text = '';
    for (const employee of batch) {
      const sheet = sheets.get(employee.id);
      if (!sheet) continue;
      for (const day of sheet.days) {
        if (day.worked === 0) continue;
        for (const [kind, seconds] of [
          ['REG', day.regular],
          ['OT', day.overtime],
          ['DT', day.double_time],
        ] as const) {
          if (seconds <= 0) continue;
          const line = row(sheet.code, employee.id, day.date, kind, seconds, sheet.status);
          if (format === 'json') {
            text += first ? line : `,${line}`;
            first = false;
          } else text += line;
        }
      }
    }
    if (text) await sink.write(text);
  }
  if (format === 'json') await sink.write(`]${await openRecordsMember(db, period)}}`);
}

/**
 * The JSON export's `open_records` member: the records counted in the period without an out_time
 * (a locked period's are its missed punch-outs), by employee id; nothing when there are none, so
 * such an export stays as it was. A locked period's cannot change until it is unlocked: every
 * write into its dates is refused.
 */
async function openRecordsMember(db: Db, period: PayPeriod): Promise<string> {
  const unclosed = await unclosedRecordsOf(db, period, 'all');
  return unclosed.length === 0 ? '' : `,"open_records":${JSON.stringify(unclosed.map((record) => record.json))}`;
}

/**
 * The employees with rows: an open period's with a record counted in it, a locked one's frozen at
 * its lock. Only ids and codes are held (sorted by the codes' bytes, which no collation of both
 * databases gives): memory grows with the employees, not with the rows.
 */
async function exportEmployeesOf(db: Db, period: PayPeriod): Promise<ExportEmployee[]> {
  const rows = (
    period.status === 'locked'
      ? await db('pay_period_snapshots').where('period_start', period.start).select('employee_id as id', 'employee_code as code')
      : await db('employees as e')
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
  return rows.map((row) => ({ id: Number(row.id), code: String(row.code) })).sort(byCodeBytes);
}

interface ExportSheet {
  code: string;
  status: string;
  days: Array<{ date: string; worked: number; regular: number; overtime: number; double_time: number }>;
}

async function batchSheets(
  db: Db,
  period: PayPeriod,
  settings: PayPeriodSettings,
  batch: ExportEmployee[],
): Promise<Map<number, ExportSheet>> {
  const ids = batch.map((employee) => employee.id);
  const sheets = new Map<number, ExportSheet>();
  if (period.status === 'locked') {
    const rows = (await db('pay_period_snapshots')
      .where('period_start', period.start)
      .whereIn('employee_id', ids)
      .select('employee_id', 'employee_code', 'timesheet_status', 'days')) as Array<Record<string, unknown>>;
    for (const row of rows) {
      sheets.set(Number(row.employee_id), {
        code: String(row.employee_code),
        status: String(row.timesheet_status),
        days: daysFromFrozen(String(row.days), period),
      });
    }
    return sheets;
  }
  const [counts, approvals] = await Promise.all([
    classifiedDaysOf(db, ids, period, settings),
    db('timesheet_approvals')
      .where('period_start', period.start)
      .whereIn('employee_id', ids)
      .where('status', 'approved')
      .select('employee_id') as Promise<Array<{ employee_id: number | string }>>,
  ]);
  const approved = new Set(approvals.map((row) => Number(row.employee_id)));
  for (const employee of batch) {
    const counted = counts.get(employee.id);
    if (counted)
      sheets.set(employee.id, { code: employee.code, status: approved.has(employee.id) ? 'approved' : 'open', days: counted.days });
  }
  return sheets;
}
