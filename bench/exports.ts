// Pay-period exports under concurrency (issue 41): 1, 2, 4 and 8 exports of one period at once.
//
//   npm run bench:exports [-- --db mysql|sqlite --employees 20000 --export-concurrency 2]
//
// Seeds --employees employees (as `hrm seed`) with 20 working days of attendance each in October
// 2026 (bench/shifts.ts) on MariaDB/MySQL (BENCH_MYSQL_URL, default
// mysql://root@127.0.0.1:3306/hrm_bench_exports, dropped and recreated) or a fresh SQLite file,
// starts the real server (dist/src/main.js, EXPORT_CONCURRENCY as given) and, for each level,
// sends that many `GET /pay-periods/2026-10-01/export` at once with one admin token. It prints
// the answers' statuses (200, 429, 503, other), the time to the last byte of each accepted export
// (median, max) and the level's total time. Figures hold for one run: the machine may be shared.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/db/connect';
import { startApiServer } from './api-server';
import { Children, endBench } from './children';
import { createSqliteDatabase, recreateMysqlDatabase, runBench, withoutCredentials } from './databases';
import { prepareFixture } from './fixture';
import { seedShifts, weekdays, writeMonthlyPaySettings } from './shifts';

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : String(process.argv[index + 1]);
}

const DIALECT = option('db', 'mysql');
const EMPLOYEES = Number(option('employees', '20000'));
const EXPORT_CONCURRENCY = option('export-concurrency', '2');
const LEVELS = [1, 2, 4, 8];

/** One export's answer: its status and, when accepted, the seconds to its last byte. */
async function exportOnce(url: string, token: string): Promise<{ status: number; seconds: number; bytes: number }> {
  const started = process.hrtime.bigint();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  let bytes = 0;
  if (response.body) for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return { status: response.status, seconds: Number(process.hrtime.bigint() - started) / 1e9, bytes };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  const url = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/hrm_bench_exports';
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-bench-exports-'));
  const children = new Children();
  let failed = false;
  try {
    const database = DIALECT === 'sqlite' ? createSqliteDatabase(workDir) : await recreateMysqlDatabase(url);
    const seedStarted = process.hrtime.bigint();
    const fixture = await prepareFixture(database.config, EMPLOYEES, 0);
    const ids = Array.from({ length: fixture.employees.lastId - fixture.employees.firstId + 1 }, (_, n) => fixture.employees.firstId + n);
    const db = openDatabase(database.config);
    let records: number;
    try {
      records = await seedShifts(db, ids, weekdays(2026, 10, 20));
      await writeMonthlyPaySettings(db);
    } finally {
      await db.destroy();
    }
    const seedSeconds = Number(process.hrtime.bigint() - seedStarted) / 1e9;

    const { child: server, api } = await startApiServer(children, 'the server', {
      databaseUrl: database.url,
      workDir,
      logFile: path.join(workDir, 'server.log'),
      env: { EXPORT_CONCURRENCY },
    });
    const exportUrl = `${api}/pay-periods/2026-10-01/export`;
    // One unmeasured export first, so that every level meets a warm server and database.
    const warm = await exportOnce(exportUrl, fixture.token);
    if (warm.status !== 200) throw new Error(`the warm-up export answered ${warm.status}`);

    const rows: string[] = [];
    const loads: string[] = [];
    for (const level of LEVELS) {
      loads.push(os.loadavg()[0]!.toFixed(2));
      const started = process.hrtime.bigint();
      const answers = await Promise.all(Array.from({ length: level }, () => exportOnce(exportUrl, fixture.token)));
      const total = Number(process.hrtime.bigint() - started) / 1e9;
      const count = (test: (status: number) => boolean) => answers.filter((answer) => test(answer.status)).length;
      const accepted = answers.filter((answer) => answer.status === 200);
      const short = accepted.filter((answer) => answer.bytes !== warm.bytes).length;
      const times = accepted.map((answer) => answer.seconds);
      rows.push(
        `| ${level} | ${count((s) => s === 200)} | ${count((s) => s === 429)} | ${count((s) => s === 503)} | ${count((s) => ![200, 429, 503].includes(s)) + short} | ${times.length ? median(times).toFixed(2) : '-'} | ${times.length ? Math.max(...times).toFixed(2) : '-'} | ${total.toFixed(2)} |`,
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    await children.stop(server);

    process.stdout.write(
      [
        `Exports under concurrency on ${database.label}${database.dialect === 'mysql' ? ` (${withoutCredentials(url)})` : ''}, ${os.cpus().length} cores, EXPORT_CONCURRENCY=${EXPORT_CONCURRENCY}: ${EMPLOYEES} employees, ${records} records in the period (seeded in ${seedSeconds.toFixed(1)} s); one export is ${warm.bytes} bytes, ${warm.seconds.toFixed(2)} s warming up; 1-minute load average before each level: ${loads.join(', ')}`,
        '',
        '| exports at once | 200 | 429 | 503 | other (or cut short) | last byte, median (s) | last byte, max (s) | total (s) |',
        '|---|---|---|---|---|---|---|---|',
        ...rows,
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
