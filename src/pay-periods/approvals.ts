import { lockAttendanceEmployee } from '../attendance/repository';
import { writeAudit } from '../audit/repository';
import type { Caller } from '../caller';
import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import { canSeeEmployee, isDirectReport, isSelf } from '../employees/access';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors';
import { lastReadingOn } from '../time';
import { approvedNumbersJson, type ReopenReason } from '../period-guard/approved-numbers';
import { recordEvents } from '../webhooks/outbox';
import { resolvePeriod, toLockedPeriod, type PayPeriod } from './periods';
import { readPeriodGroup } from './settings';
import { findSheet, findSheetEmployee, type Sheet, type SheetEmployee, sheetResponse } from './timesheets';

interface ApprovalContext {
  caller: Caller;
  now: Date;
  requestId: string;
}

/** The employee of a timesheet path, when the caller may see it; else 404 exactly as for a missing one. */
export async function visibleSheetEmployee(db: Db, caller: Caller, id: number): Promise<SheetEmployee> {
  const employee = await findSheetEmployee(db, id);
  if (!employee || !canSeeEmployee(caller, employee)) throw new NotFoundError({ detail: 'No such employee' });
  return employee;
}

/** 409 period_locked: approvals of a locked period are frozen with it. */
function refuseLocked(period: PayPeriod): void {
  if (period.status === 'locked')
    throw new ConflictError({
      code: 'period_locked',
      detail: `The pay period ${period.start} to ${period.end} is locked; unlock it first`,
    });
}

/**
 * Approves an employee's timesheet (docs/pay-periods.md, "Approving"): admins, and managers for
 * their direct reports, never their own. The employee's row is locked first, as every attendance
 * write does, so no punch of theirs slips in between the check for open records and the approval.
 * Approving an approved timesheet changes nothing and answers it again.
 */
export async function approveTimesheet(
  trx: Db,
  employeeId: number,
  start: string,
  context: ApprovalContext,
): Promise<Record<string, unknown>> {
  const { caller } = context;
  const employee = await lockedSheetEmployee(trx, caller, employeeId);
  if (caller.role !== 'admin' && !(caller.role === 'manager' && isDirectReport(caller, employee) && !isSelf(caller, employee)))
    throw new ForbiddenError({ detail: 'Only admins, and managers for their direct reports (never their own), may approve timesheets' });
  const { settings, period } = await unlockedPeriod(trx, start, employee.group_id);
  const open = (await trx('attendance')
    .where('employee_id', employeeId)
    .whereNull('out_time_utc')
    // A missed punch-out is nobody's open record: a lock passed it over, it counts no hours.
    .where('missed_punch_out', false)
    .where('in_time_local', '>=', `${period.start} 00:00:00`)
    .where('in_time_local', '<=', lastReadingOn(period.end))
    .first('id')) as { id: number } | undefined;
  if (open)
    throw new ConflictError({
      code: 'open_records',
      detail: `The employee has an open record in the period (attendance ${String(open.id)}); punch out or correct it first`,
    });
  const key = { employee_id: employeeId, group_id: employee.group_id, period_start: period.start };
  const { status: before, numbered } = await approvalStatusOf(trx, key);
  if (before === 'approved' && !numbered) {
    // Approved before approvals kept numbers (migration 0028): approving again keeps today's, nothing else changes.
    await trx('timesheet_approvals')
      .where(key)
      .update({ approved_days: approvedNumbersJson((await findSheet(trx, employee, period, settings)).days) });
  }
  if (before !== 'approved') {
    // The numbers approved (CONTRACT 6.5, "Approval is of numbers"): the timesheet stays approved while its numbers equal them.
    const approvedDays = approvedNumbersJson((await findSheet(trx, employee, period, settings)).days);
    const now = toSqlDateTime(context.now);
    await trx('timesheet_approvals')
      .insert({
        ...key,
        period_end: period.end,
        status: 'approved',
        approved_at: now,
        approved_by: caller.userId,
        approved_by_employee: caller.employeeId,
        approved_by_name: caller.username,
        approved_days: approvedDays,
        reopened_reason: null,
        updated_at: now,
      })
      .onConflict(['employee_id', 'group_id', 'period_start'])
      .merge([
        'period_end',
        'status',
        'approved_at',
        'approved_by',
        'approved_by_employee',
        'approved_by_name',
        'approved_days',
        'reopened_reason',
        'updated_at',
      ]);
  }
  const sheet = await findSheet(trx, employee, period, settings);
  if (before !== 'approved') await recordChange(trx, sheet, period, 'approved', context);
  return sheetResponse(sheet, period, true);
}

/**
 * Reopens an approved timesheet: admins, and the manager who approved it. Reopening an open one
 * changes nothing and answers it again.
 */
