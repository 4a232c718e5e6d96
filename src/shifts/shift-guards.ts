import type { Knex } from 'knex';
import type { Caller } from '../caller';
import { writeAudits } from '../audit/repository';
import { lockAttendanceEmployee, type AttendanceEmployee } from '../attendance/repository';
import { ConflictError } from '../errors';
import { firstLockedDate, periodLockedError, readPeriodStateOf } from '../period-guard/guard';
import { type OutboxEvent, recordEvents } from '../webhooks/outbox';
import { type Shift, toShiftResponse } from './shift-model';
import { publishedOverlapping } from './shift-repository';

// What every shift write shares: the employee locks that serialise one employee's shift writes
// (as punches do), the pay-period lock, the overlap rule, the audit rows and the events.

export interface ShiftWriteContext {
  caller: Caller;
  now: Date;
  requestId: string;
  defaultTimezone: string;
}

/** Who writes, for audit rows: no caller for the rotation sweep. */
export interface ShiftChangeContext {
  caller: Caller | undefined;
  now: Date;
  requestId: string | undefined;
}

/**
 * Locks the rows of these employees, in id order (two writes locking the same employees never
 * wait on each other in a circle), as the FIRST statements of the transaction: MariaDB's snapshot
 * is then taken after the locks are granted, so the overlap check sees every shift the previous
 * holder committed. Missing employees are left out of the map.
 */
export async function lockEmployees(trx: Knex.Transaction, ids: Iterable<number>): Promise<Map<number, AttendanceEmployee>> {
  const locked = new Map<number, AttendanceEmployee>();
  for (const id of [...new Set(ids)].sort((a, b) => a - b)) {
    const employee = await lockAttendanceEmployee(trx, id);
    if (employee) locked.set(id, employee);
  }
  return locked;
}

/** 409 period_locked when one of the dates lies in a locked pay period (employee null: an open shift, locks only). */
export async function assertDatesUnlocked(trx: Knex.Transaction, employeeId: number | null, dates: readonly string[]): Promise<void> {
  const state = await readPeriodStateOf(trx, employeeId ?? 0, dates);
  const locked = firstLockedDate(state, dates);
  if (locked) throw periodLockedError(locked);
}

export function shiftOverlapError(detail: string): ConflictError {
  return new ConflictError({ code: 'shift_overlap', title: 'Shifts overlap', detail });
}

/**
 * 409 shift_overlap when a published shift of the employee's would overlap [start_utc, end_utc):
 * one stored (but `exceptIds`) or one of `alsoPublishing` (the other shifts of the same write).
 */
export async function assertNoPublishedOverlap(
  trx: Knex.Transaction,
  employeeId: number,
  span: { start_utc: string; end_utc: string },
  exceptIds: readonly number[],
  alsoPublishing: ReadonlyArray<{ start_utc: string; end_utc: string }> = [],
): Promise<void> {
  const inWrite = alsoPublishing.some((other) => other.start_utc < span.end_utc && other.end_utc > span.start_utc);
  const stored = inWrite ? [] : await publishedOverlapping(trx, employeeId, span, exceptIds);
  if (inWrite || stored.length > 0) {
    const which = inWrite ? 'another shift of this request' : `published shift ${stored.join(', ')}`;
    throw shiftOverlapError(`The employee's published shifts may not overlap: this one overlaps ${which}`);
  }
}

type ShiftEventType = 'shift.published' | 'shift.updated' | 'shift.cancelled';

/** The event a change from `before` to `after` sends, if any: subscribers hear of published shifts only. */
export function shiftEventOf(before: Shift | undefined, after: Shift): ShiftEventType | undefined {
  if (after.status === 'published' && before?.status !== 'published') return 'shift.published';
  if (before?.status === 'published') return after.status === 'cancelled' ? 'shift.cancelled' : 'shift.updated';
  return undefined;
}

export function shiftEvent(type: ShiftEventType, shift: Shift, occurredAt: Date, changedFields?: readonly string[]): OutboxEvent {
  return { type, resourceId: shift.id, occurredAt, changedFields, data: () => toShiftResponse(shift) };
}

/** The audit rows and events of a write that changed these shifts, in its transaction. */
export async function recordShiftChanges(
  trx: Knex.Transaction,
  changes: ReadonlyArray<{ action: string; before: Shift | undefined; after: Shift; fields: string[] }>,
  context: ShiftChangeContext,
): Promise<void> {
  await writeAudits(
    trx,
    changes.map(({ action, after, fields }) => ({
      action,
      entityType: 'shift',
      entityId: after.id,
      employeeId: after.employee_id ?? undefined,
      fields,
    })),
    context,
  );
  const events: OutboxEvent[] = [];
  for (const { before, after, fields } of changes) {
    const type = shiftEventOf(before, after);
    if (type) events.push(shiftEvent(type, after, context.now, type === 'shift.updated' ? fields : undefined));
  }
  await recordEvents(trx, events);
}

/** The fields whose read values differ between two versions of a shift. */
export function changedShiftFields(before: Shift, after: Shift): string[] {
  const from = toShiftResponse(before);
  const to = toShiftResponse(after);
  return Object.keys(to).filter((field) => field !== 'updated_at' && JSON.stringify(from[field]) !== JSON.stringify(to[field]));
}
