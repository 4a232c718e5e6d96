import type { Caller } from '../caller';
import { type AuditEntry, writeAudits } from '../audit/repository';
import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import { recordEvents } from '../webhooks/outbox';
import { attendanceEvent } from './events';
import { ATTENDANCE_COLUMNS, employeeDisplayOf, toAttendanceRow } from './repository';
import { attendanceChanges } from './writes';

/** Records per statement: far below either database's limit on bound values. */
const BATCH = 500;

/**
 * Makes open records missed punch-outs (docs/pay-periods.md, "Period end, step by step"), in the
 * transaction of the pay-period lock that passes them over: each keeps its null out_time, counts
 * no hours, and stops being its employee's open record (open_employee_id NULL), so their next
 * punch-in opens a new one. One audit row (`missed_punch_out`) and one `attendance.corrected`
 * event per record, its updated_at now: a delta sync and an ETag see the change. The lock holds
 * every employee's row, so no punch of theirs runs meanwhile.
 */
export async function markMissedPunchOuts(
  trx: Db,
  ids: readonly number[],
  context: { caller: Caller | undefined; now: Date; requestId?: string },
): Promise<void> {
  const updatedAt = toSqlDateTime(context.now);
  for (let at = 0; at < ids.length; at += BATCH) {
    const batch = ids.slice(at, at + BATCH);
    await trx('attendance').whereIn('id', batch).update({ missed_punch_out: true, open_employee_id: null, updated_at: updatedAt });
    const rows = (await trx('attendance as a')
      .join('employees as e', 'e.id', 'a.employee_id')
      .whereIn('a.id', batch)
      .orderBy('a.id')
      .select([...ATTENDANCE_COLUMNS, 'e.first_name', 'e.last_name'])) as Array<Record<string, unknown>>;
    const audits: AuditEntry[] = [];
    const events = rows.map((row) => {
      const record = { ...toAttendanceRow(row), employeeDisplay: employeeDisplayOf(row) };
      const { fields, changes } = attendanceChanges({ missed_punch_out: false }, { missed_punch_out: true });
      audits.push({
        action: 'missed_punch_out',
        entityType: 'attendance',
        entityId: record.id,
        employeeId: record.employee_id,
        fields,
        changes,
      });
      return attendanceEvent('attendance.corrected', record, context.now, fields);
    });
    await writeAudits(trx, audits, { caller: context.caller, requestId: context.requestId, now: context.now });
    await recordEvents(trx, events);
  }
}
