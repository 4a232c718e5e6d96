import type { Caller } from '../caller';
import { canSeeEmployee, type EmployeeRelation, isDirectReport, isSelf } from '../employees/access';
import { ForbiddenError, NotFoundError } from '../errors';

// Who may do what with whose attendance (docs/decisions.md, "Employees and roles"). Reading and punching follow who sees the
// employee; corrections are for admins and for a manager on a direct report's records, never on
// their own (docs/decisions.md); deleting is for admins.

type AttendanceAction = 'read' | 'punch' | 'correct' | 'delete';

function mayOnAttendance(caller: Caller, employee: EmployeeRelation, action: AttendanceAction): boolean {
  if (caller.role === 'admin') return true;
  switch (action) {
    case 'read':
    case 'punch':
      return isSelf(caller, employee) || (caller.role === 'manager' && isDirectReport(caller, employee));
    case 'correct':
      return caller.role === 'manager' && isDirectReport(caller, employee);
    case 'delete':
      return false;
  }
}

const REFUSALS: Record<AttendanceAction, string> = {
  read: "You may not read this employee's attendance",
  punch: 'You may punch in and out only for yourself (managers: also for their direct reports)',
  correct: "Only admins, and managers for their direct reports' records, may create or correct attendance records",
  delete: 'Only admins may delete attendance records',
};

/**
 * 404 when the caller may not see the employee, exactly as for a missing one (no existence
 * oracle); 403 when they may see them but not do this.
 */
export function assertAttendanceAccess(caller: Caller, employee: EmployeeRelation, action: AttendanceAction, notFound: string): void {
  if (!canSeeEmployee(caller, employee)) throw new NotFoundError({ detail: notFound });
  if (!mayOnAttendance(caller, employee, action)) throw new ForbiddenError({ detail: REFUSALS[action] });
}
