// Pay periods: the payroll export against a bare streaming script, the server's memory while it
// exports, and the timesheet list against the employee list.
//
//   npm run bench:pay-periods [-- --employees 10000 --rounds 3]
//
// On MariaDB/MySQL (BENCH_MYSQL_URL, default mysql://root@127.0.0.1:3306/hrm_bench_pay_periods,
// dropped and recreated): seeds --employees employees (as `hrm seed`), then with bulk inserts 20
// working days of attendance each in October 2026 (8 to 9.5 hours a day, so that the daily 8/12
// and weekly 40 rules classify some as overtime) and the same for the first 1,000 employees in
// September 2026; starts the real server (dist/src/main.js) and the baseline
// (pay-periods-baseline.js: node:http + mysql2 streaming the same records as CSV, unclassified),
// and then:
//   1. memory: the server's RSS (sampled every 10 ms) while it exports September (1,000
//      employees, its first export), then October (all of them) twice, less its RSS just before;
//   2. time: the CSV export of October against the baseline's stream of the same records,
//      alternated --rounds times (medians);
//   3. GET /timesheets?period=2026-10-01&limit=50 next to GET /employees?limit=50 (autocannon,
//      4 connections), alternated;
//   4. every export template (docs/pay-periods.md, "Export profiles"): a profile made from each
//      (payroll ids set for everyone first), October exported in it --rounds times after the
//      default export, alternated; seconds against the baseline and the server's RSS growth.
//   5. three pay groups with every rule of CONTRACT 6.5 on (meal breaks, rounding, exempt, the
//      seventh-day rule), the employees split over them: each group's October export
//      (`?group=`) in turn, their seconds summed, against the baseline's stream of October.
// Ratios hold within one run only: the machine may be shared.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/db/connect';
import { HOST, startApiServer } from './api-server';
import { Children, endBench, freePort } from './children';
import { recreateMysqlDatabase, runBench, withoutCredentials } from './databases';
import { prepareFixture } from './fixture';
import { measure, type Measurement } from './load';
import { seedShifts, weekdays, writeMonthlyPaySettings } from './shifts';

const BASELINE_SCRIPT = path.join(__dirname, 'pay-periods-baseline.js');

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const EMPLOYEES = option('employees', 10_000);
const ROUNDS = option('rounds', 3);
const SMALL = Math.min(1000, EMPLOYEES);
const DAYS = 20;

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]) / 1024;
}

