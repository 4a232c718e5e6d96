import type { Knex } from 'knex';
import { type AuditEntry, writeAudits } from '../audit/repository';
import { assertMayDeleteEmployees, findVisibleEmployee } from './access';
import { valueChanges } from './columns';
import { deleteEmployeeRow, detachEmployee, disableUsersOfEmployee, lockEmployeeRow } from './repository';
import { recordEmployeeDeletion } from '../deletions/tombstones';
import { assertNoLockedAttendance } from '../period-guard/guard';
import type { WriteContext } from './update-employee';
import { deletionEvent, recordEvents } from '../webhooks/outbox';
import { employeeEvent } from './events';
import { assertEmployeeIfMatch } from './entity-tags';

/**
 * Deletes an employee (admins only), in the write's transaction: disables their users and revokes
 * their tokens, clears them from the other employees that point at them (supervisor, approvers,
 * indirect_supervisors), and writes the audit rows, one per employee so changed and the deleted
 * employee's. Those employees' updated_at moves too, so that a sync by `updated_since` sees the
 * change. The foreign keys delete their attendance; the tombstones of the employee and of that
 * attendance are written first (the deletion feeds, src/deletions/tombstones.ts). Refused while
 * one of their records counts in a locked pay period (docs/pay-periods.md, "Locking").
 */
export async function deleteEmployee(trx: Knex.Transaction, id: number, context: WriteContext): Promise<void> {
  const { caller, now } = context;
  // Locked first: the If-Match check, and the attendance tombstones (an attendance write locks
  // the employee too, so no record can arrive between them and the cascade).
  await lockEmployeeRow(trx, id);
  const existing = await findVisibleEmployee(trx, caller, id);
  assertMayDeleteEmployees(caller);
  await assertEmployeeIfMatch(context.ifMatch, existing, context.names, trx);
  await assertNoLockedAttendance(trx, id);
  await disableUsersOfEmployee(trx, id, now);
  const detached = await detachEmployee(trx, id, now);
  const entries: AuditEntry[] = detached.map((employee) => ({
    action: 'update',
    entityType: 'employee',
    entityId: employee.id,
    fields: employee.fields,
    changes: valueChanges(employee.before, employee.after, employee.fields),
  }));
  entries.push({
    action: 'delete',
    entityType: 'employee',
    entityId: id,
    fields: [],
    changes: { employee_id: { from: existing.employee_id, to: null } },
  });
  await writeAudits(trx, entries, { caller, requestId: context.requestId, now });
  await recordEmployeeDeletion(trx, existing, now);
  await deleteEmployeeRow(trx, id);
  await recordEvents(trx, [
    ...detached.map((employee) => employeeEvent(trx, 'employee.updated', employee.id, now, { changedFields: employee.fields })),
    deletionEvent('employee.deleted', id, now),
  ]);
}
