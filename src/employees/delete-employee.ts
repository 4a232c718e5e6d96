import { revokeTokensOfEmployee } from '../auth/token-repository';
import { writeAudit } from '../audit/repository';
import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import { assertMayDeleteEmployees, findVisibleEmployee } from './access';
import { storedIdList, valueChanges } from './columns';
import { columnOf, type EmployeeField } from './fields';
import { EMPLOYEE_REFERENCE_FIELDS, type EmployeeColumns, type EmployeeRecord } from './repository';
import type { WriteContext } from './update-employee';

/**
 * Deletes an employee (admins only), in one transaction: revokes the tokens of their users, clears
 * them from the other employees that point at them (supervisor, approvers, indirect_supervisors),
 * and writes the audit rows, the deleted employee's and one per employee so changed. Those
 * employees' updated_at moves too, so that a sync by `updated_since` sees the change. The foreign
 * keys delete their attendance.
 */
export async function deleteEmployee(db: Db, id: number, context: WriteContext): Promise<void> {
  const { caller, now } = context;
  const existing = await findVisibleEmployee(db, caller, id);
  assertMayDeleteEmployees(caller);
  await db.transaction(async (trx) => {
    await revokeTokensOfEmployee(trx, id, now);
    await detachFromOthers(trx, id, context);
    await writeAudit(
      trx,
      { action: 'delete', entityType: 'employee', entityId: id, fields: [], changes: identityOf(existing) },
      { caller, requestId: context.requestId, now },
    );
    await trx('employees').where({ id }).delete();
  });
}

function identityOf(employee: EmployeeRecord) {
  return { employee_id: { from: employee.employee_id, to: null } };
}

async function detachFromOthers(db: Db, id: number, context: WriteContext): Promise<void> {
  const columns = EMPLOYEE_REFERENCE_FIELDS.map(columnOf);
  const rows: Array<Partial<EmployeeColumns> & { id: number }> = await db('employees')
    .whereNot({ id })
    .andWhere((pointing) => {
      for (const column of columns) pointing.orWhere(column, id);
      // A superset (the digits may be part of another id); the parsed list decides.
      pointing.orWhere('indirect_supervisors', 'like', `%${id}%`);
    })
    .select('id', ...columns, 'indirect_supervisors');
  for (const row of rows) {
    const after: Partial<EmployeeColumns> = {};
    const fields: EmployeeField[] = EMPLOYEE_REFERENCE_FIELDS.filter((field) => Number(row[columnOf(field) as keyof EmployeeColumns]) === id);
    for (const field of fields) Object.assign(after, { [columnOf(field)]: null });
    const indirect = storedIdList(row.indirect_supervisors ?? null) ?? [];
    if (indirect.includes(String(id))) {
      const remaining = indirect.filter((entry) => entry !== String(id));
      after.indirect_supervisors = remaining.length === 0 ? null : JSON.stringify(remaining);
      fields.push('indirect_supervisors');
    }
    if (fields.length === 0) continue;
    await db('employees')
      .where({ id: row.id })
      .update({ ...after, updated_at: toSqlDateTime(context.now) });
    await writeAudit(
      db,
      { action: 'update', entityType: 'employee', entityId: row.id, fields, changes: valueChanges(row, after, fields) },
      { caller: context.caller, requestId: context.requestId, now: context.now },
    );
  }
}
