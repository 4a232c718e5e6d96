// Day status at scale (docs/schedules.md, docs/performance.md "Day status"): GET /days, computed
// at the read, against the timesheet list, which reads the same records and classifies them.
//
//   npm run bench:days [-- --employees 10000 --department 2100 --rounds 2]
//
// On MariaDB/MySQL (BENCH_MYSQL_URL, default mysql://root@127.0.0.1:3306/hrm_bench_days, dropped
// and recreated): seeds --employees employees (as `hrm seed`), then in bulk one published shift
// (08:00-16:00 UTC) per employee and weekday of October 2026, and attendance for nine in ten of
// those shifts (the tenth is an absence); the first --department employees form one department.
// Starts the real server (dist/src/main.js) and measures, alternated --rounds times (medians):
//   1. one page: GET /days?date=2026-10-15&limit=50 against GET /timesheets?period=2026-10-01&limit=50
//      (autocannon, 4 connections), and GET /days?...&status=absent and &status=present (status
//      filters: the candidates narrowed in SQL, every candidate computed; one connection each);
//   2. the department over the month: every page (limit 200) of GET /days for each of October's
//      31 dates, against every page of the department's October timesheets; seconds, and the
//      server's RSS growth meanwhile.
// Ratios hold within one run only: the machine may be shared.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from '../src/db/connect';
import { addDays } from '../src/time';
import { startApiServer } from './api-server';
import { Children, endBench } from './children';
import { recreateMysqlDatabase, runBench, withoutCredentials } from './databases';
import { prepareFixture } from './fixture';
import { measure, type Measurement } from './load';
import { seedShifts, weekdays, writeMonthlyPaySettings } from './shifts';

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const EMPLOYEES = option('employees', 10_000);
const DEPARTMENT = Math.min(option('department', 2_100), EMPLOYEES);
const ROUNDS = option('rounds', 2);
const DATE = '2026-10-15';
const PERIOD = '2026-10-01';
const PAGE = 200;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]) / 1024;
}

/** One published shift per employee and date, 08:00-16:00 UTC, in bulk, as POST /shifts stores it; returns how many. */
async function seedPlannedShifts(db: Db, ids: number[], dates: string[]): Promise<number> {
  const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
  let rows: Array<Record<string, unknown>> = [];
  let count = 0;
  const flush = async () => {
    if (rows.length > 0) await db('shifts').insert(rows);
    count += rows.length;
    rows = [];
  };
  for (const id of ids)
    for (const date of dates) {
      rows.push({
        employee_id: id,
        date,
        start_local: `${date}T08:00`,
        end_local: `${date}T16:00`,
        timezone: 'UTC',
        start_utc: `${date} 08:00:00`,
        end_utc: `${date} 16:00:00`,
        unpaid_break_minutes: 0,
        late_grace_minutes: 5,
        early_exit_grace_minutes: 0,
        check_in_window_minutes: 60,
        check_out_window_minutes: 60,
        status: 'published',
        version: 1,
        created_at: now,
        updated_at: now,
      });
      if (rows.length >= 2000) await flush();
    }
  await flush();
  return count;
}

/** Reads every page of `first` (a URL ending in `&page=`) to the end; seconds and the server's peak RSS meanwhile. */
async function allPages(first: string, token: string, pid: number): Promise<{ seconds: number; rows: number; peakMb: number }> {
  let peakMb = rssMb(pid);
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), 10);
  const started = process.hrtime.bigint();
  let rows = 0;
  try {
    for (let page = 1; ; page++) {
      const response = await fetch(`${first}${page}`, { headers: { authorization: `Bearer ${token}` } });
      if (response.status !== 200) throw new Error(`${first}${page} answered ${response.status}`);
      const body = (await response.json()) as { data: unknown[]; nextPage: number | null };
      rows += body.data.length;
      if (body.nextPage === null) break;
    }
    return { seconds: Number(process.hrtime.bigint() - started) / 1e9, rows, peakMb };
  } finally {
    clearInterval(sampler);
  }
}

