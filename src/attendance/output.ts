import { sqlDateTimeToIso } from '../db/sql-time';
import type { AttendanceRecord } from './repository';

/** 'YYYY-MM-DD HH:MM:SS' UTC as ISO-8601 with Z; attendance instants are whole seconds. */
export function utcIso(value: string): string {
  return `${value.slice(0, 19).replace(' ', 'T')}Z`;
}

/** Hours between two instants, rounded to 2 decimals from whole seconds (no float drift). */
export function hoursOf(seconds: number): number {
  return Math.round(seconds / 36) / 100;
}

function secondsBetween(fromUtc: string, toUtc: string): number {
  return (Date.parse(utcIso(toUtc)) - Date.parse(utcIso(fromUtc))) / 1000;
}

/** The record's read shape (docs/api.md, "Attendance"). */
export function toAttendanceResponse(record: AttendanceRecord): Record<string, unknown> {
  return {
    id: String(record.id),
    employee: { type: 'Employee', id: String(record.employee_id), display: record.employeeDisplay },
    in_time: record.in_time_local,
    out_time: record.out_time_local,
    note: record.note,
    out_note: record.out_note,
    timezone: record.timezone,
    in_time_utc: utcIso(record.in_time_utc),
    out_time_utc: record.out_time_utc === null ? null : utcIso(record.out_time_utc),
    hours: record.out_time_utc === null ? null : hoursOf(secondsBetween(record.in_time_utc, record.out_time_utc)),
    latitude: record.latitude,
    longitude: record.longitude,
    out_latitude: record.out_latitude,
    out_longitude: record.out_longitude,
    in_ip: record.in_ip,
    out_ip: record.out_ip,
    // Answered only when true (absent means false): every other record's read shape, and so its
    // ETag, stays as it was before the field existed.
    ...(record.missed_punch_out && { missed_punch_out: true }),
    created_at: sqlDateTimeToIso(record.created_at),
    updated_at: sqlDateTimeToIso(record.updated_at),
  };
}

/** The read shape as JSON text: the same for every reader, so it is also the state its ETag hashes. */
export function attendanceJson(record: AttendanceRecord): string {
  return JSON.stringify(toAttendanceResponse(record));
}
