import type { Caller } from '../caller';
import type { Knex } from 'knex';
import { fromSqlDateTime, toSqlDateTime, toSqlDateTimeSeconds } from '../db/sql-time';
import { type FieldError, NotFoundError, ValidationError } from '../errors';
import { wallClockIn } from '../time';
import { assertAttendanceAccess } from './access';
import {
  type AttendanceColumns,
  type AttendanceEmployee,
  type AttendanceRecord,
  insertAttendance,
  lockAttendanceEmployeeWithLatestRecord,
  lockAttendanceEmployeeWithOpenRecord,
  updateAttendance,
} from './repository';
import {
  assertNotOverlapping,
  assertNotTerminated,
  checkCoordinatePair,
  checkTimes,
  guardOneOpenRecord,
  notPunchedIn,
  resolveTime,
  wholeSecond,
} from './rules';
import { parsePunchIn, parsePunchOut, type PunchValues } from './schemas';
import { type AttendanceWriteContext, auditAttendance, dateOf } from './writes';
import { recordAttendanceEvent } from './events';
import { guardAttendanceWrite } from '../period-guard/guard';

/**
 * POST /attendance/punch-in: opens a record. Refusals in order: 422 for an unusable `employee`,
 * 404/403 (access), 422 (values), 409 already_punched_in (the database's unique index) or overlap.
 */
export async function punchIn(
  trx: Knex.Transaction,
  body: Record<string, unknown>,
  context: AttendanceWriteContext,
): Promise<AttendanceRecord> {
  const { values, errors } = parsePunchIn(body);
  const employeeId = punchedEmployeeId(values, errors, context.caller);
  const { employee, latest } = punchable(await lockAttendanceEmployeeWithLatestRecord(trx, employeeId), context.caller);
  const inTime = values.time ? resolveTime(values.time, employee.timezone, 'in_time', errors) : wholeSecond(context.now);
  if (inTime) {
    const checkFuture = { inTime: true, outTime: false };
    errors.push(...checkTimes({ inTime, outTime: null }, { now: context.now, settings: context.settings, checkFuture }));
  }
  const position = { latitude: values.latitude ?? null, longitude: values.longitude ?? null };
  errors.push(...checkCoordinatePair(position, values.positionFields));
  if (errors.length > 0 || !inTime) throw new ValidationError(errors);
  assertNotTerminated(employee, [['in_time', inTime]]);

  const now = toSqlDateTime(context.now);
  const columns: AttendanceColumns = {
    employee_id: employee.id,
    in_time_utc: toSqlDateTimeSeconds(inTime),
    in_time_local: wallClockIn(employee.timezone, inTime),
    out_time_utc: null,
    out_time_local: null,
    timezone: employee.timezone,
    note: values.note ?? null,
    out_note: null,
    ...position,
    out_latitude: null,
    out_longitude: null,
    in_ip: context.ip,
    out_ip: null,
    missed_punch_out: false,
    created_at: now,
    updated_at: now,
  };
  // Rule 3 before the insert: with the employee's row locked, no other write of theirs can come
  // between. An open latest record is left to rule 1, so that the insert fails as
  // already_punched_in, as it would with a check after the insert. A missed punch-out is not
  // open: the employee punches in past it (docs/pay-periods.md, "Period end, step by step").
  if (latest && (latest.out_time_utc !== null || latest.missed_punch_out)) assertNotOverlapping(latest, inTime);
  const settleApprovals = await guardAttendanceWrite(trx, employee.id, [dateOf(columns.in_time_local)], context);
  const id = await guardOneOpenRecord(() => insertAttendance(trx, columns));
  await settleApprovals();
  await auditAttendance(trx, { action: 'punch_in', id, employeeId: employee.id, before: {}, after: columns }, context);
  const record = { id, ...columns, employeeDisplay: employee.display };
  await recordAttendanceEvent(trx, 'attendance.punched_in', record, context.now);
  return record;
}

/**
 * POST /attendance/punch-out: closes the employee's open record. The punch-out `note` goes to
 * out_note, so the punch-in note stays (rule 6). A wall-clock out_time is read in the record's
 * zone, the zone its in_time is shown in.
 */
export async function punchOut(
  trx: Knex.Transaction,
  body: Record<string, unknown>,
  context: AttendanceWriteContext,
): Promise<AttendanceRecord> {
  const { values, errors } = parsePunchOut(body);
  const employeeId = punchedEmployeeId(values, errors, context.caller);
  const { employee, open } = punchable(await lockAttendanceEmployeeWithOpenRecord(trx, employeeId), context.caller);
  if (errors.length > 0) throw new ValidationError(errors);
  if (!open) throw notPunchedIn();

  const outTime = values.time ? resolveTime(values.time, open.timezone, 'out_time', errors) : wholeSecond(context.now);
  const inTime = fromSqlDateTime(open.in_time_utc);
  if (outTime) {
    const checkFuture = { inTime: false, outTime: true };
    errors.push(...checkTimes({ inTime, outTime }, { now: context.now, settings: context.settings, checkFuture }));
  }
  const position = { latitude: values.latitude ?? null, longitude: values.longitude ?? null };
  errors.push(...checkCoordinatePair(position, values.positionFields));
  if (errors.length > 0 || !outTime) throw new ValidationError(errors);
  assertNotTerminated(employee, [['out_time', outTime]]);

  const { id, ...before } = open;
  const columns: AttendanceColumns = {
    ...before,
    out_time_utc: toSqlDateTimeSeconds(outTime),
    out_time_local: wallClockIn(open.timezone, outTime),
    out_note: values.note ?? null,
    out_latitude: position.latitude,
    out_longitude: position.longitude,
    out_ip: context.ip,
    updated_at: toSqlDateTime(context.now),
  };
  // No overlap check: an open record counts as lasting until further notice and overlaps
  // nothing, so closing it (shortening it) cannot make it overlap anything (rule 3 holds).
  // The record counts on the date it began, however late it closes (docs/pay-periods.md).
  const settleApprovals = await guardAttendanceWrite(trx, employee.id, [dateOf(open.in_time_local)], context);
  await updateAttendance(trx, id, columns);
  await settleApprovals();
  await auditAttendance(trx, { action: 'punch_out', id, employeeId: employee.id, before, after: columns }, context);
  const record = { id, ...columns, employeeDisplay: employee.display };
  await recordAttendanceEvent(trx, 'attendance.punched_out', record, context.now);
  return record;
}

/** The employee punched for: the one sent, else the caller's own. */
function punchedEmployeeId(values: PunchValues, errors: FieldError[], caller: Caller): number {
  // Nothing can be decided about an employee the request does not name.
  if (errors.some((error) => error.field === 'employee')) throw new ValidationError(errors);
  const employeeId = values.employee ?? caller.employeeId;
  if (employeeId === null) {
    throw new ValidationError([{ field: 'employee', message: 'is required: your user is not linked to an employee record' }, ...errors]);
  }
  return employeeId;
}

/** 404 for a missing employee, 404/403 when the caller may not punch for them. */
function punchable<T extends { employee: AttendanceEmployee }>(found: T | undefined, caller: Caller): T {
  if (!found) throw new NotFoundError({ detail: 'No such employee' });
  assertAttendanceAccess(caller, found.employee, 'punch', 'No such employee');
  return found;
}