export async function reopenTimesheet(
  trx: Db,
  employeeId: number,
  start: string,
  context: ApprovalContext,
): Promise<Record<string, unknown>> {
  const { caller } = context;
  const employee = await lockedSheetEmployee(trx, caller, employeeId);
  if (caller.role === 'employee')
    throw new ForbiddenError({ detail: 'Only admins, and the manager who approved it, may reopen a timesheet' });
  const { settings, period } = await unlockedPeriod(trx, start, employee.group_id);
  const key = { employee_id: employeeId, group_id: employee.group_id, period_start: period.start };
  const approval = (await trx('timesheet_approvals').where(key).first('status', 'approved_by')) as
    { status: string; approved_by: number | string | null } | undefined;
  const approved = approval?.status === 'approved';
  if (caller.role !== 'admin' && !(approved && Number(approval.approved_by) === caller.userId))
    throw new ForbiddenError({ detail: 'Only admins, and the manager who approved it, may reopen a timesheet' });
  if (approved) {
    await trx('timesheet_approvals')
      .where(key)
      .update({ status: 'open', reopened_reason: 'reopened' satisfies ReopenReason, updated_at: toSqlDateTime(context.now) });
  }
  const sheet = await findSheet(trx, employee, period, settings);
  if (approved) await recordChange(trx, sheet, period, 'open', context);
  return sheetResponse(sheet, period, true);
}

/**
 * The employee of a timesheet write, their row locked first as every attendance write locks it,
 * so that no punch of theirs slips in between the checks and the write; 404 as for a missing one.
 */
async function lockedSheetEmployee(trx: Db, caller: Caller, employeeId: number): Promise<SheetEmployee> {
  const locked = await lockAttendanceEmployee(trx, employeeId);
  const employee = await findSheetEmployee(trx, employeeId);
  if (!locked || !employee || !canSeeEmployee(caller, employee)) throw new NotFoundError({ detail: 'No such employee' });
  return employee;
}

/**
 * The pay group's settings and its period starting on `start`: 409 period_locked when it, or a
 * lock of the group meeting its dates, is locked.
 */
async function unlockedPeriod(trx: Db, start: string, groupId: number) {
  const { settings } = await readPeriodGroup(trx, groupId);
  const period = await resolvePeriod(trx, settings, start, groupId);
  refuseLocked(period);
  await refuseOverlappingLock(trx, period, groupId);
  return { settings, period };
}

/** A period of today's layout whose dates meet a lock of an earlier layout is frozen too. */
async function refuseOverlappingLock(trx: Db, period: PayPeriod, groupId: number): Promise<void> {
  // A lock still being taken (`locking`) refuses too: its numbers are being frozen.
  const row = (await trx('pay_period_locks')
    .where('group_id', groupId)
    .where('period_start', '<=', period.end)
    .andWhere('period_end', '>=', period.start)
    .first('period_start', 'period_end', 'locked_at', 'locked_by_name')) as Parameters<typeof toLockedPeriod>[0] | undefined;
  if (row) refuseLocked(toLockedPeriod(row));
}

async function approvalStatusOf(
  trx: Db,
  key: { employee_id: number; group_id: number; period_start: string },
): Promise<{ status?: string; numbered: boolean }> {
  const row = (await trx('timesheet_approvals').where(key).first('status', 'approved_days')) as
    { status: string; approved_days: string | null } | undefined;
  return { status: row?.status, numbered: row?.approved_days != null };
}

/** The audit row and the event of an approval or a reopening. */
async function recordChange(
  trx: Db,
  sheet: Sheet,
  period: PayPeriod,
  status: 'approved' | 'open',
  context: ApprovalContext,
): Promise<void> {
  const employeeId = sheet.employee.id;
  await writeAudit(
    trx,
    {
      action: status === 'approved' ? 'timesheet.approve' : 'timesheet.reopen',
      entityType: 'timesheet',
      entityId: employeeId,
      employeeId,
      fields: ['status'],
      changes: {
        status: { from: status === 'approved' ? 'open' : 'approved', to: status },
        period_start: { from: period.start, to: period.start },
      },
    },
    context,
  );
  await recordEvents(trx, [
    {
      type: status === 'approved' ? 'timesheet.approved' : 'timesheet.reopened',
      resourceId: employeeId,
      occurredAt: context.now,
      data: () =>
        status === 'approved'
          ? {
              employee: String(employeeId),
              period_start: period.start,
              period_end: period.end,
              status,
              approved_at: sheet.approval.approvedAt,
              approved_by: sheet.approval.approvedBy,
            }
          : { employee: String(employeeId), period_start: period.start, period_end: period.end, status, reason: 'reopened' },
    },
  ]);
}
