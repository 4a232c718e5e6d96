import { utcIso } from '../attendance/output';
import type { AttendanceColumns, AttendanceEmployee } from '../attendance/repository';
import { toSqlDateTime, toSqlDateTimeSeconds } from '../db/sql-time';
import { wallClockIn } from '../time';
import type { BatchAttendanceRow } from './record-repository';

/** What a batch writes into every record it changes besides the times: when, and from where. */
export interface WriteStamp {
  now: Date;
  ip: string;
}

/** A record on a batch's timeline: the stored one it is, if any, and its times now. */
interface Times {
  stored: BatchAttendanceRow | undefined;
  inMs: number;
  outMs: number | null;
}

/**
 * A record's columns as `slot` leaves it; `open` gives the state right after its punch-in (a new
 * record's first event). A stored record keeps every column its times leave as they were.
 */
export function columnsOf(slot: Times, employee: AttendanceEmployee, stamp: WriteStamp, open = false): AttendanceColumns {
  const now = toSqlDateTime(stamp.now);
  const outMs = open ? null : slot.outMs;
  const outInstant = outMs === null ? undefined : new Date(outMs);
  const inInstant = new Date(slot.inMs);
  if (slot.stored) {
    const { id: _id, derived_from_log: _derived, ...columns } = slot.stored;
    const zone = columns.timezone;
    const sameIn = Date.parse(utcIso(columns.in_time_utc)) === slot.inMs;
    const sameOut = (columns.out_time_utc === null ? null : Date.parse(utcIso(columns.out_time_utc))) === outMs;
    if (sameIn && sameOut) return columns;
    return {
      ...columns,
      ...(sameIn ? {} : { in_time_utc: toSqlDateTimeSeconds(inInstant), in_time_local: wallClockIn(zone, inInstant), in_ip: stamp.ip }),
      ...(sameOut
        ? {}
        : {
            out_time_utc: outInstant ? toSqlDateTimeSeconds(outInstant) : null,
            out_time_local: outInstant ? wallClockIn(zone, outInstant) : null,
            out_ip: outInstant ? stamp.ip : null,
            out_note: null,
            out_latitude: null,
            out_longitude: null,
          }),
      updated_at: now,
    };
  }
  return {
    employee_id: employee.id,
    in_time_utc: toSqlDateTimeSeconds(inInstant),
    in_time_local: wallClockIn(employee.timezone, inInstant),
    timezone: employee.timezone,
    note: null,
    out_note: null,
    latitude: null,
    longitude: null,
    out_latitude: null,
    out_longitude: null,
    in_ip: stamp.ip,
    missed_punch_out: false,
    created_at: now,
    updated_at: now,
    out_time_utc: outInstant ? toSqlDateTimeSeconds(outInstant) : null,
    out_time_local: outInstant ? wallClockIn(employee.timezone, outInstant) : null,
    out_ip: outInstant ? stamp.ip : null,
  };
}
