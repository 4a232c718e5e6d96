import type { Knex } from 'knex';
import { writeAudit } from '../audit/repository';
import { type FieldError, ValidationError } from '../errors';
import type { Caller } from '../caller';
import { assertNoLockedAttendance } from '../period-guard/guard';
import { reopenForGroupMove } from '../period-guard/reopen';
import { todayIn } from '../time';
import { recordEmployeeEvent } from './events';
import { assertEmployeeIfMatch } from './entity-tags';
import type { IfMatch } from '../http/conditional';
import type { ReferenceNames } from './output';
import { assertMayWriteFields, findVisibleEmployee } from './access';
import { toEmployeeColumns, valueChanges } from './columns';
import { columnOf, EMPLOYEE_FIELDS, type EmployeeField } from '../employee-records/fields';
import type { EmployeeColumns, EmployeeRecord } from '../employee-records/record';
import { findEmployeeById, disableUsersOfEmployee, lockEmployeeRow, updateEmployeeRow } from './repository';
import { checkEmployeeRules } from './rules';
import { byFieldOrder, type EmployeeValues, parseEmployeeInput } from './schemas';

const KNOWN_FIELDS = new Set<string>(EMPLOYEE_FIELDS);

export interface WriteContext {
  caller: Caller;
  now: Date;
  requestId: string;
  /**
   * The request's If-Match, checked against the employee as stored: their row is locked first
   * (lockEmployeeRow), so that the check and the write see the same state (a 412 writes nothing).
   */
  ifMatch?: IfMatch;
  /** The instance's reference names, which the If-Match check reads as a GET's ETag does. */
  names: ReferenceNames;
}

/**
 * PUT and PATCH: only the sent fields change, null clears (docs/api.md). Order of refusals: 404
 * for an invisible record, 403 for fields the caller may not change, 422 for invalid values.
 * A field sent with the value it has is no change: it is neither refused nor checked again (a
 * record sent back whole works, even when an import left a value the rules would now refuse),
 * and only the fields whose value changes are written, so a record sent back whole never writes
 * what it was read with over a change made meanwhile. Terminating revokes the tokens of the
 * employee's users, in the write's transaction `trx` like everything here.
 */
