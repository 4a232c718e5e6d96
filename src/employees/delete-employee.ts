import { revokeTokensOfEmployee } from '../auth/token-repository';
import { writeAudit } from '../audit/repository';
import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import { assertMayDeleteEmployees, findVisibleEmployee } from './access';
import { type EmployeeRecord } from './repository';
import type { WriteContext } from './update-employee';

/**
 * Deletes an employee (admins only): revokes the tokens of their users, drops them from others'
 * indirect_supervisors, and writes the audit row, in one transaction. The foreign keys clear
 * supervisor/approver references to them and delete their attendance.
 */
export async function deleteEmployee(db: Db, id: number, context: WriteContext): Promise<void> {
  const { caller, now } = context;
  const existing = await findVisibleEmployee(db, caller, id);
  assertMayDeleteEmployees(caller);
  await db.transaction(async (trx) => {
    await revokeTokensOfEmployee(trx, id, now);
    await removeFromIndirectSupervisors(trx, id, now);
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

async function removeFromIndirectSupervisors(db: Db, id: number, now: Date): Promise<void> {
  const rows: Array<{ id: number; indirect_supervisors: string }> = await db('employees')
    .where('indirect_supervisors', 'like', `%"${id}"%`)
    .select('id', 'indirect_supervisors');
  for (const row of rows) {
    const remaining = (JSON.parse(row.indirect_supervisors) as string[]).filter((entry) => entry !== String(id));
    await db('employees')
      .where({ id: row.id })
      .update({ indirect_supervisors: remaining.length === 0 ? null : JSON.stringify(remaining), updated_at: toSqlDateTime(now) });
  }
}
