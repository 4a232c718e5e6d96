import type { Knex } from 'knex';
import { fromSqlDateTime, toSqlDateTime, toSqlDateTimeSeconds } from '../db/sql-time';
import { NotFoundError, ValidationError } from '../errors';
import { wallClockIn } from '../time';
import { assertAttendanceAccess } from './access';
import {
  type AttendanceColumns,
  type AttendanceRecord,
  deleteAttendance,
  findAttendanceOf,
  insertAttendance,
  lockAttendanceEmployee,
  updateAttendance,
} from './repository';
import { assertNoOverlap, assertNotTerminated, checkCoordinatePair, checkTimes, guardOneOpenRecord, resolveTime } from './rules';
import { parseCorrection, parseNewRecord } from './schemas';
import { type AttendanceWriteContext, attendanceChanges, auditAttendance, dateOf } from './writes';
import { recordAttendanceDeleted, recordAttendanceEvent } from './events';
import { guardAttendanceWrite } from '../period-guard/guard';
import { attendanceJson } from './output';
import { assertIfMatch, type IfMatch } from '../http/conditional';
import { recordAttendanceDeletions } from '../deletions/tombstones';

const NO_SUCH_RECORD = 'No such attendance record';

/**
 * POST /attendance: a complete (closed) record, for admins and for managers on their direct
 * reports. Same rules as punches; wall-clock times are read in the employee's zone.
 */
export async function createAttendance(
  trx: Knex.Transaction,
  body: Record<string, unknown>,
  context: AttendanceWriteContext,
): Promise<AttendanceRecord> {
  const { values, errors } = parseNewRecord(body);
  if (values.employee === undefined) throw new ValidationError(errors);
  const employeeId = values.employee;
  const employee = await lockAttendanceEmployee(trx, employeeId);
  if (!employee) throw new NotFoundError({ detail: 'No such employee' });
  assertAttendanceAccess(context.caller, employee, 'correct', 'No such employee');

  const inTime = values.in_time && resolveTime(values.in_time, employee.timezone, 'in_time', errors);
  const outTime = values.out_time && resolveTime(values.out_time, employee.timezone, 'out_time', errors);
  if (inTime && outTime) {
    const checkFuture = { inTime: true, outTime: true };
    errors.push(...checkTimes({ inTime, outTime }, { now: context.now, settings: context.settings, checkFuture }));
  }
  const position = {
    latitude: values.latitude ?? null,
    longitude: values.longitude ?? null,
    out_latitude: values.out_latitude ?? null,
    out_longitude: values.out_longitude ?? null,
  };
  errors.push(...checkPositions(position));
  if (errors.length > 0 || !inTime || !outTime) throw new ValidationError(errors);
  assertNotTerminated(employee, [
    ['in_time', inTime],
    ['out_time', outTime],
  ]);

  const now = toSqlDateTime(context.now);
  const columns: AttendanceColumns = {
    employee_id: employee.id,
    in_time_utc: toSqlDateTimeSeconds(inTime),
    in_time_local: wallClockIn(employee.timezone, inTime),
    out_time_utc: toSqlDateTimeSeconds(outTime),
    out_time_local: wallClockIn(employee.timezone, outTime),
    timezone: employee.timezone,
    note: values.note ?? null,
    out_note: values.out_note ?? null,
    ...position,
    in_ip: null,
    out_ip: null,
    missed_punch_out: false,
    created_at: now,
    updated_at: now,
  };
  const settleApprovals = await guardAttendanceWrite(trx, employee.id, [dateOf(columns.in_time_local)], context);
  const id = await insertAttendance(trx, columns);
  await assertNoOverlap(trx, { id, employeeId: employee.id, inTime, outTime });
  await settleApprovals();
  await auditAttendance(trx, { action: 'create', id, employeeId: employee.id, before: {}, after: columns }, context);
  const record = { id, ...columns, employeeDisplay: employee.display };
  await recordAttendanceEvent(trx, 'attendance.corrected', record, context.now);
  return record;
}

/**
 * PUT and PATCH /attendance/{id}: only the sent fields change. `employeeId` is the record's
 * employee as read before the transaction (undefined: no such record), so that the employee's
 * row is locked first (see lockAttendanceEmployee); the record is read again under the lock.
 * Wall-clock times are read in the record's zone. Setting out_time to null reopens the record
 * (a missed punch-out stays missed: it is never reopened).
 */
