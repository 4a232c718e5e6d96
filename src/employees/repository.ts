import type { Knex } from 'knex';
import { type Db, dialectOf } from '../db/connect';
import { batchedLookup } from '../db/coalesced-reads';
import { toSqlDateTime } from '../db/sql-time';
import {
  EMPLOYEE_REFERENCE_FIELDS,
  type EmployeeColumns,
  type EmployeeRecord,
  selectEmployees,
  storedIdList,
  toEmployeeRecord,
} from '../employee-records/record';
import { columnOf, type EmployeeField } from '../employee-records/fields';

// Reads by id outside a transaction (GET /employees/{id}, access checks) are prepared and batched.
const lookUpEmployee = batchedLookup(
  (db, ids) => selectEmployees(db).whereIn('e.id', ids),
  (row) => Number(row.id),
  toEmployeeRecord,
);

/** The employee with the names it displays; read on `db`, a transaction's or the pool's. */
export async function findEmployeeById(db: Db, id: number): Promise<EmployeeRecord | undefined> {
  const row = (db as Knex.Transaction).isTransaction
    ? ((await selectEmployees(db).where('e.id', id).first()) as Record<string, unknown> | undefined)
    : await lookUpEmployee(db, id);
  return row && toEmployeeRecord(row);
}

export async function insertEmployee(db: Db, columns: EmployeeColumns & { created_at: string; updated_at: string }): Promise<number> {
  const [id] = await db('employees').insert(columns);
  return Number(id);
}

/** Writes changed columns of an employee, and its new updated_at. */
export async function updateEmployeeRow(db: Db, id: number, columns: Partial<EmployeeColumns>, now: Date): Promise<void> {
  await db('employees')
    .where({ id })
    .update({ ...columns, updated_at: toSqlDateTime(now) });
}

/**
 * Locks an employee's row until the transaction ends (MySQL; SQLite runs one writer at a time).
 * The FIRST statement of a conditional write: InnoDB fixes a transaction's snapshot at its first
 * plain read, so the reads after the lock see what the previous writer committed.
 */
export async function lockEmployeeRow(trx: Db, id: number): Promise<void> {
  if (dialectOf(trx) === 'mysql') await trx('employees').where({ id }).forUpdate().first('id');
}

export async function deleteEmployeeRow(db: Db, id: number): Promise<void> {
  await db('employees').where({ id }).delete();
}

/** An employee whose references to a deleted employee were cleared: which fields, and their values. */
interface DetachedEmployee {
  id: number;
  fields: EmployeeField[];
  before: Partial<EmployeeColumns>;
  after: Partial<EmployeeColumns>;
}

/**
 * Clears every reference other employees hold to employee `id` (supervisor, approvers, and the
 * id in indirect_supervisors, also when an import stored numbers), with a new updated_at, in one
 * UPDATE; returns what changed, for the audit. A stored list that is not JSON is left as it is.
 */
export async function detachEmployee(db: Db, id: number, now: Date): Promise<DetachedEmployee[]> {
  const columns = EMPLOYEE_REFERENCE_FIELDS.map(columnOf);
  const rows: Array<Partial<EmployeeColumns> & { id: number }> = await db('employees')
    .whereNot({ id })
    .andWhere((pointing) => {
      for (const column of columns) pointing.orWhere(column, id);
      // A superset (the digits may be part of another id); the parsed list decides.
      pointing.orWhere('indirect_supervisors', 'like', `%${id}%`);
    })
    .select('id', ...columns, 'indirect_supervisors');
  const detached: DetachedEmployee[] = [];
  for (const row of rows) {
    const fields: EmployeeField[] = EMPLOYEE_REFERENCE_FIELDS.filter(
      (field) => Number(row[columnOf(field) as keyof EmployeeColumns]) === id,
    );
    const after: Partial<EmployeeColumns> = Object.fromEntries(fields.map((field) => [columnOf(field), null]));
    const indirect = storedIdList(row.indirect_supervisors ?? null) ?? [];
    if (indirect.includes(String(id))) {
      const remaining = indirect.filter((entry) => entry !== String(id));
      after.indirect_supervisors = remaining.length === 0 ? null : JSON.stringify(remaining);
      fields.push('indirect_supervisors');
    }
    if (fields.length > 0) detached.push({ id: row.id, fields, before: row, after });
  }
  if (detached.length === 0) return detached;

  const lists = detached.filter((employee) => employee.after.indirect_supervisors !== undefined);
  const update: Record<string, unknown> = { updated_at: toSqlDateTime(now) };
  for (const column of columns) update[column] = db.raw('CASE WHEN ?? = ? THEN NULL ELSE ?? END', [column, id, column]);
  if (lists.length > 0) {
    update.indirect_supervisors = db.raw(`CASE ${lists.map(() => 'WHEN id = ? THEN ?').join(' ')} ELSE indirect_supervisors END`, [
      ...lists.flatMap((employee) => [employee.id, employee.after.indirect_supervisors ?? null]),
    ]);
  }
  await db('employees')
    .whereIn(
      'id',
      detached.map((employee) => employee.id),
    )
    .update(update);
  return detached;
}

/**
 * Disables the users linked to an employee and revokes their tokens (termination, deletion): a
 * deleted employee's user is unlinked afterwards, so the employee's status can no longer stop it
 * signing in; its own `disabled` flag does. `hrm user enable` lets it in again.
 */
export async function disableUsersOfEmployee(db: Db, employeeId: number, now: Date): Promise<void> {
  const users = db('users').select('id').where({ employee_id: employeeId });
  await db('api_tokens')
    .whereIn('user_id', users)
    .whereNull('revoked_at')
    .update({ revoked_at: toSqlDateTime(now) });
  await db('users')
    .where({ employee_id: employeeId })
    .update({ disabled: true, updated_at: toSqlDateTime(now) });
}

/** The ids among `ids` that exist in `table`. */
export async function existingIds(db: Db, table: string, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows: Array<{ id: number }> = await db(table).whereIn('id', ids).select('id');
  return new Set(rows.map((row) => Number(row.id)));
}

export async function findProvinceCountry(db: Db, provinceId: number): Promise<string | undefined> {
  const row: { country_code: string } | undefined = await db('provinces').where({ id: provinceId }).first('country_code');
  return row?.country_code;
}

export async function countryExists(db: Db, code: string): Promise<boolean> {
  return (await db('countries').where({ code }).first('code')) !== undefined;
}
