import type { Db } from '../db/connect';
import { deletionEvent, type OutboxEvent, recordEvents } from '../webhooks/outbox';
import { toAttendanceResponse } from './output';
import type { AttendanceRecord } from './repository';

// The events of attendance writes, as every write path records them in its transaction (punches,
// corrections, terminal batches). Nothing is written when no subscription wants the event.

type AttendanceEventType = 'attendance.punched_in' | 'attendance.punched_out' | 'attendance.corrected';

export function attendanceEvent(
  type: AttendanceEventType,
  record: AttendanceRecord,
  occurredAt: Date,
  changedFields?: readonly string[],
): OutboxEvent {
  return { type, resourceId: record.id, occurredAt, changedFields, data: () => toAttendanceResponse(record) };
}

/**
 * Records one attendance event in the write's transaction, after the write to the record.
 * Terminals' batches record theirs together (attendanceEvent, recordEvents).
 */
export function recordAttendanceEvent(
  trx: Db,
  type: AttendanceEventType,
  record: AttendanceRecord,
  occurredAt: Date,
  changedFields?: readonly string[],
): Promise<void> {
  return recordEvents(trx, [attendanceEvent(type, record, occurredAt, changedFields)]);
}

export function recordAttendanceDeleted(trx: Db, id: number, occurredAt: Date): Promise<void> {
  return recordEvents(trx, [deletionEvent('attendance.deleted', id, occurredAt)]);
}
