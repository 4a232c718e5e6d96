import type { Caller } from '../caller';
import { type AuditEntry, writeAudits } from '../audit/repository';
import type { Db } from '../db/connect';
import { attendanceEvent } from '../attendance/events';
import {
  type AttendanceColumns,
  type AttendanceEmployee,
  type AttendanceRecord,
  deleteAttendance,
  updateAttendance,
} from '../attendance/repository';
import { attendanceChanges } from '../attendance/writes';
import { recordAttendanceDeletions } from '../deletions/tombstones';
import { deletionEvent, type OutboxEvent, recordEvents } from '../webhooks/outbox';
import { columnsOf, type WriteStamp } from './record-columns';
import { type BatchAttendanceRow, insertAttendanceRows } from './record-repository';
import type { Slot, TimelinePlan } from './timeline-planner';

export interface RecordWriteContext extends WriteStamp {
  /** The admin who uploaded; none for a device. */
  caller: Caller | undefined;
  requestId: string;
}

/**
 * Writes what the plans left, record by record against what was stored: the new records (a few
 * hundred per INSERT), the stored ones they closed or derived again, the ones a derivation removed;
 * one audit row per change, and one webhook event per change of a record, in time order per
 * employee: attendance.punched_in for a new record (and punched_out if the batch closed it too),
 * punched_out for a stored open record now closed, corrected for any other change, deleted.
 * Removals and closings go first, so that no two records of an employee are open at any moment
 * (the open_employee_id index). Gives each new slot its id.
 */
export async function writeRecords(trx: Db, plans: readonly TimelinePlan[], context: RecordWriteContext): Promise<void> {
  const audits: AuditEntry[] = [];
  const events: OutboxEvent[] = [];
  const record = (id: number, employee: AttendanceEmployee, columns: AttendanceColumns): AttendanceRecord => ({
    id,
    ...columns,
    employeeDisplay: employee.display,
  });

  const deleted = plans.flatMap(({ employee, deleted: rows }) => rows.map((row) => ({ employee, row })));
  // The deletion feed's tombstones (GET /attendance/deleted), before the rows go.
  await recordAttendanceDeletions(
    trx,
    deleted.map(({ row }) => row.id),
    context.now,
  );
  for (const { employee, row } of deleted) {
    await deleteAttendance(trx, row.id);
    const { id: _id, derived_from_log: _derived, ...before } = row;
    audits.push({
      action: 'delete',
      entityType: 'attendance',
      entityId: row.id,
      employeeId: employee.id,
      ...attendanceChanges(before, {}),
    });
    events.push(deletionEvent('attendance.deleted', row.id, context.now));
  }

  const created: Array<{ slot: Slot; employee: AttendanceEmployee }> = [];
  const updates: Array<{ slot: Slot; before: AttendanceColumns; after: AttendanceColumns }> = [];
  for (const { employee, slots } of plans) {
    for (const slot of slots) {
      if (!slot.stored) {
        created.push({ slot, employee });
        continue;
      }
      // A stored record no punch opened (derived again) or closed is as it was.
      if (slot.opener === undefined && slot.closer === undefined) continue;
      const after = columnsOf(slot, employee, context);
      const { id: _id, derived_from_log: _derived, ...before } = slot.stored;
      if (attendanceChanges(before, after).fields.length > 0) updates.push({ slot, before, after });
    }
  }
  // Closed (or closed elsewhere) before any record opens.
  updates.sort((a, b) => Number(a.after.out_time_utc === null) - Number(b.after.out_time_utc === null));
  for (const { slot, after } of updates)
    await updateAttendance(trx, slot.id as number, after, (slot.stored as BatchAttendanceRow).derived_from_log);
  const ids = await insertAttendanceRows(
    trx,
    created.map(({ slot, employee }) => columnsOf(slot, employee, context)),
  );
  created.forEach(({ slot }, position) => {
    slot.id = ids[position];
  });

  const updated = new Map(updates.map((update) => [update.slot, update]));
  for (const { employee, slots } of plans) {
    for (const slot of slots) {
      const id = slot.id as number;
      const change = updated.get(slot);
      if (!slot.stored) {
        const opened = columnsOf(slot, employee, context, true);
        audits.push({
          action: 'punch_in',
          entityType: 'attendance',
          entityId: id,
          employeeId: employee.id,
          ...attendanceChanges({}, opened),
        });
        events.push(attendanceEvent('attendance.punched_in', record(id, employee, opened), context.now));
        if (slot.outMs === null) continue;
        const closed = columnsOf(slot, employee, context);
        audits.push({
          action: 'punch_out',
          entityType: 'attendance',
          entityId: id,
          employeeId: employee.id,
          ...attendanceChanges(opened, closed),
        });
        events.push(attendanceEvent('attendance.punched_out', record(id, employee, closed), context.now));
      } else if (change) {
        const { before, after } = change;
        const diff = attendanceChanges(before, after);
        const punchedOut = before.out_time_utc === null && after.out_time_utc !== null && before.in_time_utc === after.in_time_utc;
        audits.push({
          action: punchedOut ? 'punch_out' : 'update',
          entityType: 'attendance',
          entityId: id,
          employeeId: employee.id,
          ...diff,
        });
        events.push(
          punchedOut
            ? attendanceEvent('attendance.punched_out', record(id, employee, after), context.now)
            : attendanceEvent('attendance.corrected', record(id, employee, after), context.now, diff.fields),
        );
      }
    }
  }
  await writeAudits(trx, audits, { caller: context.caller, requestId: context.requestId, now: context.now });
  await recordEvents(trx, events);
}