export async function correctAttendance(
  trx: Knex.Transaction,
  target: { id: number; employeeId: number | undefined },
  body: Record<string, unknown>,
  context: AttendanceWriteContext,
  ifMatch?: IfMatch,
): Promise<AttendanceRecord> {
  const { id } = target;
  const employee = target.employeeId === undefined ? undefined : await lockAttendanceEmployee(trx, target.employeeId);
  const existing = employee && (await findAttendanceOf(trx, employee.id, id));
  if (!employee || !existing) throw new NotFoundError({ detail: NO_SUCH_RECORD });
  assertAttendanceAccess(context.caller, employee, 'correct', NO_SUCH_RECORD);
  // If-Match, on the record as stored: read under its employee's lock, as every write of it is.
  assertIfMatch(ifMatch, () => attendanceJson({ ...existing, employeeDisplay: employee.display }));

  const { values, errors } = parseCorrection(body, id);
  if (values.employee !== undefined && values.employee !== employee.id) {
    errors.push({ field: 'employee', message: "must be the record's employee: a record does not move to another employee" });
  }
  const zone = existing.timezone;
  const inTime = values.in_time ? resolveTime(values.in_time, zone, 'in_time', errors) : fromSqlDateTime(existing.in_time_utc);
  const outTime =
    values.out_time === undefined
      ? existing.out_time_utc === null
        ? null
        : fromSqlDateTime(existing.out_time_utc)
      : values.out_time && resolveTime(values.out_time, zone, 'out_time', errors);
  const timesSent = values.in_time !== undefined || values.out_time !== undefined;
  if (timesSent && inTime && outTime !== undefined) {
    const checkFuture = { inTime: values.in_time !== undefined, outTime: values.out_time !== undefined };
    errors.push(...checkTimes({ inTime, outTime }, { now: context.now, settings: context.settings, checkFuture }));
  }
  const { id: _id, ...before } = existing;
  const position = {
    latitude: values.latitude === undefined ? before.latitude : values.latitude,
    longitude: values.longitude === undefined ? before.longitude : values.longitude,
    out_latitude: values.out_latitude === undefined ? before.out_latitude : values.out_latitude,
    out_longitude: values.out_longitude === undefined ? before.out_longitude : values.out_longitude,
  };
  errors.push(...checkPositions(position));
  if (errors.length > 0 || !inTime || outTime === undefined) throw new ValidationError(errors);
  // Only the times sent: a terminated employee's old records can still be corrected otherwise.
  assertNotTerminated(employee, [
    ['in_time', values.in_time === undefined ? null : inTime],
    ['out_time', values.out_time === undefined ? null : outTime],
  ]);

  const columns: AttendanceColumns = {
    ...before,
    in_time_utc: toSqlDateTimeSeconds(inTime),
    in_time_local: wallClockIn(zone, inTime),
    out_time_utc: outTime && toSqlDateTimeSeconds(outTime),
    out_time_local: outTime && wallClockIn(zone, outTime),
    note: values.note === undefined ? before.note : values.note,
    out_note: values.out_note === undefined ? before.out_note : values.out_note,
    ...position,
    // An out_time ends a missed punch-out: the record is closed and counts its hours. Without one
    // it stays missed, never the employee's open record again (they may have punched in since).
    missed_punch_out: before.missed_punch_out && outTime === null,
  };
  // Refused in a locked period even when it changes nothing: the period is closed to writes.
  // Only a change of times changes hours, and sends an approved timesheet back to open.
  const timesChanged = columns.in_time_utc !== before.in_time_utc || columns.out_time_utc !== before.out_time_utc;
  const settleApprovals = await guardAttendanceWrite(
    trx,
    employee.id,
    [dateOf(before.in_time_local), dateOf(columns.in_time_local)],
    context,
    {
      reopen: timesChanged,
    },
  );
  if (attendanceChanges(before, columns).fields.length === 0) return { ...existing, employeeDisplay: employee.display };

  columns.updated_at = toSqlDateTime(context.now);
  await guardOneOpenRecord(() => updateAttendance(trx, id, columns));
  await assertNoOverlap(trx, { id, employeeId: employee.id, inTime, outTime });
  await settleApprovals();
  await auditAttendance(trx, { action: 'update', id, employeeId: employee.id, before, after: columns }, context);
  const record = { id, ...columns, employeeDisplay: employee.display };
  await recordAttendanceEvent(trx, 'attendance.corrected', record, context.now, attendanceChanges(before, columns).fields);
  return record;
}

/**
 * DELETE /attendance/{id}: admins only. `employeeId` as for correctAttendance: the employee is
 * locked first, so that an If-Match check, the pay-period guard and the deletion see the record as
 * last written, and a tombstone is left for the deletion feed (src/deletions/tombstones.ts).
 */
export async function deleteAttendanceRecord(
  trx: Knex.Transaction,
  target: { id: number; employeeId: number | undefined },
  context: AttendanceWriteContext,
  ifMatch?: IfMatch,
): Promise<void> {
  const { id } = target;
  const employee = target.employeeId === undefined ? undefined : await lockAttendanceEmployee(trx, target.employeeId);
  const existing = employee && (await findAttendanceOf(trx, employee.id, id));
  if (!employee || !existing) throw new NotFoundError({ detail: NO_SUCH_RECORD });
  assertAttendanceAccess(context.caller, employee, 'delete', NO_SUCH_RECORD);
  assertIfMatch(ifMatch, () => attendanceJson({ ...existing, employeeDisplay: employee.display }));
  const { id: _id, ...before } = existing;
  const settleApprovals = await guardAttendanceWrite(trx, employee.id, [dateOf(before.in_time_local)], context);
  await recordAttendanceDeletions(trx, [id], context.now);
  await deleteAttendance(trx, id);
  await settleApprovals();
  await auditAttendance(trx, { action: 'delete', id, employeeId: employee.id, before, after: {} }, context);
  await recordAttendanceDeleted(trx, id, context.now);
}

function checkPositions(position: {
  latitude: number | null;
  longitude: number | null;
  out_latitude: number | null;
  out_longitude: number | null;
}) {
  return [
    ...checkCoordinatePair(position, { latitude: 'latitude', longitude: 'longitude' }),
    ...checkCoordinatePair(
      { latitude: position.out_latitude, longitude: position.out_longitude },
      { latitude: 'out_latitude', longitude: 'out_longitude' },
    ),
  ];
}
