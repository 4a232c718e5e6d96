import type { Knex } from 'knex';
import type { Caller } from '../../caller';
import type { Db } from '../../db/connect';
import { canSeeEmployee } from '../../employees/access';
import { ConflictError, type FieldError, ForbiddenError, NotFoundError, ValidationError } from '../../errors';
import { mayScheduleFor } from '../shift-access';
import { lockEmployees, type ShiftChangeContext } from '../shift-guards';
import { findShiftType } from '../type-repository';
import { parseRotation, type Rotation } from './rotation-model';
import { deleteRotation, findRotation, insertRotation, listAllRotationIds, updateRotation } from './rotation-repository';
import { generateRotation, removeFutureShifts } from './rotation-generation';

// POST, PUT and DELETE /rotations (admins; managers for their direct reports), and the daily
// sweep. Each write locks the employee first, then generates or removes shifts in its transaction.

const REFUSAL = 'Only admins, and managers for their direct reports, may manage rotations';

/** 404 for a rotation the caller may not see (managers: their direct reports'), 403 for employees. */
export function assertMayManageRotation(caller: Caller, rotation: Pick<Rotation, 'employee_id' | 'supervisor_id'> | undefined): Rotation {
  if (caller.role === 'employee') throw new ForbiddenError({ detail: REFUSAL });
  const employee = rotation && { id: rotation.employee_id, supervisor_id: rotation.supervisor_id };
  if (!rotation || !employee || !mayScheduleFor(caller, employee)) throw new NotFoundError({ detail: 'No such rotation' });
  return rotation as Rotation;
}

async function checkedValues(trx: Knex.Transaction, body: Record<string, unknown>, caller: Caller, pathId: number | undefined) {
  if (caller.role === 'employee') throw new ForbiddenError({ detail: REFUSAL });
  const { values, errors } = parseRotation(body, pathId);
  if (errors.length > 0) throw new ValidationError(errors);
  const locked = await lockEmployees(trx, [values.employee]);
  const employee = locked.get(values.employee);
  const more: FieldError[] = [];
  if (!employee || !canSeeEmployee(caller, employee))
    more.push({ field: 'employee', message: 'does not exist, or is not an employee you schedule' });
  else if (!mayScheduleFor(caller, employee)) throw new ForbiddenError({ detail: REFUSAL });
  for (const [index, id] of values.cycle.entries())
    if (id !== null && !(await findShiftType(trx, id)))
      more.push({ field: `cycle.${index}`, message: 'does not exist: must be the id of a shift type or null' });
  if (more.length > 0 || !employee) throw new ValidationError(more);
  return { values, employee };
}

export async function createRotation(
  trx: Knex.Transaction,
  body: Record<string, unknown>,
  context: ShiftChangeContext & { caller: Caller },
): Promise<Rotation> {
  const { values, employee } = await checkedValues(trx, body, context.caller, undefined);
  const rotation = (await findRotation(trx, await insertRotation(trx, values, context.now)))!;
  await generateRotation(trx, rotation, employee, context);
  return rotation;
}

/** PUT: the whole rotation again; its future untouched shifts are removed and generated anew. */
export async function replaceRotation(
  trx: Knex.Transaction,
  id: number,
  knownEmployeeId: number,
  body: Record<string, unknown>,
  context: ShiftChangeContext & { caller: Caller },
): Promise<Rotation> {
  const { values, employee } = await checkedValues(trx, body, context.caller, id);
  const locked = await lockEmployees(trx, [knownEmployeeId]);
  const current = assertMayManageRotation(context.caller, await findRotation(trx, id));
  if (current.employee_id !== knownEmployeeId)
    throw new ConflictError({ detail: 'The rotation changed meanwhile; read it again and retry' });
  await removeFutureShifts(trx, current, locked.get(knownEmployeeId)!, context);
  await updateRotation(trx, id, values, context.now);
  const rotation = (await findRotation(trx, id))!;
  await generateRotation(trx, rotation, employee, context);
  return rotation;
}

export async function removeRotation(
  trx: Knex.Transaction,
  id: number,
  knownEmployeeId: number,
  context: ShiftChangeContext & { caller: Caller },
): Promise<{ id: string }> {
  const locked = await lockEmployees(trx, [knownEmployeeId]);
  const current = assertMayManageRotation(context.caller, await findRotation(trx, id));
  if (current.employee_id !== knownEmployeeId)
    throw new ConflictError({ detail: 'The rotation changed meanwhile; read it again and retry' });
  await removeFutureShifts(trx, current, locked.get(knownEmployeeId)!, context);
  await deleteRotation(trx, id);
  return { id: String(id) };
}

/**
 * The daily sweep: every rotation generated up to 90 days ahead of its employee's today, each in
 * a transaction of its own. Running it again creates nothing (rotation_days).
 */
export async function sweepRotations(db: Db, now: Date): Promise<number> {
  let created = 0;
  for (const { id, employee_id: employeeId } of await listAllRotationIds(db)) {
    created += await db.transaction(async (trx) => {
      const employee = (await lockEmployees(trx, [employeeId])).get(employeeId);
      const rotation = await findRotation(trx, id);
      if (!employee || !rotation) return 0;
      return generateRotation(trx, rotation, employee, { caller: undefined, now, requestId: undefined });
    });
  }
  return created;
}
