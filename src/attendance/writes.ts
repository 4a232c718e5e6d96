import type { Caller } from '../caller';
import { writeAudit } from '../audit/repository';
import type { Db } from '../db/connect';
import { utcIso } from './output';
import type { AttendanceColumns } from './repository';
import type { AttendanceSettings } from './rules';

// What every attendance write shares: its context, its transaction and its audit row.

export interface AttendanceWriteContext {
  caller: Caller;
  now: Date;
  requestId: string;
  /** The client's address (behind the configured proxies), stored as in_ip / out_ip. */
  ip: string;
  settings: AttendanceSettings;
}

/** The date a record counts on (docs/pay-periods.md, rule 1): its in_time's, on its own wall clock. */
export function dateOf(inTimeLocal: string): string {
  return inTimeLocal.slice(0, 10);
}

/** Fields whose values the audit keeps; positions and addresses are recorded by name only. */
const AUDITED_FIELDS: ReadonlyArray<[field: string, column: keyof AttendanceColumns, keepValue: boolean]> = [
  ['in_time', 'in_time_utc', true],
  ['out_time', 'out_time_utc', true],
  ['note', 'note', true],
  ['out_note', 'out_note', true],
  ['latitude', 'latitude', false],
  ['longitude', 'longitude', false],
  ['out_latitude', 'out_latitude', false],
  ['out_longitude', 'out_longitude', false],
  ['in_ip', 'in_ip', false],
  ['out_ip', 'out_ip', false],
  ['missed_punch_out', 'missed_punch_out', true],
];

function auditValue(column: keyof AttendanceColumns, value: unknown): unknown {
  // false unless set: a write that leaves it false (every punch) does not list it.
  if (column === 'missed_punch_out') return value === true;
  if (value === null || value === undefined) return null;
  return column === 'in_time_utc' || column === 'out_time_utc' ? utcIso(String(value)) : value;
}

/** The fields a write changed, with before/after values where the audit keeps them. */
export function attendanceChanges(before: Partial<AttendanceColumns>, after: Partial<AttendanceColumns>) {
  const fields: string[] = [];
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const [field, column, keepValue] of AUDITED_FIELDS) {
    const from = auditValue(column, before[column]);
    const to = auditValue(column, after[column]);
    if (from === to) continue;
    fields.push(field);
    if (keepValue) changes[field] = { from, to };
  }
  return { fields, changes };
}

/** The audit row of an attendance write, in its transaction; it names the employee too. */
export async function auditAttendance(
  trx: Db,
  entry: { action: string; id: number; employeeId: number; before: Partial<AttendanceColumns>; after: Partial<AttendanceColumns> },
  context: AttendanceWriteContext,
): Promise<void> {
  const { fields, changes } = attendanceChanges(entry.before, entry.after);
  await writeAudit(
    trx,
    { action: entry.action, entityType: 'attendance', entityId: entry.id, employeeId: entry.employeeId, fields, changes },
    { caller: context.caller, requestId: context.requestId, now: context.now },
  );
}
