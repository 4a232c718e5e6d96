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
 * Terminating revokes the tokens of the employee's users in the same transaction.
 */
export async function updateEmployee(db: Db, id: number, body: Record<string, unknown>, context: WriteContext): Promise<EmployeeRecord> {
  const { caller, now } = context;
  const existing = await findVisibleEmployee(db, caller, id);
  const { values, errors } = parseEmployeeInput(body, id);
  const columns = toEmployeeColumns(values);
  const changing = new Set<string>([...changedFields(existing, columns), ...errors.map((error) => error.field.split('.')[0] as string)]);
  assertMayWriteFields(caller, existing, Object.keys(body), (field) => changing.has(field));

  const timezone = values.timezone ?? existing.timezone;
  errors.push(...(await checkEmployeeRules(db, values, { existing, now, timezone })));
  const terminating = existing.status !== 'Terminated' && columns.status === 'Terminated';
  const reactivating = existing.status === 'Terminated' && columns.status === 'Active';
  const staysTerminated = existing.status === 'Terminated' && !reactivating;
  if (staysTerminated && 'termination_date' in columns && columns.termination_date === null) {
    errors.push({ field: 'termination_date', message: 'must be set while the status is Terminated' });
  }
  if (errors.length > 0) throw new ValidationError(errors.sort(byFieldOrder));

  // A record read, changed to Terminated and sent back carries termination_date null: today.
  // Read, changed to Active and sent back, it carries the old date: cleared, unless changed.
  if (terminating && (columns.termination_date ?? null) === null) columns.termination_date = todayIn(timezone, now);
  if (reactivating && sameValue(existing.termination_date, columns.termination_date ?? existing.termination_date)) columns.termination_date = null;

  const changed = changedFields(existing, columns);
  if (changed.length === 0) return existing;
  return db.transaction(async (trx) => {
    await trx('employees')
      .where({ id })
      .update({ ...columns, updated_at: toSqlDateTime(now) });
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

/** The fields whose stored value the update changes. */
function changedFields(existing: EmployeeRecord, columns: Partial<EmployeeColumns>): EmployeeField[] {
  return EMPLOYEE_FIELDS.filter((field) => {
    const column = columnOf(field) as keyof EmployeeColumns;
    return column in columns && !sameValue(existing[column], columns[column]);
  });
}

/** Whether a stored value and a sent one are the same; a zero date (rows imported from IceHrm) is null, as it is answered. */
function sameValue(stored: unknown, sent: unknown): boolean {
  const a = typeof stored === 'string' && stored.startsWith('0000-00-00') ? null : stored;
  if (a === null || a === undefined || sent === null || sent === undefined) return (a ?? null) === (sent ?? null);
  return String(a) === String(sent);
}
