import { type Db, dialectOf } from '../db/connect';
import { markAttendanceChanges } from '../period-guard/change-marks';
import { addDays, instantOfWallClock, todayIn, weekdayOf } from '../time';
import { Random } from './random';

/**
 * Rows per INSERT. Knex writes a multi-row insert for SQLite as a compound SELECT, which SQLite
 * limits to 500 terms; MySQL takes larger statements, which cost fewer round trips.
 */
const BATCH_SIZE = { sqlite: 500, mysql: 2000 };
const NOTES = ['Client visit', 'Worked from home', 'Training', 'Covered the late shift', 'Doctor in the morning'];

interface AttendanceSeedResult {
  /** Records added. */
  count: number;
}

interface SeedEmployee {
  id: number;
  timezone: string;
  termination_date: string | null;
}

/** A working day of one zone and the zone's UTC offset during its working hours. */
interface WorkingDay {
  date: string;
  offsetMs: number;
}

/**
 * Adds `days` working days (Monday to Friday) of closed attendance to each employee with an id
 * in [firstId, lastId], ending yesterday in the employee's zone, none after a termination date:
 * in between 07:30 and 10:00 local time, out 7.5 to 9.5 hours later, a note now and then. Rows
 * go in batches, employee after employee (so the per-employee indexes fill in order), in one
 * transaction.
 */
export async function seedAttendance(
  db: Db,
  options: { firstId: number; lastId: number; days: number; now: Date; seed?: number },
): Promise<AttendanceSeedResult> {
  const random = new Random(options.seed ?? 20261123);
  const calendars = new Map<string, WorkingDay[]>();
  const calendarOf = (timeZone: string) => {
    let calendar = calendars.get(timeZone);
    if (!calendar) {
      calendar = workingDays(timeZone, options.days, options.now);
      calendars.set(timeZone, calendar);
    }
    return calendar;
  };

  const batchSize = BATCH_SIZE[dialectOf(db)];
  return db.transaction(async (trx) => {
    const employees = (await trx('employees')
      .whereBetween('id', [options.firstId, options.lastId])
      .orderBy('id')
      .select('id', 'timezone', 'termination_date')) as SeedEmployee[];
    let batch: Array<Record<string, unknown>> = [];
    let count = 0;
    // The next batch is built while the database inserts the previous one.
    let inserting: Promise<unknown> = Promise.resolve();
    const insert = async (rows: Array<Record<string, unknown>>) => {
      await inserting;
      // A Knex builder runs each time it is awaited: take its promise once.
      inserting = trx('attendance')
        .insert(rows)
        .then(() => undefined);
      // Awaited before the next batch or at the end; this only keeps a failure from going unhandled meanwhile.
      inserting.catch(() => undefined);
      count += rows.length;
    };
    for (const employee of employees) {
      for (const day of calendarOf(employee.timezone)) {
        if (employee.termination_date !== null && day.date > employee.termination_date) continue;
        batch.push(demoRecord(random, employee, day));
        if (batch.length === batchSize) {
          await insert(batch);
          batch = [];
        }
      }
    }
    if (batch.length > 0) await insert(batch);
    await inserting;
    // The months the records count in, marked changed as by every attendance write (a month
    // marked without a record, past a termination date, only costs an export tag a revision).
    await markAttendanceChanges(
      trx,
      employees.map((employee) => ({ employeeId: employee.id, dates: calendarOf(employee.timezone).map((day) => day.date) })),
    );
    return { count };
  });
}

/** The last `count` Mondays to Fridays before today in the zone, oldest first. */
function workingDays(timeZone: string, count: number, now: Date): WorkingDay[] {
  const days: WorkingDay[] = [];
  for (let date = addDays(todayIn(timeZone, now), -1); days.length < count; date = addDays(date, -1)) {
    const weekday = weekdayOf(date);
    if (weekday === 0 || weekday === 6) continue;
    // Clocks change at night; between 07:30 and 19:30 a day has one offset, read at noon.
    const noon = instantOfWallClock(timeZone, `${date} 12:00:00`);
    if (!noon) throw new Error(`${timeZone} skips noon on ${date}`);
    days.push({ date, offsetMs: Date.parse(`${date}T12:00:00Z`) - noon.getTime() });
  }
  return days.reverse();
}

function demoRecord(random: Random, employee: SeedEmployee, day: WorkingDay): Record<string, unknown> {
  const midnight = Date.parse(`${day.date}T00:00:00Z`);
  const inLocal = midnight + (7.5 * 3600 + random.int(0, 150) * 60 + random.int(0, 59)) * 1000;
  const outLocal = inLocal + (7.5 * 3600 + random.int(0, 120) * 60 + random.int(0, 59)) * 1000;
  const inUtc = sqlTime(inLocal - day.offsetMs);
  const outUtc = sqlTime(outLocal - day.offsetMs);
  return {
    employee_id: employee.id,
    in_time_utc: inUtc,
    in_time_local: sqlTime(inLocal),
    out_time_utc: outUtc,
    out_time_local: sqlTime(outLocal),
    timezone: employee.timezone,
    note: random.chance(0.05) ? random.pick(NOTES) : null,
    created_at: inUtc,
    updated_at: outUtc,
  };
}

/** Milliseconds of a reading as 'YYYY-MM-DD HH:MM:SS'. */
function sqlTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}
