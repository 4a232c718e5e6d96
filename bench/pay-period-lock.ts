// The pay-period lock and what its period end adds (docs/performance.md, "Locking a period"):
// the wall clocks read (every employee's time zone) and the records without an out_time.
//
//   npm run bench:lock [-- --employees 10000 --rounds 5 --open 100]
//
// On MariaDB/MySQL (BENCH_MYSQL_URL, default mysql://root@127.0.0.1:3306/hrm_bench_lock, dropped
// and recreated): seeds --employees employees (as `hrm seed`) and 20 working days of shifts each in
// October 2026, then, alternated --rounds times (medians):
//   1. the lock of October with no open record, then its unlock;
//   2. the same with --open employees punched in on October 31 and never out, locked with
//      allow_open_records (they become missed punch-outs), then unlocked and opened again;
//   3. the reads the period end added, alone: the distinct time zones of the employees, the
//      period's open records, and all its records without an out_time.
import { openDatabase } from '../src/db/connect';
import { toSqlDateTime } from '../src/db/sql-time';
import { lockPayPeriod, unlockPayPeriod } from '../src/pay-periods/lock';
import { unclosedRecordsOf } from '../src/pay-periods/open-records';
import { recreateMysqlDatabase, runBench, withoutCredentials } from './databases';
import { prepareFixture } from './fixture';
import { seedShifts, weekdays } from './shifts';

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const EMPLOYEES = option('employees', 10_000);
const ROUNDS = option('rounds', 5);
const OPEN = option('open', 100);
const OCTOBER = { start: '2026-10-01', end: '2026-10-31' };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function millis(run: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

runBench(async () => {
  const url = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/hrm_bench_lock';
  const database = await recreateMysqlDatabase(url);
  const fixture = await prepareFixture(database.config, EMPLOYEES, 0);
  const ids = Array.from({ length: fixture.employees.lastId - fixture.employees.firstId + 1 }, (_, n) => fixture.employees.firstId + n);
  const db = openDatabase(database.config);
  try {
    const records = await seedShifts(db, ids, weekdays(2026, 10, 20));
    const punchedIn = ids.slice(0, OPEN);
    const stamp = toSqlDateTime(new Date());
    for (const id of punchedIn) {
      await db('attendance').insert({
        employee_id: id,
        in_time_utc: '2026-10-31 10:00:00',
        in_time_local: '2026-10-31 10:00:00',
        timezone: 'UTC',
        open_employee_id: id,
        created_at: stamp,
        updated_at: stamp,
      });
    }
    const openAgain = () =>
      db('attendance')
        .where('in_time_local', '2026-10-31 10:00:00')
        .update({ missed_punch_out: false, open_employee_id: db.raw('employee_id') });
    const context = { caller: undefined, now: new Date(), defaultTimezone: 'UTC' };
    const lockAndUnlock = async (allowOpenRecords: boolean) => {
      const took = await millis(() => db.transaction((trx) => lockPayPeriod(trx, OCTOBER.start, { ...context, allowOpenRecords })));
      await db.transaction((trx) => unlockPayPeriod(trx, OCTOBER.start, context));
      return took;
    };

    const times = {
      none: [] as number[],
      open: [] as number[],
      zones: [] as number[],
      openReads: [] as number[],
      allReads: [] as number[],
    };
    for (let round = 0; round < ROUNDS; round++) {
      // Without open records: the punched-in rows are moved out of the period for this lock.
      await db('attendance').where('in_time_local', '2026-10-31 10:00:00').update({ in_time_local: '2026-11-01 10:00:00' });
      times.none.push(await lockAndUnlock(false));
      await db('attendance').where('in_time_local', '2026-11-01 10:00:00').update({ in_time_local: '2026-10-31 10:00:00' });
      await openAgain();
      times.open.push(await lockAndUnlock(true));
      await openAgain();
      times.zones.push(await millis(() => db('employees').distinct('timezone').pluck('timezone')));
      times.openReads.push(await millis(() => unclosedRecordsOf(db, OCTOBER, 'open', 1)));
      times.allReads.push(await millis(() => unclosedRecordsOf(db, OCTOBER, 'all', 1)));
    }
    const f = (ms: number) => `${ms.toFixed(1)} ms`;
    process.stdout.write(
      [
        `pay-period lock on ${database.label} (${withoutCredentials(url)}): ${EMPLOYEES} employees, ${records + OPEN} records in October, ${ROUNDS} rounds, medians`,
        `| what | median | rounds |`,
        `|---|---|---|`,
        `| lock of October, no open record | ${f(median(times.none))} | ${times.none.map(f).join(', ')} |`,
        `| lock of October, allow_open_records, ${OPEN} made missed punch-outs | ${f(median(times.open))} | ${times.open.map(f).join(', ')} |`,
        `| the employees' distinct time zones | ${f(median(times.zones))} | ${times.zones.map(f).join(', ')} |`,
        `| the period's open records (${OPEN}) | ${f(median(times.openReads))} | ${times.openReads.map(f).join(', ')} |`,
        `| the period's records without an out_time (${OPEN}) | ${f(median(times.allReads))} | ${times.allReads.map(f).join(', ')} |`,
        '',
      ].join('\n'),
    );
  } finally {
    await db.destroy();
  }
});
