import type { Caller } from '../caller';
import { canSeeEmployee, type EmployeeRelation, isDirectReport, isSelf } from '../employees/access';
import { ForbiddenError, NotFoundError } from '../errors';

// Who may do what with whose leave (CONTRACT 6.8, docs/leave.md "Roles"). Reading follows the
// visibility of attendance; requesting is for oneself, managers for direct reports too, admins for
// anyone; deciding is for admins and for a manager on a direct report's leave, never their own;
// cancelling is for the employee while pending and for those who may decide at any time; deleting
// is for admins.

type LeaveAction = 'read' | 'request' | 'decide' | 'cancel' | 'delete';

function mayOnLeave(caller: Caller, employee: EmployeeRelation, action: LeaveAction, pending: boolean): boolean {
  if (caller.role === 'admin') return true;
  const manager = caller.role === 'manager' && isDirectReport(caller, employee);
  switch (action) {
    case 'read':
    case 'request':
      return isSelf(caller, employee) || manager;
    case 'decide':
      return manager;
    case 'cancel':
      return manager || (isSelf(caller, employee) && pending);
    case 'delete':
      return false;
  }
}

const REFUSALS: Record<LeaveAction, string> = {
  read: "You may not read this employee's leave",
  request: 'You may request leave for yourself (managers: also for their direct reports)',
  decide: "Only admins, and managers for their direct reports' leave, may approve or reject it; never one's own",
  cancel: 'You may cancel your own leave while it is pending; approvers and admins at any time',
  delete: 'Only admins may delete leave',
};

/** 404 when the caller may not see the employee (as for a missing one); 403 when they may see but not do this. */
export function assertLeaveAccess(
  caller: Caller,
  employee: EmployeeRelation,
  action: LeaveAction,
  notFound: string,
  pending = false,
): void {
  if (!canSeeEmployee(caller, employee)) throw new NotFoundError({ detail: notFound });
  if (!mayOnLeave(caller, employee, action, pending)) throw new ForbiddenError({ detail: REFUSALS[action] });
}