/** Fetches `url` and reads its body to the end; seconds, bytes and the peak RSS of `pid` meanwhile. */
async function download(url: string, token: string | undefined, pid?: number): Promise<{ seconds: number; bytes: number; peakMb: number }> {
  let peakMb = pid === undefined ? 0 : rssMb(pid);
  const sampler = pid === undefined ? undefined : setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), 10);
  const started = process.hrtime.bigint();
  try {
    const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    if (response.status !== 200 || !response.body) throw new Error(`${url} answered ${response.status}`);
    let bytes = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    return { seconds: Number(process.hrtime.bigint() - started) / 1e9, bytes, peakMb };
  } catch (error) {
    throw new Error(`${url}: ${(error as Error).message} after ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)} s`, {
      cause: error,
    });
  } finally {
    if (sampler) clearInterval(sampler);
    if (pid !== undefined) peakMb = Math.max(peakMb, rssMb(pid));
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  const url = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/hrm_bench_pay_periods';
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-bench-pay-periods-'));
  const children = new Children();
  let failed = false;
  try {
    const database = await recreateMysqlDatabase(url);
    const fixture = await prepareFixture(database.config, EMPLOYEES, 0);
    const ids = Array.from({ length: fixture.employees.lastId - fixture.employees.firstId + 1 }, (_, n) => fixture.employees.firstId + n);
    const db = openDatabase(database.config);
    const seedStarted = process.hrtime.bigint();
    let records = 0;
    try {
      records += await seedShifts(db, ids, weekdays(2026, 10, DAYS));
      records += await seedShifts(db, ids.slice(0, SMALL), weekdays(2026, 9, DAYS));
      await writeMonthlyPaySettings(db);
      // Payroll ids for everyone, so that the templates write what a real file holds.
      await db.raw("UPDATE employees SET payroll_id = CONCAT('P', id)");
    } finally {
      await db.destroy();
    }
    const seedSeconds = Number(process.hrtime.bigint() - seedStarted) / 1e9;

    const { child: server, api } = await startApiServer(children, 'the server', {
      databaseUrl: database.url,
      workDir,
      logFile: path.join(workDir, 'server.log'),
    });
    const baselinePort = await freePort(HOST);
    const baseline = children.start('the baseline', BASELINE_SCRIPT, {
      env: { PATH: process.env.PATH, NODE_ENV: 'production', DATABASE_URL: database.url, HOST, PORT: String(baselinePort) },
      cwd: workDir,
      logFile: path.join(workDir, 'baseline.log'),
    });
    await new Promise((resolve) => setTimeout(resolve, 500));

    // 1. Memory, on a server that has exported nothing yet.
    const memory: Array<{ label: string; employees: number; before: number; peak: number; bytes: number; seconds: number }> = [];
    for (const [start, employees] of [
      ['2026-09-01', SMALL],
      ['2026-10-01', EMPLOYEES],
      ['2026-10-01', EMPLOYEES],
    ] as const) {
      const before = rssMb(server.pid);
      const result = await download(`${api}/pay-periods/${start}/export`, fixture.token, server.pid);
      memory.push({
        label: start === '2026-09-01' ? 'September (the first export)' : memory.length === 1 ? 'October' : 'October again',
        employees,
        before,
        peak: result.peakMb,
        bytes: result.bytes,
        seconds: result.seconds,
      });
    }

    // 2. Time: the export against the baseline, alternated.
    const serverSeconds: number[] = [];
    const baselineSeconds: number[] = [];
    let exportBytes = 0;
    let baselineBytes = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const ours = await download(`${api}/pay-periods/2026-10-01/export`, fixture.token);
      const bare = await download(`http://${HOST}:${baselinePort}/?from=2026-10-01&to=2026-10-31`, undefined);
      serverSeconds.push(ours.seconds);
      baselineSeconds.push(bare.seconds);
      exportBytes = ours.bytes;
      baselineBytes = bare.bytes;
    }

    // 3. The timesheet list next to the employee list, alternated.
    const shape = { connections: 4, warmupSeconds: 2, durationSeconds: 10 };
    const headers = { authorization: `Bearer ${fixture.token}` };
    const sheets: Measurement[] = [];
    const employeeLists: Measurement[] = [];
    for (let round = 0; round < 2; round++) {
      sheets.push(await measure({ url: `${api}/timesheets?period=2026-10-01&limit=50`, method: 'GET', headers }, shape));
      employeeLists.push(await measure({ url: `${api}/employees?limit=50`, method: 'GET', headers }, shape));
    }
    // 4. Every template, in a profile made from it, against the baseline (alternated).
    const templates: Array<{ id: string; seconds: number[]; bare: number[]; bytes: number; growth: number }> = [];
    const constants: Record<string, Record<string, string>> = {
      'adp-workforce-now': { co_code: 'X7K', batch_id: '4500' },
      'paychex-flex': { client_id: '70012345' },
    };
    for (const template of ['default', 'gusto', 'adp-workforce-now', 'quickbooks-online', 'paychex-flex']) {
      const made = await fetch(`${api}/export-profiles`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ template, name: `bench ${template}`, constants: constants[template] ?? {} }),
      });
      if (made.status !== 201) throw new Error(`POST /export-profiles answered ${made.status}`);
      const { id } = (await made.json()) as { id: string };
      const row = { id: template, seconds: [] as number[], bare: [] as number[], bytes: 0, growth: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const before = rssMb(server.pid);
        const result = await download(`${api}/pay-periods/2026-10-01/export?profile=${id}`, fixture.token, server.pid);
        row.growth = Math.max(row.growth, result.peakMb - before);
        row.seconds.push(result.seconds);
        row.bytes = result.bytes;
        row.bare.push((await download(`http://${HOST}:${baselinePort}/?from=2026-10-01&to=2026-10-31`, undefined)).seconds);
      }
      templates.push(row);
    }

    // 5. Three groups and every rule of CONTRACT 6.5 on: the employees split over group 1 (meal
    // break, 15-minute rounding), group 2 (exempt) and group 3 (meal break, 6-minute rounding,
    // daily, weekly and seventh-day rules, workweeks from Sunday); October exported group by
    // group, the three files' time summed per round, against the baseline's stream of the same
    // records (all of October).
    const write = async (method: string, pathName: string, body: object) => {
      const res = await fetch(`${api}${pathName}`, {
        method,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${method} ${pathName} answered ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: string };
    };
    await write('PATCH', '/pay-groups/1', { meal_break: { after_hours: 6, minutes: 30 }, rounding: { minutes: 15 } });
    const exempt = await write('POST', '/pay-groups', { name: 'Salaried', frequency: 'monthly', exempt: true });
    const hourly = await write('POST', '/pay-groups', {
      name: 'Hourly, California rules',
      frequency: 'monthly',
      workweek_start: 'sunday',
      meal_break: { after_hours: 5, minutes: 30 },
      rounding: { minutes: 6 },
      overtime: { daily_after_hours: 8, daily_double_after_hours: 12, weekly_after_hours: 40, seventh_day: true },
    });
    const groupDb = openDatabase(database.config);
    try {
      await groupDb.raw('UPDATE employees SET pay_group_id = CASE MOD(id, 3) WHEN 1 THEN ? WHEN 2 THEN ? ELSE 1 END', [
        Number(exempt.id),
        Number(hourly.id),
      ]);
    } finally {
      await groupDb.destroy();
    }
    const groupExports = [
      { group: '1', start: '2026-10-01' },
      { group: exempt.id, start: '2026-10-01' },
      { group: hourly.id, start: '2026-10-01' },
    ].map(({ group, start }) => `${api}/pay-periods/${start}/export?group=${group}`);
    const grouped = { seconds: [] as number[], bare: [] as number[], bytes: 0, growth: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      let seconds = 0;
      let bytes = 0;
      for (const url of groupExports) {
        const before = rssMb(server.pid);
        const result = await download(url, fixture.token, server.pid);
        grouped.growth = Math.max(grouped.growth, result.peakMb - before);
        seconds += result.seconds;
        bytes += result.bytes;
      }
      grouped.seconds.push(seconds);
      grouped.bytes = bytes;
      grouped.bare.push((await download(`http://${HOST}:${baselinePort}/?from=2026-10-01&to=2026-10-31`, undefined)).seconds);
    }
    await children.stop(server);
    await children.stop(baseline);

    const ours = median(serverSeconds);
    const bare = median(baselineSeconds);
    const list = (rounds: Measurement[]) => ({
      rps: median(rounds.map((round) => round.requestsPerSecond)),
      p50: median(rounds.map((round) => round.p50Ms)),
      failures: rounds.reduce((sum, round) => sum + round.failures, 0),
    });
    const sheetList = list(sheets);
    const employeeList = list(employeeLists);
    process.stdout.write(
      [
        `Pay periods on ${database.label} (${withoutCredentials(url)}), ${os.cpus().length} cores: ${EMPLOYEES} employees, ${records} records (seeded in ${seedSeconds.toFixed(1)} s)`,
        '',
        '| export | employees | bytes | seconds | RSS before (MB) | RSS peak (MB) | growth (MB) |',
        '|---|---|---|---|---|---|---|',
        ...memory.map(
          (row) =>
            `| ${row.label} | ${row.employees} | ${row.bytes} | ${row.seconds.toFixed(2)} | ${row.before.toFixed(0)} | ${row.peak.toFixed(0)} | ${(row.peak - row.before).toFixed(1)} |`,
        ),
        '',
        `| October, ${EMPLOYEES} employees (median of ${ROUNDS}) | bytes | seconds | ratio |`,
        '|---|---|---|---|',
        `| the server's CSV export (classified) | ${exportBytes} | ${ours.toFixed(2)} | ${(ours / bare).toFixed(2)}x |`,
        `| baseline: node:http + mysql2 streaming the records | ${baselineBytes} | ${bare.toFixed(2)} | 1.00x |`,
        `| rounds (server / baseline) | | ${serverSeconds.map((s, n) => `${s.toFixed(2)}/${(baselineSeconds[n] as number).toFixed(2)}`).join(', ')} | |`,
        '',
        '| list, page of 50 (4 connections, median of 2) | req/s | p50 ms | failures |',
        '|---|---|---|---|',
        `| GET /timesheets?period=2026-10-01&limit=50 | ${sheetList.rps.toFixed(0)} | ${sheetList.p50.toFixed(1)} | ${sheetList.failures} |`,
        `| GET /employees?limit=50 | ${employeeList.rps.toFixed(0)} | ${employeeList.p50.toFixed(1)} | ${employeeList.failures} |`,
        '',
        `| October in a profile made from each template (median of ${ROUNDS}) | bytes | seconds | baseline seconds | ratio | RSS growth, worst (MB) |`,
        '|---|---|---|---|---|---|',
        ...templates.map(
          (row) =>
            `| ${row.id} | ${row.bytes} | ${median(row.seconds).toFixed(2)} | ${median(row.bare).toFixed(2)} | ${(median(row.seconds) / median(row.bare)).toFixed(2)}x | ${row.growth.toFixed(1)} |`,
        ),
        '',
        `| three groups, every rule on: the three exports together (median of ${ROUNDS}) | bytes | seconds | baseline seconds (all of October) | ratio | RSS growth, worst (MB) |`,
        '|---|---|---|---|---|---|',
        `| groups 1 (meal break, rounding), 2 (exempt), 3 (meal break, rounding, seventh day) | ${grouped.bytes} | ${median(grouped.seconds).toFixed(2)} | ${median(grouped.bare).toFixed(2)} | ${(median(grouped.seconds) / median(grouped.bare)).toFixed(2)}x | ${grouped.growth.toFixed(1)} |`,
        '',
      ].join('\n'),
    );
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await endBench(children, workDir, failed, ['server.log', 'baseline.log']);
  }
}

runBench(main);
