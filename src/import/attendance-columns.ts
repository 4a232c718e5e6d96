import { toSqlDateTimeSeconds } from '../db/sql-time';
import { instantOfWallClock, isWallClock } from '../time';
import type { IcehrmAttendanceRow } from './icehrm-source';

// IceHrm's attendance rows as this server's columns (src/import/attendance.ts): times read on the
// employee's wall clock, positions and addresses kept when usable.

/** A record as this server's attendance table stores it. */
export type AttendanceColumns = Record<string, unknown> & { employee_id: number; in_time_utc: string; out_time_utc: string | null };

/** The columns checkEmployeeRecords would keep for a row, for its fingerprint; undefined if it has no usable times. */
export function recordColumnsOf(row: IcehrmAttendanceRow, timezone: string, times: WallClockCache): AttendanceColumns | undefined {
  const inReading = wallClock(row.in_time);
  if (inReading === null) return undefined;
  const outReading = wallClock(row.out_time);
  const inTime = times.instant(timezone, inReading);
  const outTime = outReading === null ? null : times.instant(timezone, outReading);
  if (!inTime || outTime === undefined) return undefined;
  return columnsOfRecord(row, timezone, { inReading, outReading, inTime, outTime });
}

/** A row as this server's attendance columns, its times read already. */
export function columnsOfRecord(
  row: IcehrmAttendanceRow,
  timezone: string,
  times: { inReading: string; outReading: string | null; inTime: Date; outTime: Date | null },
): AttendanceColumns {
  const { inReading, outReading, inTime, outTime } = times;
  return {
    employee_id: Number(row.employee),
    in_time_utc: toSqlDateTimeSeconds(inTime),
    in_time_local: inReading,
    out_time_utc: outTime === null ? null : toSqlDateTimeSeconds(outTime),
    out_time_local: outReading,
    timezone,
    note: textOrNull(row.note),
    out_note: null,
    ...position(row.map_lat, row.map_lng, 'latitude', 'longitude'),
    ...position(row.map_out_lat, row.map_out_lng, 'out_latitude', 'out_longitude'),
    in_ip: ip(row.in_ip),
    out_ip: ip(row.out_ip),
    open_employee_id: outTime === null ? Number(row.employee) : null,
  };
}

function textOrNull(value: unknown): string | null {
  return value === null || value === undefined || String(value).trim() === '' ? null : String(value);
}

/** IceHrm's DATETIME as read ('YYYY-MM-DD HH:MM:SS'); zero dates and empty values are none. */
export function wallClock(value: string | null): string | null {
  if (value === null || value.startsWith('0000-00-00')) return null;
  const reading = value.slice(0, 19);
  return isWallClock(reading) ? reading : null;
}

/** A position kept when both coordinates are in range (IceHrm stores 8 decimals, this server 6). */
function position(lat: unknown, lng: unknown, latName: string, lngName: string): Record<string, number | null> {
  const latitude = lat === null || lat === undefined || lat === '' ? NaN : Number(lat);
  const longitude = lng === null || lng === undefined || lng === '' ? NaN : Number(lng);
  const usable = Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180;
  return {
    [latName]: usable ? Math.round(latitude * 1e6) / 1e6 : null,
    [lngName]: usable ? Math.round(longitude * 1e6) / 1e6 : null,
  };
}

function ip(value: unknown): string | null {
  const text = textOrNull(value)?.trim() ?? null;
  return text !== null && text.length <= 45 ? text : null;
}

/**
 * Wall-clock readings to instants, a million times over: the offset of a zone is looked up once
 * per hour of readings, where the hour has one offset from start to end; other hours (clocks
 * changing) take the exact, slower path for every reading.
 */
export class WallClockCache {
  private readonly offsets = new Map<string, number | null>();

  instant(timezone: string, reading: string): Date | undefined {
    const hour = `${timezone}|${reading.slice(0, 13)}`;
    let offset = this.offsets.get(hour);
    if (offset === undefined) {
      const start = instantOfWallClock(timezone, `${reading.slice(0, 13)}:00:00`);
      const end = instantOfWallClock(timezone, `${reading.slice(0, 13)}:59:59`);
      const startOffset = start ? start.getTime() - readingMs(`${reading.slice(0, 13)}:00:00`) : NaN;
      const endOffset = end ? end.getTime() - readingMs(`${reading.slice(0, 13)}:59:59`) : NaN;
      offset = startOffset === endOffset ? startOffset : null;
      this.offsets.set(hour, offset);
    }
    return offset === null ? instantOfWallClock(timezone, reading) : new Date(readingMs(reading) + offset);
  }
}

function readingMs(reading: string): number {
  return Date.parse(`${reading.replace(' ', 'T')}Z`);
}
