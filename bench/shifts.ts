// Attendance for the pay-period benchmarks (bench:pay-periods, bench:exports): one shift per
// employee and weekday, long enough that the daily and weekly rules classify some as overtime.
import type { Db } from '../src/db/connect';
import { insertUtcShifts, type UtcShift } from '../src/seed/shifts';
import { DEFAULT_GROUP_ID, writeGroupSettings } from '../src/pay-groups/repository';

/** The first `count` weekdays of a month (UTC dates). */
export function weekdays(year: number, month: number, count: number): string[] {
  const dates: string[] = [];
  for (let day = 1; dates.length < count; day++) {
    const date = new Date(Date.UTC(year, month - 1, day));
    if (date.getUTCDay() !== 0 && date.getUTCDay() !== 6) dates.push(date.toISOString().slice(0, 10));
  }
  return dates;
}

/** One shift per employee and date, 08:00 UTC, 8 to 9.5 hours, in bulk; returns how many. */
export function seedShifts(db: Db, ids: number[], dates: string[]): Promise<number> {
  function* shifts(): Generator<UtcShift> {
    for (const id of ids) {
      for (const date of dates) {
        const minutes = 480 + (id % 4) * 30;
        const end = `${date} ${String(8 + Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}:00`;
        yield { employeeId: id, start: `${date} 08:00:00`, end };
      }
    }
  }
  return insertUtcShifts(db, shifts(), { now: new Date(), batch: 4000 });
}

/** The benchmarks' pay-period settings: monthly periods, daily 8/12 and weekly 40 hours. */
export async function writeMonthlyPaySettings(db: Db): Promise<void> {
  await writeGroupSettings(
    db,
    DEFAULT_GROUP_ID,
    {
      frequency: 'monthly',
      anchor_date: '2024-01-01',
      month_start_day: 1,
      workweek_start: 'monday',
      overtime: { daily_after_hours: 8, daily_double_after_hours: 12, weekly_after_hours: 40, seventh_day: false },
    },
    new Date(),
  );
}
