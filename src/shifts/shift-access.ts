import type { Caller } from '../caller';
import { isDirectReport, isSelf } from '../employees/access';
import { ForbiddenError, NotFoundError } from '../errors';

// Who may do what with shifts (CONTRACT 6.7): admins everything; managers create, change, publish
// and read their direct reports' shifts, and read their own published ones; employees read their
// own published shifts. Open shifts (no employee): admins write, everyone reads published ones.
// A shift the caller may not read answers 404, as a missing one (no existence oracle).

/** The part of a shift access looks at: its employee (null: open), their supervisor, its status. */
export interface ShiftRelation {
  employee_id: number | null;
  supervisor_id: number | null;
  status: string;
}

const relationOf = (shift: ShiftRelation) => ({ id: shift.employee_id ?? 0, supervisor_id: shift.supervisor_id });

export function mayReadShift(caller: Caller, shift: ShiftRelation): boolean {
  if (caller.role === 'admin') return true;
  if (caller.role === 'manager' && shift.employee_id !== null && isDirectReport(caller, relationOf(shift))) return true;
  if (shift.status !== 'published') return false;
  return shift.employee_id === null || isSelf(caller, relationOf(shift));
}

/** Whether the caller may write shifts of this employee (null: open shifts). */
export function mayScheduleFor(caller: Caller, employee: { id: number; supervisor_id: number | null } | null): boolean {
  if (caller.role === 'admin') return true;
  if (employee === null || caller.role !== 'manager') return false;
  return isDirectReport(caller, employee);
}

export const SCHEDULE_REFUSAL =
  'Only admins, and managers for their direct reports, may write shifts; open shifts are for admins, and managers read their own shifts only';

/** 404 for a shift the caller may not read; 403 for one they read but may not change. */
export function assertMayChangeShift(caller: Caller, shift: ShiftRelation): void {
  if (!mayReadShift(caller, shift)) throw new NotFoundError({ detail: 'No such shift' });
  const employee = shift.employee_id === null ? null : { id: shift.employee_id, supervisor_id: shift.supervisor_id };
  if (!mayScheduleFor(caller, employee)) throw new ForbiddenError({ detail: SCHEDULE_REFUSAL });
}

/** Roles that never write shifts: 403 before anything is read. */
export function assertMaySchedule(caller: Caller): void {
  if (caller.role === 'employee') throw new ForbiddenError({ detail: SCHEDULE_REFUSAL });
}
