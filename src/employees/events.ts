import type { Caller } from '../caller';
import type { Db } from '../db/connect';
import type { EmployeeRecord } from '../employee-records/record';
import { readReferenceNames } from '../lookups/reference-names';
import { type OutboxEvent, recordEvents } from '../webhooks/outbox';
import { referencesOf, toEmployeeResponse } from './output';
import { findEmployeeById } from './repository';

// The events of employee writes, as their flows record them in their transaction. Nothing is
// written when no subscription wants the event.

type EmployeeEventType = 'employee.created' | 'employee.updated' | 'employee.terminated';

/**
 * Reads the employee shape with every field: the sender leaves the personal ones out for the
 * subscriptions that may not have them. Only seesPersonalFields looks at it.
 */
const READS_EVERYTHING: Caller = { userId: 0, username: 'webhooks', role: 'admin', employeeId: null, tokenId: '' };

/**
 * An employee event; `record` is the employee as the write left it, else it is read again in
 * `trx`. Its references display the names as they are in the transaction, when it happened.
 */
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
      return toEmployeeResponse(record, READS_EVERYTHING, await readReferenceNames(trx, referencesOf([record])));
    },
  };
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
