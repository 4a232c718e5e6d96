import { asUniqueViolation } from '../db/constraint-errors';
import type { Db } from '../db/connect';
import { fromSqlDateTime, toSqlDateTimeSeconds } from '../db/sql-time';
import { AppError, ConflictError, type FieldError } from '../errors';
import { instantOfWallClock, wallClockIn } from '../time';
import { utcIso } from './output';
import { type AttendanceEmployee, findLatestStartBefore, type LatestRecord } from './repository';
import type { TimeInput } from './schemas';

// The attendance rules (docs/api.md, "Attendance"), shared by every write path (punches, POST, PUT/PATCH).

export interface AttendanceSettings {
  maxShiftHours: number;
  punchFutureToleranceSeconds: number;
}

/** Instants are kept to the whole second, as the columns store them. */
export function wholeSecond(instant: Date): Date {
  return new Date(Math.floor(instant.getTime() / 1000) * 1000);
}

/**
 * The instant of a time input: a wall-clock reading is read in `timeZone`. A reading the zone
 * skips (clocks jumping forward) names no instant and is an error; a repeated one is its earlier
 * instant (see instantOfWallClock); an offset makes either unambiguous.
 */
export function resolveTime(input: TimeInput, timeZone: string, field: string, errors: FieldError[]): Date | undefined {
  if ('instant' in input) return input.instant;
  const instant = instantOfWallClock(timeZone, input.reading);
  if (!instant) {
    errors.push({
      field,
      message: `does not exist in ${timeZone}: the clocks skip it for daylight saving time; send the time with its offset`,
    });
  }
  return instant;
}

/**
 * Rules 2 and 4: out after in, no longer than max_shift_hours, nothing beyond the future
 * tolerance. Only the sent times (`checkFuture`) are held to the tolerance, so an old record can
 * be corrected whatever the clock says now.
 */
export function checkTimes(
  times: { inTime: Date; outTime: Date | null },
  options: { now: Date; settings: AttendanceSettings; checkFuture: { inTime: boolean; outTime: boolean } },
): FieldError[] {
  const errors: FieldError[] = [];
  const { maxShiftHours, punchFutureToleranceSeconds: tolerance } = options.settings;
  const latest = options.now.getTime() + tolerance * 1000;
  const future = `must not be more than ${tolerance} seconds in the future (punch_future_tolerance_seconds)`;
  if (options.checkFuture.inTime && times.inTime.getTime() > latest) errors.push({ field: 'in_time', message: future });
  const { outTime } = times;
  if (outTime === null) return errors;
  if (options.checkFuture.outTime && outTime.getTime() > latest) errors.push({ field: 'out_time', message: future });
  if (outTime.getTime() <= times.inTime.getTime()) {
    errors.push({ field: 'out_time', message: 'must be after in_time' });
  } else if (outTime.getTime() - times.inTime.getTime() > maxShiftHours * 3_600_000) {
    errors.push({ field: 'out_time', message: `must be at most ${maxShiftHours} hours after in_time (max_shift_hours)` });
  }
  return errors;
}

/** A position is both coordinates or neither. */
export function checkCoordinatePair(
  values: { latitude: number | null; longitude: number | null },
  fields: { latitude: string; longitude: string },
): FieldError[] {
  if ((values.latitude === null) === (values.longitude === null)) return [];
  const missing = values.latitude === null ? fields.latitude : fields.longitude;
  const other = values.latitude === null ? fields.longitude : fields.latitude;
  return [{ field: missing, message: `is required with ${other}` }];
}

function alreadyPunchedIn(): ConflictError {
  return new ConflictError({
    code: 'already_punched_in',
    detail: 'The employee is already punched in: punch out first (or correct the open record)',
  });
}

export function notPunchedIn(): ConflictError {
  return new ConflictError({ code: 'not_punched_in', detail: 'The employee is not punched in: there is no open record to punch out' });
}

/**
 * Runs a write that may leave a record open. Rule 1 is the unique index on open_employee_id:
 * of two concurrent punch-ins the database lets one insert through and fails the other, which is
 * answered 409 already_punched_in here rather than as a generic duplicate.
 */
export async function guardOneOpenRecord<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (asUniqueViolation(error)?.key.includes('open_employee_id')) throw alreadyPunchedIn();
    throw error;
  }
}

/**
 * Rule 3, checked inside the write's transaction after the write, with the employee's row locked
 * (lockAttendanceEmployee): [inTime, outTime) must not overlap another record of the employee; an
 * open record counts as lasting until further notice. Throws 409 `overlap`, rolling the write back.
 */
export async function assertNoOverlap(
  trx: Db,
  record: { id: number; employeeId: number; inTime: Date; outTime: Date | null },
): Promise<void> {
  const before = record.outTime === null ? undefined : toSqlDateTimeSeconds(record.outTime);
  const previous = await findLatestStartBefore(trx, { employeeId: record.employeeId, excludeId: record.id, before });
  if (previous) assertNotOverlapping(previous, record.inTime);
}

/**
 * Rule 3 against `previous`, the record that starts last before the new interval's end (see
 * findLatestStartBefore): the interval starting at `inTime` overlaps some record exactly when
 * `previous` is still open or ends after `inTime`. A missed punch-out holds the second it began
 * only: nothing may start before it and run past it, nor start in the same second (records of
 * one employee never share a start). Throws 409 `overlap`.
 */
export function assertNotOverlapping(previous: LatestRecord, inTime: Date): void {
  const previousEnd =
    previous.out_time_utc !== null
      ? fromSqlDateTime(previous.out_time_utc).getTime()
      : previous.missed_punch_out
        ? fromSqlDateTime(previous.in_time_utc).getTime() + 1000
        : undefined;
  if (previousEnd !== undefined && previousEnd <= inTime.getTime()) return;
  const until =
    previous.out_time_utc !== null
      ? `until ${utcIso(previous.out_time_utc)}`
      : previous.missed_punch_out
        ? 'a missed punch-out'
        : 'still open';
  throw new ConflictError({
    code: 'overlap',
    detail: `The times overlap attendance record ${previous.id} of the employee (from ${utcIso(previous.in_time_utc)}, ${until})`,
  });
}

/**
 * Why a punch at `instant` comes too late for a terminated employee, or undefined: its date on
 * the employee's wall clock is after termination_date (docs/api.md, "Terminated employees"). The
 * last day itself is a working day to its end, so a back-fill of it is applied.
 */
export function afterTermination(employee: Pick<AttendanceEmployee, 'termination_date' | 'timezone'>, instant: Date): string | undefined {
  if (employee.termination_date === null) return undefined;
  const day = wallClockIn(employee.timezone, instant).slice(0, 10);
  if (day <= employee.termination_date) return undefined;
  return `The employee's last day was ${employee.termination_date}: no punch may fall after it (this one is on ${day} in ${employee.timezone})`;
}

/** 422 `employee_terminated` naming each of the given times that falls after the last day. */
export function assertNotTerminated(
  employee: Pick<AttendanceEmployee, 'termination_date' | 'timezone'>,
  times: Array<[field: string, instant: Date | null]>,
): void {
  const errors: FieldError[] = [];
  for (const [field, instant] of times) {
    const message = instant && afterTermination(employee, instant);
    if (message) errors.push({ field, message });
  }
  if (errors.length === 0) return;
  throw new AppError(
    422,
    { code: 'employee_terminated', title: 'The employee is terminated' },
    { detail: (errors[0] as FieldError).message, errors },
  );
}