async function main(): Promise<void> {
  const url = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/hrm_bench_days';
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-bench-days-'));
  const children = new Children();
  let failed = false;
  try {
    const database = await recreateMysqlDatabase(url);
    const fixture = await prepareFixture(database.config, EMPLOYEES, 0);
    const ids = Array.from({ length: fixture.employees.lastId - fixture.employees.firstId + 1 }, (_, n) => fixture.employees.firstId + n);
    const dates = weekdays(2026, 10, 22);
    const db = openDatabase(database.config);
    const seedStarted = process.hrtime.bigint();
    let shifts = 0;
    let records = 0;
    let department = 0;
    try {
      shifts = await seedPlannedShifts(db, ids, dates);
      // seedShifts writes attendance 08:00 to 16:00-17:30 UTC; every tenth employee never comes.
      records = await seedShifts(
        db,
        ids.filter((id) => id % 10 !== 0),
        dates,
      );
      await writeMonthlyPaySettings(db);
      department = Number((await db('departments').insert({ name: 'Bench days' }))[0]);
      await db('employees')
        .whereBetween('id', [ids[0] as number, ids[DEPARTMENT - 1] as number])
        .update({ department_id: department });
      // Fresh statistics after the bulk inserts, as a database that grew by use would have: with
      // stale ones MariaDB read the page's shifts through the date index, several times slower.
      await db.raw('ANALYZE TABLE employees, shifts, attendance');
    } finally {
      await db.destroy();
    }
    const seedSeconds = Number(process.hrtime.bigint() - seedStarted) / 1e9;

    const { child: server, api } = await startApiServer(children, 'the server', {
      databaseUrl: database.url,
      workDir,
      logFile: path.join(workDir, 'server.log'),
    });

    // 1. One page, alternated (each first in every other round); the status filters on one connection.
    const shape = { connections: 4, warmupSeconds: 3, durationSeconds: 8 };
    const headers = { authorization: `Bearer ${fixture.token}` };
    const pages: Record<'days' | 'absent' | 'present' | 'sheets', Measurement[]> = { days: [], absent: [], present: [], sheets: [] };
    const daysPage = () => measure({ url: `${api}/days?date=${DATE}&limit=50`, method: 'GET', headers }, shape);
    const sheetsPage = () => measure({ url: `${api}/timesheets?period=${PERIOD}&limit=50`, method: 'GET', headers }, shape);
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) pages.days.push(await daysPage());
      pages.sheets.push(await sheetsPage());
      if (round % 2 === 1) pages.days.push(await daysPage());
      for (const status of ['absent', 'present'] as const)
        pages[status].push(
          await measure(
            { url: `${api}/days?date=${DATE}&status=${status}&limit=50`, method: 'GET', headers },
            { connections: 1, warmupSeconds: 0, durationSeconds: 12 },
          ),
        );
    }

    // 2. The department over the month, alternated.
    const month: Array<{ days: Awaited<ReturnType<typeof allPages>>; sheets: Awaited<ReturnType<typeof allPages>>; before: number }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const before = rssMb(server.pid);
      let dayRows = 0;
      let daySeconds = 0;
      let dayPeak = before;
      for (let date = PERIOD; date <= '2026-10-31'; date = addDays(date, 1)) {
        const result = await allPages(`${api}/days?date=${date}&department=${department}&limit=${PAGE}&page=`, fixture.token, server.pid);
        dayRows += result.rows;
        daySeconds += result.seconds;
        dayPeak = Math.max(dayPeak, result.peakMb);
      }
      const sheets = await allPages(
        `${api}/timesheets?period=${PERIOD}&department=${department}&limit=${PAGE}&page=`,
        fixture.token,
        server.pid,
      );
      month.push({ days: { seconds: daySeconds, rows: dayRows, peakMb: dayPeak }, sheets, before });
    }
    await children.stop(server);

    const list = (rounds: Measurement[]) => ({
      rps: median(rounds.map((round) => round.requestsPerSecond)),
      p50: median(rounds.map((round) => round.p50Ms)),
      failures: rounds.reduce((sum, round) => sum + round.failures, 0),
    });
    const days = list(pages.days);
    const absent = list(pages.absent);
    const present = list(pages.present);
    const sheets = list(pages.sheets);
    const daysMonth = median(month.map((round) => round.days.seconds));
    const sheetsMonth = median(month.map((round) => round.sheets.seconds));
    const growth = (peak: (round: (typeof month)[number]) => number) => Math.max(...month.map((round) => peak(round) - round.before));
    process.stdout.write(
      [
        `Day status on ${database.label} (${withoutCredentials(url)}), ${os.cpus().length} cores: ${EMPLOYEES} employees, ${shifts} published shifts, ${records} records (seeded in ${seedSeconds.toFixed(1)} s)`,
        '',
        `| one page of 50 (4 connections, median of ${ROUNDS}) | req/s | p50 ms | failures | against the timesheet page |`,
        '|---|---|---|---|---|',
        `| GET /days?date=${DATE}&limit=50 | ${days.rps.toFixed(1)} | ${days.p50.toFixed(1)} | ${days.failures} | ${(days.rps / sheets.rps).toFixed(2)}x req/s, ${(days.p50 / sheets.p50).toFixed(2)}x p50 |`,
        `| GET /timesheets?period=${PERIOD}&limit=50 | ${sheets.rps.toFixed(1)} | ${sheets.p50.toFixed(1)} | ${sheets.failures} | 1.00x |`,
        ...(['absent', 'present'] as const).map((status) => {
          const row = { absent, present }[status];
          return `| GET /days?date=${DATE}&status=${status}&limit=50 (the candidates computed; one connection) | ${row.rps.toFixed(2)} | ${row.p50.toFixed(1)} | ${row.failures} | ${(row.rps / sheets.rps).toFixed(2)}x req/s, ${(row.p50 / sheets.p50).toFixed(2)}x p50 |`;
        }),
        '',
        `| the ${DEPARTMENT}-employee department, October, pages of ${PAGE} (median of ${ROUNDS}) | rows | seconds | ratio | server RSS growth, worst (MB) |`,
        '|---|---|---|---|---|',
        `| GET /days, each of the 31 dates, every page | ${month[0]?.days.rows} | ${daysMonth.toFixed(2)} | ${(daysMonth / sheetsMonth).toFixed(2)}x | ${growth((round) => round.days.peakMb).toFixed(1)} |`,
        `| GET /timesheets?period=${PERIOD}, every page | ${month[0]?.sheets.rows} | ${sheetsMonth.toFixed(2)} | 1.00x | ${growth((round) => round.sheets.peakMb).toFixed(1)} |`,
        `| rounds (days / timesheets, s) | | ${month.map((round) => `${round.days.seconds.toFixed(2)}/${round.sheets.seconds.toFixed(2)}`).join(', ')} | | |`,
        '',
      ].join('\n'),
    );
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await endBench(children, workDir, failed);
  }
}

runBench(main);