export async function updateEmployee(
  trx: Knex.Transaction,
  id: number,
  body: Record<string, unknown>,
  context: WriteContext,
): Promise<EmployeeRecord> {
  const { caller, now } = context;
  if (context.ifMatch) await lockEmployeeRow(trx, id);
  const existing = await findVisibleEmployee(trx, caller, id);
  await assertEmployeeIfMatch(context.ifMatch, existing, context.names, trx);
  const stored = asStored(existing);
  const parsed = parseEmployeeInput(body, id);
  const values = parsed.values;
  const errors = parsed.errors.filter((error) => !sentAsStored(body, existing, fieldOf(error)));
  const timezone = values.timezone ?? existing.timezone;

  // A record read, changed to Terminated and sent back carries termination_date null: today.
  // Read, changed to Active and sent back, it carries the old date: cleared, unless changed.
  const terminating = existing.status !== 'Terminated' && values.status === 'Terminated';
  const reactivating = existing.status === 'Terminated' && values.status === 'Active';
  if (terminating && (values.termination_date ?? null) === null) values.termination_date = todayIn(timezone, now);
  if (reactivating && sameValue(stored.termination_date, values.termination_date ?? stored.termination_date))
    values.termination_date = null;

  const columns = toEmployeeColumns(values);
  const changed = changedFields(stored, columns);
  const changing = new Set<string>([...changed, ...errors.map(fieldOf)]);
  assertMayWriteFields(caller, existing, Object.keys(body), (field) => changing.has(field));

  const changedValues = Object.fromEntries(changed.map((field) => [field, values[field]])) as EmployeeValues;
  errors.push(...(await checkEmployeeRules(trx, changedValues, { existing: stored, now, timezone })));
  if (existing.status === 'Terminated' && !reactivating && changed.includes('termination_date') && columns.termination_date === null) {
    errors.push({ field: 'termination_date', message: 'must be set while the status is Terminated' });
  }
  if (errors.length > 0) throw new ValidationError(errors.sort(byFieldOrder));

  if (changed.length === 0) return existing;
  if (changed.includes('pay_group')) {
    // Leaving or joining a group moves the employee's numbers between its periods: refused while
    // a locked period of either group holds one of their records (docs/pay-periods.md, "Pay groups").
    if (!context.ifMatch) await lockEmployeeRow(trx, id);
    await assertNoLockedAttendance(trx, id, [existing.pay_group_id ?? 1, columns.pay_group_id!]);
  }
  const update = Object.fromEntries(changed.map((field) => [columnOf(field), columns[columnOf(field) as keyof EmployeeColumns]]));
  await updateEmployeeRow(trx, id, update, now);
  // Their new group's rules classify them from now on: approvals whose numbers change reopen.
  if (changed.includes('pay_group'))
    await reopenForGroupMove(
      trx,
      id,
      { caller, requestId: context.requestId, now },
      { from: existing.pay_group_id ?? 1, to: columns.pay_group_id! },
    );
  if (terminating) await disableUsersOfEmployee(trx, id, now);
  await writeAudit(
    trx,
    {
      action: terminating ? 'terminate' : reactivating ? 'reactivate' : 'update',
      entityType: 'employee',
      entityId: id,
      fields: changed,
      changes: valueChanges(existing, columns, changed),
    },
    { caller, requestId: context.requestId, now },
  );
  const updated = await findEmployeeById(trx, id);
  if (!updated) throw new Error(`Employee ${id} vanished inside its own transaction`);
  await recordEmployeeEvent(trx, terminating ? 'employee.terminated' : 'employee.updated', updated, now, changed);
  return updated;
}

/**
 * The stored record as the API would store it if it were sent. Rows imported from IceHrm may
 * hold a zero date, '' or an id list spelt otherwise (numbers, duplicates, spaces); each reads
 * as what it means, as it is answered, so sending it back is no change. A value the input rules
 * refuse is kept as it is.
 */
function asStored(existing: EmployeeRecord): EmployeeRecord {
  const asSent = Object.fromEntries(EMPLOYEE_FIELDS.map((field) => [field, existing[columnOf(field) as keyof EmployeeColumns]]));
  const { values, errors } = parseEmployeeInput(asSent, existing.id);
  const stored = { ...existing, ...toEmployeeColumns(values) };
  for (const error of errors) {
    const column = columnOf(fieldOf(error) as EmployeeField) as keyof EmployeeColumns;
    Object.assign(stored, { [column]: existing[column] });
  }
  return stored;
}

/** Whether `field` was sent exactly as it is stored: an invalid value left by an import, sent back untouched. */
function sentAsStored(body: Record<string, unknown>, existing: EmployeeRecord, field: string): boolean {
  if (!KNOWN_FIELDS.has(field) || !Object.hasOwn(body, field)) return false;
  const sent = body[field];
  const value = existing[columnOf(field as EmployeeField) as keyof EmployeeColumns];
  return typeof sent === 'string' && typeof value === 'string' && sent === value;
}

/** The field a field error is about ("indirect_supervisors.0" is about indirect_supervisors). */
function fieldOf(error: FieldError): string {
  return error.field.split('.')[0] as string;
}

/** The fields whose stored value the update changes. */
function changedFields(stored: EmployeeRecord, columns: Partial<EmployeeColumns>): EmployeeField[] {
  return EMPLOYEE_FIELDS.filter((field) => {
    const column = columnOf(field) as keyof EmployeeColumns;
    return column in columns && !sameValue(stored[column], columns[column]);
  });
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  return String(a) === String(b);
}
