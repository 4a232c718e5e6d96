import type { Knex } from 'knex';
import { writeAudit } from '../audit/repository';
import { asUniqueViolation } from '../db/constraint-errors';
import { toSqlDateTime } from '../db/sql-time';
import { ConflictError, type FieldError, ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { assertIfMatch, type IfMatch } from '../http/conditional';
import { parseBody } from '../http/parse';
import { defaultLeaveDates, fullDayHours } from '../leave-rules/hours';
import { guardAttendanceWrite } from '../period-guard/guard';
import { daysBetween } from '../time';
import { recordEvents } from '../webhooks/outbox';
import { assertLeaveAccess } from './access';
import { readPlannedHours } from './days';
import { holidaysOfCountries } from './holidays-repository';
import type { WriteContext } from './leave-types';
import { toLeaveResponse, leaveJson } from './output';
import {
  deleteLeave,
  findLeave,
  findLeaveType,
  insertLeave,
  type Leave,
  type LeaveEmployee,
  type LeaveStatus,
  LIVE_STATUSES,
  lockLeaveEmployee,
  type StoredLeaveDay,
  replaceLeaveDays,
  updateLeaveStatus,
} from './repository';
import { leaveCreate, type LeaveCreate, leaveReplace } from './schemas';
import { readLeaveSettings } from './settings';

// The writes of /leaves (CONTRACT 6.8, docs/leave.md): each locks the employee's row first, checks
// access and rules, refuses dates of a locked pay period, writes, audits and records its event in
// the one transaction sendWrite opens. The database keeps two live leaves of one employee off a
// date (leave_days' unique key): the insert's violation is the 409 leave_overlap.

/** The longest leave: a range of at most a year. */
const MAX_RANGE_DAYS = 365;

const overlapError = () =>
  new ConflictError({
    code: 'leave_overlap',
    title: 'Leave overlaps another',
    detail: 'Another pending or approved leave of this employee already holds one of these dates',
  });

type LeaveEventType = 'leave.requested' | 'leave.approved' | 'leave.rejected' | 'leave.cancelled';

async function recordLeaveEvent(trx: Knex.Transaction, type: LeaveEventType, leave: Leave, now: Date): Promise<void> {
  await recordEvents(trx, [{ type, resourceId: leave.id, occurredAt: now, data: () => toLeaveResponse(leave) }]);
}

/** The days a leave takes: those the body lists, checked, or full on each workday of the range. */
async function leaveDaysOf(
  trx: Knex.Transaction,
  values: Pick<LeaveCreate, 'start_date' | 'end_date' | 'days'>,
  employee: LeaveEmployee,
  includeHolidays: boolean,
  errors: FieldError[],
) {
  const { start_date: start, end_date: end } = values;
  const settings = await readLeaveSettings(trx);
  const planned = (await readPlannedHours(trx, [employee.id], start, end)).get(employee.id) ?? new Map<string, number>();
  if (values.days === undefined) {
    const holidays = await holidaysOfCountries(trx, [employee.country], start, end);
    const dates = defaultLeaveDates({
      start,
      end,
      settings,
      planned,
      includeHolidays,
      holidayDates: new Set(holidays.map((day) => day.date)),
    });
    if (dates.length === 0) errors.push({ field: 'days', message: 'the range holds no workday of the employee: list the days taken' });
    return dates.map((date): StoredLeaveDay => ({ date, portion: 'full', hours: null }));
  }
  if (values.days.length === 0) errors.push({ field: 'days', message: 'must list at least one day' });
  const seen = new Set<string>();
  values.days.forEach((day, index) => {
    if (day.date < start || day.date > end)
      errors.push({ field: `days.${index}.date`, message: 'must be a date from start_date to end_date' });
    else if (seen.has(day.date)) errors.push({ field: `days.${index}.date`, message: 'must not appear twice' });
    seen.add(day.date);
    if (day.portion === 'hours') {
      // The day's hours: a full day's, or standard_day_hours on a day off.
      const limit = fullDayHours(day.date, settings, planned) || settings.standard_day_hours;
      if (day.hours === undefined) errors.push({ field: `days.${index}.hours`, message: 'is required with portion hours' });
      else if (day.hours > limit) errors.push({ field: `days.${index}.hours`, message: `must be at most the day's ${limit} hours` });
    } else if (day.hours !== undefined) errors.push({ field: `days.${index}.hours`, message: 'is only for portion hours' });
  });
  return [...values.days]
    .sort((a, b) => (a.date < b.date ? -1 : 1))
    .map((day): StoredLeaveDay => ({ date: day.date, portion: day.portion, hours: day.portion === 'hours' ? (day.hours ?? null) : null }));
}

/** The type, range and days of a leave body, every problem added to `errors`; the days to store. */
async function checkedDays(
  trx: Knex.Transaction,
  values: Pick<LeaveCreate, 'leave_type' | 'start_date' | 'end_date' | 'days'>,
  employee: LeaveEmployee,
  errors: FieldError[],
): Promise<StoredLeaveDay[]> {
  const type = await findLeaveType(trx, values.leave_type);
  if (!type) errors.push({ field: 'leave_type', message: 'does not exist: must be the id of a leave type' });
  if (values.end_date < values.start_date) errors.push({ field: 'end_date', message: 'must not be before start_date' });
  else if (daysBetween(values.start_date, values.end_date) >= MAX_RANGE_DAYS)
    errors.push({ field: 'end_date', message: `must be at most ${MAX_RANGE_DAYS - 1} days after start_date` });
  const rangeValid = !errors.some((error) => error.field === 'end_date');
  return rangeValid ? leaveDaysOf(trx, values, employee, type?.include_holidays ?? false, errors) : [];
}

/**
 * POST /leaves. Refusals in order: 422 for the body's fields (every one at once; an employee the
 * caller may not request for reads as unknown), 403 for `status: approved` from a non-admin,
 * 409 period_locked, 409 leave_overlap.
 */
export async function createLeave(trx: Knex.Transaction, body: unknown, context: WriteContext): Promise<Leave> {
  const values = parseBody(leaveCreate, body);
  const errors: FieldError[] = [];
  const employeeId = values.employee ?? context.caller.employeeId;
  if (employeeId === null) throw new ValidationError([{ field: 'employee', message: 'is required (your user has no employee record)' }]);
  const employee = await lockLeaveEmployee(trx, employeeId);
  const unknownEmployee = () =>
    new ValidationError([{ field: 'employee', message: 'does not exist: must be the id of an employee you may request leave for' }]);
  if (!employee) throw unknownEmployee();
  try {
    assertLeaveAccess(context.caller, employee, 'request', 'No such employee');
  } catch (error) {
    if (error instanceof NotFoundError) throw unknownEmployee();
    throw error;
  }
  if (values.status === 'approved' && context.caller.role !== 'admin')
    throw new ForbiddenError({ detail: 'Only admins may create a leave approved; others request it (pending)' });
  const days = await checkedDays(trx, values, employee, errors);
  if (errors.length > 0) throw new ValidationError(errors);

  const status: LeaveStatus = values.status ?? 'pending';
  const approved = status === 'approved';
  const settleApprovals = await guardAttendanceWrite(
    trx,
    employee.id,
    days.map((day) => day.date),
    context,
    { reopen: approved ? 'leave' : false },
  );
  const at = toSqlDateTime(context.now);
  let id: number;
  try {
    id = await insertLeave(
      trx,
      {
        employee_id: employee.id,
        leave_type_id: values.leave_type,
        start_date: values.start_date,
        end_date: values.end_date,
        status,
        note: values.note ?? null,
        decided_by: approved ? context.caller.userId : null,
        decided_at: approved ? at : null,
      },
      days,
      context.now,
    );
  } catch (error) {
    if (asUniqueViolation(error)?.key.includes('live_employee')) throw overlapError();
    throw error;
  }
  await writeAudit(
    trx,
    { action: 'create', entityType: 'leave', entityId: id, employeeId: employee.id, fields: Object.keys(values) },
    context,
  );
  await settleApprovals();
  const leave = (await findLeave(trx, id))!;
  await recordLeaveEvent(trx, approved ? 'leave.approved' : 'leave.requested', leave, context.now);
  return leave;
}

/** The leave and its employee, both locked for the write; 404 when missing or not visible. */
async function lockedLeave(trx: Knex.Transaction, id: number, context: WriteContext): Promise<{ leave: Leave; employee: LeaveEmployee }> {
  // A locking read first: no snapshot is taken before the locks (InnoDB, REPEATABLE READ).
  const owner = (await trx('leaves').where({ id }).forUpdate().first('employee_id')) as { employee_id: number } | undefined;
  const employee = owner && (await lockLeaveEmployee(trx, Number(owner.employee_id)));
  const leave = employee && (await findLeave(trx, id));
  if (!employee || !leave) throw new NotFoundError({ detail: 'No such leave' });
  assertLeaveAccess(context.caller, employee, 'read', 'No such leave');
  return { leave, employee };
}

const notLive = (leave: Leave, doing: string) =>
  new ConflictError({ code: 'leave_not_pending', title: 'Leave already decided', detail: `A ${leave.status} leave cannot be ${doing}` });

/** POST /leaves/{id}/approve and /reject. */
export async function decideLeave(
  trx: Knex.Transaction,
  id: number,
  decision: 'approved' | 'rejected',
  context: WriteContext,
  ifMatch: IfMatch | undefined,
): Promise<Leave> {
  const { leave, employee } = await lockedLeave(trx, id, context);
  assertLeaveAccess(context.caller, employee, 'decide', 'No such leave');
  assertIfMatch(ifMatch, () => leaveJson(leave));
  if (leave.status !== 'pending') throw notLive(leave, decision);
  const settleApprovals = await guardAttendanceWrite(
    trx,
    employee.id,
    leave.days.map((day) => day.date),
    context,
    { reopen: decision === 'approved' ? 'leave' : false },
  );
  await updateLeaveStatus(
    trx,
    id,
    { status: decision, decided_by: context.caller.userId, decided_at: toSqlDateTime(context.now) },
    context.now,
  );
  await settleApprovals();
  await writeAudit(
    trx,
    {
      action: decision === 'approved' ? 'approve' : 'reject',
      entityType: 'leave',
      entityId: id,
      employeeId: employee.id,
      fields: ['status'],
      changes: { status: { from: leave.status, to: decision } },
    },
    context,
  );
  const decided = (await findLeave(trx, id))!;
  await recordLeaveEvent(trx, decision === 'approved' ? 'leave.approved' : 'leave.rejected', decided, context.now);
  return decided;
}

/** POST /leaves/{id}/cancel: the employee while pending; approvers and admins at any time. */
export async function cancelLeave(trx: Knex.Transaction, id: number, context: WriteContext, ifMatch: IfMatch | undefined): Promise<Leave> {
  const { leave, employee } = await lockedLeave(trx, id, context);
  // A leave already over is said so to anyone who may see it, before who may cancel what.
  if (!LIVE_STATUSES.includes(leave.status)) throw notLive(leave, 'cancelled');
  assertLeaveAccess(context.caller, employee, 'cancel', 'No such leave', leave.status === 'pending');
  assertIfMatch(ifMatch, () => leaveJson(leave));
  const settleApprovals = await guardAttendanceWrite(
    trx,
    employee.id,
    leave.days.map((day) => day.date),
    context,
    { reopen: leave.status === 'approved' ? 'leave' : false },
  );
  await updateLeaveStatus(trx, id, { status: 'cancelled' }, context.now);
  await settleApprovals();
  await writeAudit(
    trx,
    {
      action: 'cancel',
      entityType: 'leave',
      entityId: id,
      employeeId: employee.id,
      fields: ['status'],
      changes: { status: { from: leave.status, to: 'cancelled' } },
    },
    context,
  );
  const cancelled = (await findLeave(trx, id))!;
  await recordLeaveEvent(trx, 'leave.cancelled', cancelled, context.now);
  return cancelled;
}

/**
 * PUT /leaves/{id}: the type, range, days and note again (as POST; omitted days default to the
 * workdays), the status kept. The employee while pending; approvers and admins at any time. The
 * old and the new dates both pass the period guard; the new ones the database's date rule.
 */
export async function replaceLeave(
  trx: Knex.Transaction,
  id: number,
  body: unknown,
  context: WriteContext,
  ifMatch: IfMatch | undefined,
): Promise<Leave> {
  const { leave, employee } = await lockedLeave(trx, id, context);
  if (!LIVE_STATUSES.includes(leave.status)) throw notLive(leave, 'changed');
  assertLeaveAccess(context.caller, employee, 'cancel', 'No such leave', leave.status === 'pending');
  assertIfMatch(ifMatch, () => leaveJson(leave));
  const values = parseBody(leaveReplace, body);
  const errors: FieldError[] = [];
  if (values.id !== undefined && values.id !== id) errors.push({ field: 'id', message: 'must match the id in the path' });
  const days = await checkedDays(trx, values, employee, errors);
  if (errors.length > 0) throw new ValidationError(errors);
  const settleApprovals = await guardAttendanceWrite(
    trx,
    employee.id,
    [...new Set([...leave.days, ...days].map((day) => day.date))].sort(),
    context,
    { reopen: leave.status === 'approved' ? 'leave' : false },
  );
  try {
    await replaceLeaveDays(
      trx,
      id,
      { leave_type_id: values.leave_type, start_date: values.start_date, end_date: values.end_date, note: values.note ?? null },
      days,
      leave.employee_id,
      context.now,
    );
  } catch (error) {
    if (asUniqueViolation(error)?.key.includes('live_employee')) throw overlapError();
    throw error;
  }
  await settleApprovals();
  await writeAudit(
    trx,
    {
      action: 'update',
      entityType: 'leave',
      entityId: id,
      employeeId: employee.id,
      fields: ['leave_type', 'start_date', 'end_date', 'days', 'note'],
    },
    context,
  );
  return (await findLeave(trx, id))!;
}

/** DELETE /leaves/{id} (admins): gone, with a tombstone for GET /leaves/deleted. */
export async function removeLeave(
  trx: Knex.Transaction,
  id: number,
  context: WriteContext,
  ifMatch: IfMatch | undefined,
): Promise<{ id: string }> {
  const { leave, employee } = await lockedLeave(trx, id, context);
  assertLeaveAccess(context.caller, employee, 'delete', 'No such leave');
  assertIfMatch(ifMatch, () => leaveJson(leave));
  if (LIVE_STATUSES.includes(leave.status)) {
    const settleApprovals = await guardAttendanceWrite(
      trx,
      employee.id,
      leave.days.map((day) => day.date),
      context,
      { reopen: leave.status === 'approved' ? 'leave' : false },
    );
    await settleApprovals();
  }
  await deleteLeave(trx, leave, context.now);
  await writeAudit(trx, { action: 'delete', entityType: 'leave', entityId: id, employeeId: employee.id, fields: [] }, context);
  return { id: String(id) };
}
