import type { Knex } from 'knex';
import type { AttendanceEmployee } from '../attendance/repository';
import { toSqlDateTime, toSqlDateTimeSeconds } from '../db/sql-time';
import { canSeeEmployee } from '../employees/access';
import { ConflictError, type FieldError, ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { assertIfMatch, type IfMatch } from '../http/conditional';
import { assertMayChangeShift, assertMaySchedule, mayScheduleFor, SCHEDULE_REFUSAL } from './shift-access';
import { parseShiftBody, resolveChangedShift, resolveNewShift, type ResolvedTimes, type ShiftValues } from './shift-fields';
import {
  assertDatesUnlocked,
  assertNoPublishedOverlap,
  changedShiftFields,
  lockEmployees,
  recordShiftChanges,
  type ShiftWriteContext,
} from './shift-guards';
import { type Shift, type ShiftColumns, shiftJson } from './shift-model';
import { deleteShift, findShift, findShiftsByIds, insertShift, recordShiftDeletion, updateShift } from './shift-repository';
import type { ShiftType } from './type-fields';
import { findShiftType } from './type-repository';

// POST, PUT/PATCH, DELETE /shifts and POST /shifts/{id}/assign (CONTRACT 6.7). Each locks the
// employees it touches first, then checks (access, values, locked periods, overlaps) and only then
// writes: a refused request writes nothing, a batch included.

/** The most shifts one POST may create. */
export const MAX_BATCH = 500;

/** The employee a write names, checked: 422 when missing or invisible (the same answer), 403 when visible but not the caller's to schedule. */
function scheduledEmployee(
  context: ShiftWriteContext,
  locked: Map<number, AttendanceEmployee>,
  id: number | null,
  field: string,
  errors: FieldError[],
): AttendanceEmployee | null | undefined {
  if (id === null) {
    if (!mayScheduleFor(context.caller, null)) throw new ForbiddenError({ detail: SCHEDULE_REFUSAL });
    return null;
  }
  const employee = locked.get(id);
  if (!employee || !canSeeEmployee(context.caller, employee)) {
    errors.push({ field, message: 'does not exist, or is not an employee you schedule' });
    return undefined;
  }
  if (!mayScheduleFor(context.caller, employee)) throw new ForbiddenError({ detail: SCHEDULE_REFUSAL });
  return employee;
}

async function shiftTypesOf(trx: Knex.Transaction, ids: Iterable<number>): Promise<Map<number, ShiftType>> {
  const types = new Map<number, ShiftType>();
  for (const id of new Set(ids)) {
    const type = await findShiftType(trx, id);
    if (type) types.set(id, type);
  }
  return types;
}

function terminatedError(employee: AttendanceEmployee, date: string, field: string): FieldError | undefined {
  if (employee.termination_date !== null && date > employee.termination_date)
    return { field, message: `is terminated on ${employee.termination_date}: no shift after that date` };
  return undefined;
}

function columnsOf(
  times: ResolvedTimes,
): Omit<
  ShiftColumns,
  'employee_id' | 'shift_type_id' | 'status' | 'rotation_id' | 'edited' | 'version' | 'notes' | 'created_at' | 'updated_at'
> {
  const { start, end, ...rest } = times;
  return { ...rest, start_utc: toSqlDateTimeSeconds(start), end_utc: toSqlDateTimeSeconds(end) };
}

/** POST /shifts: one shift (`batch` false) or `{"shifts": [...]}` of up to 500, all or nothing. */
export async function createShifts(
  trx: Knex.Transaction,
  bodies: ReadonlyArray<Record<string, unknown>>,
  context: ShiftWriteContext,
  options: { batch: boolean; rotationId?: number },
): Promise<Shift[]> {
  assertMaySchedule(context.caller);
  const prefixOf = (index: number) => (options.batch ? `shifts.${index}.` : '');
  const errors: FieldError[] = [];
  const parsed = bodies.map((body, index) => parseShiftBody(body, { pathId: undefined, prefix: prefixOf(index) }));
  for (const { errors: found } of parsed) errors.push(...found);
  if (errors.length > 0) throw new ValidationError(errors);
  const values: ShiftValues[] = parsed.map((one) => one.values);

  const locked = await lockEmployees(
    trx,
    values.flatMap((one) => (typeof one.employee === 'number' ? [one.employee] : [])),
  );
  const types = await shiftTypesOf(
    trx,
    values.flatMap((one) => (typeof one.shift_type === 'number' ? [one.shift_type] : [])),
  );
  const rows: ShiftColumns[] = [];
  const at = toSqlDateTime(context.now);
  values.forEach((one, index) => {
    const prefix = prefixOf(index);
    const employee = scheduledEmployee(context, locked, one.employee ?? null, `${prefix}employee`, errors);
    const type = typeof one.shift_type === 'number' ? types.get(one.shift_type) : undefined;
    if (typeof one.shift_type === 'number' && !type)
      errors.push({ field: `${prefix}shift_type`, message: 'does not exist: must be the id of a shift type' });
    if (employee === undefined) return;
    const times = resolveNewShift(one, { type, timezone: employee?.timezone ?? context.defaultTimezone, prefix }, errors);
    if (!times) return;
    const terminated = employee && terminatedError(employee, times.date, `${prefix}employee`);
    if (terminated) errors.push(terminated);
    rows.push({
      ...columnsOf(times),
      employee_id: employee?.id ?? null,
      shift_type_id: type ? Number(type.id) : null,
      status: one.status ?? 'draft',
      rotation_id: options.rotationId ?? null,
      edited: false,
      version: 1,
      notes: one.notes ?? null,
      created_at: at,
      updated_at: at,
    });
  });
  if (errors.length > 0) throw new ValidationError(errors);

  for (const row of rows) await assertDatesUnlocked(trx, row.employee_id, [row.date]);
  for (const [index, row] of rows.entries()) {
    if (row.status !== 'published' || row.employee_id === null) continue;
    const earlier = rows.slice(0, index).filter((other) => other.status === 'published' && other.employee_id === row.employee_id);
    await assertNoPublishedOverlap(trx, row.employee_id, row, [], earlier);
  }
  const ids: number[] = [];
  for (const row of rows) ids.push(await insertShift(trx, row));
  const created = await findShiftsByIds(trx, ids);
  await recordShiftChanges(
    trx,
    created.map((after) => ({ action: 'shift.create', before: undefined, after, fields: Object.keys(rows[0] ?? {}) })),
    context,
  );
  return created;
}

/** A shift for a change, under its employees' locks; 404/403 by access, 412 by If-Match. */
async function lockedShift(
  trx: Knex.Transaction,
  id: number,
  knownEmployeeId: number | null | 'open',
  context: ShiftWriteContext,
  ifMatch: IfMatch | undefined,
  alsoLock: number | null | undefined,
): Promise<{ shift: Shift; locked: Map<number, AttendanceEmployee> }> {
  const locked = await lockEmployees(
    trx,
    [knownEmployeeId, alsoLock].filter((one): one is number => typeof one === 'number'),
  );
  const shift = await findShift(trx, id, { forUpdate: true });
  if (!shift) throw new NotFoundError({ detail: 'No such shift' });
  assertMayChangeShift(context.caller, shift);
  if (knownEmployeeId === 'open') {
    if (shift.employee_id !== null)
      throw new ConflictError({ code: 'shift_not_open', detail: 'The shift has an employee already: only open shifts are assigned' });
  } else if (shift.employee_id !== knownEmployeeId) {
    // Its employee changed between the read before the transaction and the lock: the client retries.
    throw new ConflictError({ detail: 'The shift changed meanwhile; read it again and retry' });
  }
  assertIfMatch(ifMatch, () => shiftJson(shift));
  return { shift, locked };
}

/** PUT/PATCH /shifts/{id}: the fields sent over the current ones. */
export async function changeShift(
  trx: Knex.Transaction,
  id: number,
  knownEmployeeId: number | null,
  body: Record<string, unknown>,
  context: ShiftWriteContext,
  ifMatch: IfMatch | undefined,
): Promise<Shift> {
  const { values, errors } = parseShiftBody(body, { pathId: id, prefix: '' });
  if (errors.length > 0) throw new ValidationError(errors);
  const { shift, locked } = await lockedShift(trx, id, knownEmployeeId, context, ifMatch, values.employee);
  let employee: AttendanceEmployee | null | undefined = shift.employee_id === null ? null : locked.get(shift.employee_id);
  if (values.employee !== undefined && values.employee !== shift.employee_id) {
    employee = scheduledEmployee(context, locked, values.employee, 'employee', errors);
  }
  let shiftTypeId = shift.shift_type_id;
  if (values.shift_type !== undefined) {
    if (values.shift_type !== null && !(await findShiftType(trx, values.shift_type)))
      errors.push({ field: 'shift_type', message: 'does not exist: must be the id of a shift type' });
    shiftTypeId = values.shift_type;
  }
  const times = resolveChangedShift(values, shift, errors);
  const terminated = employee && times && terminatedError(employee, times.date, 'employee');
  if (terminated) errors.push(terminated);
  if (errors.length > 0 || !times || employee === undefined) throw new ValidationError(errors);

  const columns: Partial<ShiftColumns> = {
    ...columnsOf(times),
    employee_id: employee?.id ?? null,
    shift_type_id: shiftTypeId,
    status: values.status ?? shift.status,
    notes: values.notes !== undefined ? values.notes : shift.notes,
    edited: true,
    version: shift.version + 1,
    updated_at: toSqlDateTime(context.now),
  };
  await assertDatesUnlocked(trx, shift.employee_id, [shift.date, times.date]);
  if (columns.employee_id !== shift.employee_id) await assertDatesUnlocked(trx, columns.employee_id ?? null, [times.date]);
  if (columns.status === 'published' && columns.employee_id != null)
    await assertNoPublishedOverlap(trx, columns.employee_id, { start_utc: columns.start_utc!, end_utc: columns.end_utc! }, [id]);
  await updateShift(trx, id, columns);
  const after = (await findShift(trx, id))!;
  await recordShiftChanges(trx, [{ action: 'shift.update', before: shift, after, fields: changedShiftFields(shift, after) }], context);
  return after;
}

/** DELETE /shifts/{id}: a tombstone for the deletion feed; a published shift's subscribers hear shift.cancelled. */
export async function removeShift(
  trx: Knex.Transaction,
  id: number,
  knownEmployeeId: number | null,
  context: ShiftWriteContext,
  ifMatch: IfMatch | undefined,
): Promise<{ id: string }> {
  const { shift } = await lockedShift(trx, id, knownEmployeeId, context, ifMatch, undefined);
  await assertDatesUnlocked(trx, shift.employee_id, [shift.date]);
  await recordShiftDeletion(trx, shift, context.now);
  await deleteShift(trx, id);
  await recordShiftChanges(
    trx,
    [{ action: 'shift.delete', before: shift, after: { ...shift, status: 'cancelled', version: shift.version + 1 }, fields: [] }],
    context,
  );
  return { id: String(id) };
}

/** POST /shifts/{id}/assign {"employee"}: an open shift (admins) gets its employee; 409 shift_overlap as any write. */
export async function assignShift(
  trx: Knex.Transaction,
  id: number,
  body: Record<string, unknown>,
  context: ShiftWriteContext,
  ifMatch: IfMatch | undefined,
): Promise<Shift> {
  const { values, errors } = parseShiftBody(body, { pathId: id, prefix: '' });
  const unknown = Object.keys(body).filter((field) => field !== 'employee' && field !== 'id');
  errors.push(
    ...unknown
      .filter((field) => !errors.some((error) => error.field === field))
      .map((field) => ({ field, message: 'is not a known field' })),
  );
  if (typeof values.employee !== 'number' && !errors.some((error) => error.field === 'employee'))
    errors.push({ field: 'employee', message: 'is required: the id of an employee' });
  if (errors.length > 0) throw new ValidationError(errors);
  const { shift, locked } = await lockedShift(trx, id, 'open', context, ifMatch, values.employee);
  const employee = scheduledEmployee(context, locked, values.employee!, 'employee', errors);
  const terminated = employee && terminatedError(employee, shift.date, 'employee');
  if (terminated) errors.push(terminated);
  if (errors.length > 0 || !employee) throw new ValidationError(errors);
  await assertDatesUnlocked(trx, employee.id, [shift.date]);
  if (shift.status === 'published') await assertNoPublishedOverlap(trx, employee.id, shift, [id]);
  await updateShift(trx, id, {
    employee_id: employee.id,
    edited: true,
    version: shift.version + 1,
    updated_at: toSqlDateTime(context.now),
  });
  const after = (await findShift(trx, id))!;
  await recordShiftChanges(trx, [{ action: 'shift.assign', before: shift, after, fields: ['employee'] }], context);
  return after;
}
