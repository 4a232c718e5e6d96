import type { Caller } from '../auth/caller';
import { revokeTokensOfEmployee } from '../auth/token-repository';
import { writeAudit } from '../audit/repository';
import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import { ValidationError } from '../errors';
import { todayIn } from '../time';
import { assertMayWriteFields, findVisibleEmployee } from './access';
import { toEmployeeColumns, valueChanges } from './columns';
import { columnOf, EMPLOYEE_FIELDS, type EmployeeField } from './fields';
import { type EmployeeColumns, type EmployeeRecord, findEmployeeById } from './repository';
import { checkEmployeeRules } from './rules';
import { byFieldOrder, parseEmployeeInput } from './schemas';

export interface WriteContext {
  caller: Caller;
  now: Date;
  requestId: string;
}

/**
 * PUT and PATCH: only the sent fields change, null clears (CONTRACT §6). Order of refusals: 404
 * for an invisible record, 403 for fields the caller may not change, 422 for invalid values.
 * Only the fields whose value changes are written, so a record sent back whole never writes back
 * what it was read with over a change made meanwhile. Terminating revokes the tokens of the
 * employee's users in the same transaction.
 */
export async function updateEmployee(db: Db, id: number, body: Record<string, unknown>, context: WriteContext): Promise<EmployeeRecord> {
  const { caller, now } = context;
  const existing = await findVisibleEmployee(db, caller, id);
  const stored = asStored(existing);
  const { values, errors } = parseEmployeeInput(body, id);
  const columns = toEmployeeColumns(values);
  const changing = new Set<string>([...changedFields(stored, columns), ...errors.map((error) => error.field.split('.')[0] as string)]);
  assertMayWriteFields(caller, existing, Object.keys(body), (field) => changing.has(field));

  const timezone = values.timezone ?? existing.timezone;
  errors.push(...(await checkEmployeeRules(db, values, { existing, now, timezone })));
  const terminating = existing.status !== 'Terminated' && columns.status === 'Terminated';
  const reactivating = existing.status === 'Terminated' && columns.status === 'Active';
  const staysTerminated = existing.status === 'Terminated' && !reactivating;
  if (staysTerminated && 'termination_date' in columns && columns.termination_date === null && stored.termination_date !== null) {
    errors.push({ field: 'termination_date', message: 'must be set while the status is Terminated' });
  }
  if (errors.length > 0) throw new ValidationError(errors.sort(byFieldOrder));

  // A record read, changed to Terminated and sent back carries termination_date null: today.
  // Read, changed to Active and sent back, it carries the old date: cleared, unless changed.
  if (terminating && (columns.termination_date ?? null) === null) columns.termination_date = todayIn(timezone, now);
  if (reactivating && sameValue(stored.termination_date, columns.termination_date ?? stored.termination_date)) columns.termination_date = null;

  const changed = changedFields(stored, columns);
  if (changed.length === 0) return existing;
  const update = Object.fromEntries(changed.map((field) => [columnOf(field), columns[columnOf(field) as keyof EmployeeColumns]]));
  return db.transaction(async (trx) => {
    await trx('employees')
      .where({ id })
      .update({ ...update, updated_at: toSqlDateTime(now) });
    if (terminating) await revokeTokensOfEmployee(trx, id, now);
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
    return updated;
  });
}

/**
 * The stored values as the API would store them if they were sent. Rows imported from IceHrm may
 * hold a zero date, '' or an id list spelt otherwise (numbers, duplicates, spaces); each reads
 * as what it means, so sending it back is no change. A value the input rules refuse is kept as
 * it is.
 */
function asStored(existing: EmployeeRecord): Partial<EmployeeColumns> {
  const asSent = Object.fromEntries(EMPLOYEE_FIELDS.map((field) => [field, existing[columnOf(field) as keyof EmployeeColumns]]));
  const { values, errors } = parseEmployeeInput(asSent, existing.id);
  const stored = { ...existing, ...toEmployeeColumns(values) } as Partial<EmployeeColumns>;
  for (const error of errors) {
    const column = columnOf(error.field.split('.')[0] as EmployeeField) as keyof EmployeeColumns;
    Object.assign(stored, { [column]: existing[column] });
  }
  return stored;
}

/** The fields whose stored value the update changes. */
function changedFields(stored: Partial<EmployeeColumns>, columns: Partial<EmployeeColumns>): EmployeeField[] {
  return EMPLOYEE_FIELDS.filter((field) => {
    const column = columnOf(field) as keyof EmployeeColumns;
    return column in columns && !sameValue(stored[column], columns[column]);
  });
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  return String(a) === String(b);
}
