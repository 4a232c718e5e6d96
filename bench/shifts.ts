// Attendance for the pay-period benchmarks (bench:pay-periods, bench:exports): one shift per
// employee and weekday, long enough that the daily and weekly rules classify some as overtime.
import type { openDatabase } from '../src/db/connect';
import { toSqlDateTime } from '../src/db/sql-time';

/** The first `count` weekdays of a month (UTC dates). */
export function weekdays(year: number, month: number, count: number): string[] {
  const dates: string[] = [];
  for (let day = 1; dates.length < count; day++) {
    const date = new Date(Date.UTC(year, month - 1, day));
    if (date.getUTCDay() !== 0 && date.getUTCDay() !== 6) dates.push(date.toISOString().slice(0, 10));
  }
  return dates;
}

/** Bulk inserts of one shift per employee and date: 08:00 UTC, 8 to 9.5 hours. */
export async function seedShifts(db: ReturnType<typeof openDatabase>, ids: number[], dates: string[]): Promise<number> {
  const now = toSqlDateTime(new Date());
  let rows: Array<Record<string, unknown>> = [];
  let count = 0;
  const flush = async () => {
    if (rows.length > 0) await db('attendance').insert(rows);
    count += rows.length;
    rows = [];
  };
  for (const id of ids) {
    for (const date of dates) {
      const start = `${date} 08:00:00`;
      const minutes = 480 + (id % 4) * 30;
      const end = `${date} ${String(8 + Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}:00`;
      rows.push({
        employee_id: id,
        in_time_utc: start,
        in_time_local: start,
        out_time_utc: end,
        out_time_local: end,
        timezone: 'UTC',
        created_at: now,
        updated_at: now,
      });
      if (rows.length >= 4000) await flush();
    }
  }
  await flush();
  return count;
}
