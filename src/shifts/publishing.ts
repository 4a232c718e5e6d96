import type { Knex } from 'knex';
import { z } from 'zod';
import { toSqlDateTime } from '../db/sql-time';
import { canSeeEmployee } from '../employees/access';
import { type FieldError, ForbiddenError, ValidationError } from '../errors';
import { date, idSchema } from '../http/field-schemas';
import { parseFields } from '../http/parse';
import { daysBetween } from '../time';
import { assertMaySchedule, mayScheduleFor, SCHEDULE_REFUSAL } from './shift-access';
import { assertDatesUnlocked, assertNoPublishedOverlap, lockEmployees, recordShiftChanges, type ShiftWriteContext } from './shift-guards';
import type { Shift, ShiftStatus } from './shift-model';
import { findShiftsByIds, shiftsToSwitch, updateShift } from './shift-repository';

// POST /shifts/publish and /shifts/unpublish {"from", "to", "employees"?} (CONTRACT 6.7): every
// draft (or published) shift dated from..to of those employees, or of every employee the caller
// schedules (admins: open shifts too), switches status at once, or none does.

/** The longest range of dates one request reads or switches. */
export const MAX_RANGE_DAYS = 62;

export const PUBLISH_FIELDS = {
  from: date,
  to: date,
  employees: z
    .array(idSchema('an employee').meta({ 'x-accepts': 'id' }), { error: 'must be a list of employee ids' })
    .max(500, { error: 'must list at most 500 employees' }),
};

export function rangeErrors(from: string | null | undefined, to: string | null | undefined): FieldError[] {
  if (!from || !to) return [];
  const days = daysBetween(from, to);
  if (days < 0) return [{ field: 'to', message: 'must not be before from' }];
  if (days >= MAX_RANGE_DAYS)
    return [{ field: 'to', message: `must be at most ${MAX_RANGE_DAYS - 1} days after from (${MAX_RANGE_DAYS} days, both included)` }];
  return [];
}

export async function switchShifts(
  trx: Knex.Transaction,
  body: Record<string, unknown>,
  context: ShiftWriteContext,
  target: Extract<ShiftStatus, 'published' | 'draft'>,
): Promise<{ count: number }> {
  assertMaySchedule(context.caller);
  const { values, errors } = parseFields(PUBLISH_FIELDS, body, { pathId: undefined, required: ['from', 'to'], noun: 'a publication' });
  for (const field of ['from', 'to'])
    if (Object.hasOwn(values, field) && values[field] === null) errors.push({ field, message: 'must be a date YYYY-MM-DD' });
  const from = values.from as string;
  const to = values.to as string;
  errors.push(...rangeErrors(from, to));
  if (errors.length > 0) throw new ValidationError(errors);
  const named = values.employees as number[] | undefined;

  const caller = context.caller;
  const supervisorId = caller.role === 'manager' ? (caller.employeeId ?? 0) : undefined;
  const source: ShiftStatus = target === 'published' ? 'draft' : 'published';
  // A locking read first: the employees are found without fixing the transaction's snapshot, then locked.
  const found = await shiftsToSwitch(trx, { status: source, from, to, employeeIds: named, supervisorId, forUpdate: true });
  const locked = await lockEmployees(trx, [
    ...(named ?? []),
    ...found.flatMap((shift) => (shift.employee_id === null ? [] : [shift.employee_id])),
  ]);
  for (const [index, id] of (named ?? []).entries()) {
    const employee = locked.get(id);
    if (!employee || !canSeeEmployee(caller, employee))
      errors.push({ field: `employees.${index}`, message: 'does not exist, or is not an employee you schedule' });
    else if (!mayScheduleFor(caller, employee)) throw new ForbiddenError({ detail: SCHEDULE_REFUSAL });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  const shifts = (await shiftsToSwitch(trx, { status: source, from, to, employeeIds: named, supervisorId })).filter(
    (shift) => shift.employee_id !== null || caller.role === 'admin',
  );
  for (const shift of shifts) await assertDatesUnlocked(trx, shift.employee_id, [shift.date]);
  if (target === 'published') {
    for (const [index, shift] of shifts.entries()) {
      if (shift.employee_id === null) continue;
      const earlier = shifts.slice(0, index).filter((other) => other.employee_id === shift.employee_id);
      await assertNoPublishedOverlap(trx, shift.employee_id, shift, [], earlier);
    }
  }
  const updatedAt = toSqlDateTime(context.now);
  for (const shift of shifts) await updateShift(trx, shift.id, { status: target, version: shift.version + 1, updated_at: updatedAt });
  const after = await findShiftsByIds(
    trx,
    shifts.map((shift) => shift.id),
  );
  const before = new Map<number, Shift>(shifts.map((shift) => [shift.id, shift]));
  await recordShiftChanges(
    trx,
    after.map((shift) => ({
      action: target === 'published' ? 'shift.publish' : 'shift.unpublish',
      before: before.get(shift.id),
      after: shift,
      fields: ['status'],
    })),
    context,
  );
  return { count: shifts.length };
}
