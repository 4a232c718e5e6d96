import type { Caller } from '../caller';
import type { Db } from '../db/connect';
import { toAttendanceResponse } from '../attendance/output';
import type { AttendanceRecord } from '../attendance/repository';
import { COUNTRY, REFERENCE_FIELDS, type ReferenceFieldName } from '../employees/fields';
import { toEmployeeResponse } from '../employees/output';
import { type EmployeeRecord, findEmployeeById } from '../employees/repository';
import type { NamedTable, NameLookup } from '../lookups/reference-names';
import { recordEvents, type OutboxEvent } from './outbox';

// The events of employee and attendance writes, as their flows record them in their transaction.
// Each function writes nothing when no subscription wants the event.

type EmployeeEventType = 'employee.created' | 'employee.updated' | 'employee.terminated';
type AttendanceEventType = 'attendance.punched_in' | 'attendance.punched_out' | 'attendance.corrected';

/**
 * Reads the employee shape with every field: the sender leaves the personal ones out for the
 * subscriptions that may not have them. Only seesPersonalFields looks at it.
 */
const READS_EVERYTHING: Caller = { userId: 0, username: 'webhooks', role: 'admin', employeeId: null, tokenId: '' };

/** An employee event; `record` is the employee as the write left it, else it is read again in `trx`. */
export function employeeEvent(
  trx: Db,
  type: EmployeeEventType,
  id: number,
  occurredAt: Date,
  options: { record?: EmployeeRecord; changedFields?: readonly string[] } = {},
): OutboxEvent {
  return {
    type,
    resourceId: id,
    occurredAt,
    changedFields: options.changedFields,
    data: async () => {
      const record = options.record ?? (await findEmployeeById(trx, id));
      if (!record) throw new Error(`Employee ${id} vanished inside its own transaction`);
      return toEmployeeResponse(record, READS_EVERYTHING, await referenceNamesOf(trx, record));
    },
  };
}

/** employee.deleted or attendance.deleted: the data is the id alone. */
export function deletionEvent(type: 'employee.deleted' | 'attendance.deleted', id: number, occurredAt: Date): OutboxEvent {
  return { type, resourceId: id, occurredAt, data: () => ({ id: String(id) }) };
}

export function attendanceEvent(type: AttendanceEventType, record: AttendanceRecord, occurredAt: Date, changedFields?: readonly string[]): OutboxEvent {
  return { type, resourceId: record.id, occurredAt, changedFields, data: () => toAttendanceResponse(record) };
}

/** Records one employee event in the write's transaction (see recordEvents). */
export function recordEmployeeEvent(
  trx: Db,
  type: EmployeeEventType,
  record: EmployeeRecord,
  occurredAt: Date,
  changedFields?: readonly string[],
): Promise<void> {
  return recordEvents(trx, [employeeEvent(trx, type, record.id, occurredAt, { record, changedFields })]);
}

/**
 * Records one attendance event in the write's transaction: what every attendance write path
 * calls (punches, corrections), after its write to the record. Terminals' batches record
 * theirs together (attendanceEvent, recordEvents).
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

const NAMED_REFERENCES = (Object.keys(REFERENCE_FIELDS) as ReferenceFieldName[]).filter((field) => REFERENCE_FIELDS[field].table !== 'employees');

/**
 * The display names of one employee's references, read in the transaction (one primary-key read
 * per reference that is set): the event carries the names as they were when it happened.
 */
async function referenceNamesOf(trx: Db, record: EmployeeRecord): Promise<NameLookup> {
  const wanted: Array<[NamedTable, string, number | string]> = [];
  for (const field of NAMED_REFERENCES) {
    const { table, column } = REFERENCE_FIELDS[field];
    const id = record[column as keyof EmployeeRecord] as number | null;
    if (id !== null) wanted.push([table as NamedTable, 'id', id]);
  }
  if (record.country_code !== null) wanted.push([COUNTRY.table, 'code', record.country_code]);
  const names = new Map<string, string>();
  for (const [table, key, value] of wanted) {
    const row: { name: string } | undefined = await trx(table).where(key, value).first('name');
    if (row) names.set(`${table}:${value}`, row.name);
  }
  return { name: (table, key) => names.get(`${table}:${key}`) ?? null };
}
