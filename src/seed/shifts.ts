import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import { markAttendanceChanges } from '../period-guard/change-marks';

// Closed shifts in UTC written in bulk, for the pay-period benchmarks and tests that need many
// records at once: as the API would store them, the months they count in marked changed.

/** A closed shift on a UTC wall clock: 'YYYY-MM-DD HH:MM:SS' at both ends. */
export interface UtcShift {
  employeeId: number;
  start: string;
  end: string;
}

/** Inserts the shifts, `batch` rows a statement; returns how many. */
export async function insertUtcShifts(db: Db, shifts: Iterable<UtcShift>, options: { now: Date; batch: number }): Promise<number> {
  const now = toSqlDateTime(options.now);
  const months = new Map<number, Set<string>>();
  let rows: Array<Record<string, unknown>> = [];
  let count = 0;
  const flush = async () => {
    if (rows.length > 0) await db('attendance').insert(rows);
    count += rows.length;
    rows = [];
  };
  for (const { employeeId, start, end } of shifts) {
    rows.push({
      employee_id: employeeId,
      in_time_utc: start,
      in_time_local: start,
      out_time_utc: end,
      out_time_local: end,
      timezone: 'UTC',
      created_at: now,
      updated_at: now,
    });
    const dates = months.get(employeeId) ?? new Set<string>();
    dates.add(`${start.slice(0, 7)}-01`);
    months.set(employeeId, dates);
    if (rows.length >= options.batch) await flush();
  }
  await flush();
  await markAttendanceChanges(
    db,
    [...months].map(([employeeId, dates]) => ({ employeeId, dates })),
  );
  return count;
}
