import type { Knex } from 'knex';
import type { AttendanceEmployee } from '../../attendance/repository';
import { toSqlDateTime, toSqlDateTimeSeconds } from '../../db/sql-time';
import { lockedPeriodOf, readPeriodStateOf } from '../../period-guard/guard';
import { addDays, daysBetween, todayIn } from '../../time';
import { recordShiftChanges, type ShiftChangeContext } from '../shift-guards';
import { findShiftsByIds, insertShift, publishedOverlapping, recordShiftDeletion, deleteShift } from '../shift-repository';
import { instantOfLocal, localTimesOn } from '../times';
import type { ShiftType } from '../type-fields';
import { findShiftType } from '../type-repository';
import { DAYS_AHEAD, type Rotation } from './rotation-model';
import { forgetHandled, handledDates, markHandled } from './rotation-repository';

// Keeping a rotation's shifts generated 90 days ahead (CONTRACT 6.7, docs/schedules.md
// "Rotations"). Both run in a transaction that has locked the employee's row first (as every shift
// write): a published shift is generated only where it overlaps nothing published (else it is
// generated as a draft), and each rotation and date is handled once (rotation_days' unique key).

/** The cycle day of a date: days since the anchor, modulo the cycle's length (dates before the anchor too). */
export function cycleIndexOf(rotation: Pick<Rotation, 'anchor_date' | 'cycle'>, date: string): number {
  const length = rotation.cycle.length;
  return (((daysBetween(rotation.anchor_date, date) % length) + length) % length) as number;
}

/** The dates generation covers: from the employee's today (or valid_from) for 90 days, within valid_to and the employment. */
function generationSpan(rotation: Rotation, employee: AttendanceEmployee, now: Date): { from: string; to: string } | undefined {
  const today = todayIn(employee.timezone, now);
  const from = rotation.valid_from > today ? rotation.valid_from : today;
  let to = addDays(today, DAYS_AHEAD - 1);
  if (rotation.valid_to !== null && rotation.valid_to < to) to = rotation.valid_to;
  if (employee.termination_date !== null && employee.termination_date < to) to = employee.termination_date;
  return from <= to ? { from, to } : undefined;
}

/** Creates the shifts of the dates not handled yet; the number created. Dates in a locked period wait. */
export async function generateRotation(
  trx: Knex.Transaction,
  rotation: Rotation,
  employee: AttendanceEmployee,
  context: ShiftChangeContext,
): Promise<number> {
  const span = generationSpan(rotation, employee, context.now);
  if (!span) return 0;
  const handled = await handledDates(trx, rotation.id, span.from, span.to);
  const dates: string[] = [];
  for (let date = span.from; date <= span.to; date = addDays(date, 1)) if (!handled.has(date)) dates.push(date);
  if (dates.length === 0) return 0;
  const locks = await readPeriodStateOf(trx, employee.id, dates);
  const types = new Map<number, ShiftType | undefined>();
  for (const id of new Set(rotation.cycle)) if (id !== null) types.set(id, await findShiftType(trx, id));
  const created: number[] = [];
  const at = toSqlDateTime(context.now);
  for (const date of dates) {
    if (lockedPeriodOf(locks, date)) continue;
    await markHandled(trx, rotation.id, date);
    const typeId = rotation.cycle[cycleIndexOf(rotation, date)] ?? null;
    const type = typeId === null ? undefined : types.get(typeId);
    if (!type) continue;
    const local = localTimesOn(date, type.start_time, type.end_time);
    const span = {
      start_utc: toSqlDateTimeSeconds(instantOfLocal(employee.timezone, local.start_local)),
      end_utc: toSqlDateTimeSeconds(instantOfLocal(employee.timezone, local.end_local)),
    };
    const overlaps = rotation.publish && (await publishedOverlapping(trx, employee.id, span, [])).length > 0;
    const { id: _id, name: _name, start_time: _start, end_time: _end, ...rules } = type;
    created.push(
      await insertShift(trx, {
        ...rules,
        ...local,
        ...span,
        date,
        timezone: employee.timezone,
        employee_id: employee.id,
        shift_type_id: Number(type.id),
        status: rotation.publish && !overlaps ? 'published' : 'draft',
        rotation_id: rotation.id,
        edited: false,
        version: 1,
        notes: null,
        created_at: at,
        updated_at: at,
      }),
    );
  }
  const shifts = await findShiftsByIds(trx, created);
  await recordShiftChanges(
    trx,
    shifts.map((after) => ({ action: 'shift.generate', before: undefined, after, fields: [] })),
    context,
  );
  return created.length;
}

/**
 * Removes the rotation's shifts dated after the employee's today that nobody edited and no locked
 * period holds, and forgets those dates, so that a changed rotation generates them again.
 */
export async function removeFutureShifts(
  trx: Knex.Transaction,
  rotation: Rotation,
  employee: AttendanceEmployee,
  context: ShiftChangeContext,
): Promise<number> {
  const today = todayIn(employee.timezone, context.now);
  const rows = (await trx('shifts').where({ rotation_id: rotation.id }).where('date', '>', today).select('id')) as Array<{ id: number }>;
  const shifts = await findShiftsByIds(
    trx,
    rows.map((row) => Number(row.id)),
  );
  const handled = [...(await handledDates(trx, rotation.id, addDays(today, 1), '9999-12-31'))];
  const locks = await readPeriodStateOf(trx, employee.id, handled);
  const removable = shifts.filter((shift) => !shift.edited && !lockedPeriodOf(locks, shift.date));
  for (const shift of removable) {
    await recordShiftDeletion(trx, shift, context.now);
    await deleteShift(trx, shift.id);
  }
  // Every later date is generated again but those whose shift stays (edited by hand) or that a
  // locked period holds.
  const kept = new Set(shifts.filter((shift) => !removable.includes(shift)).map((shift) => shift.date));
  await forgetHandled(
    trx,
    rotation.id,
    handled.filter((date) => !kept.has(date) && !lockedPeriodOf(locks, date)),
  );
  await recordShiftChanges(
    trx,
    removable.map((shift) => ({ action: 'shift.delete', before: shift, after: { ...shift, status: 'cancelled' as const }, fields: [] })),
    context,
  );
  return removable.length;
}
