/**
 * `npm run bench:import`: how fast `hrm import icehrm` copies an IceHrm database. Builds an IceHrm
 * 26 database on the MySQL/MariaDB server of BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306;
 * a schema of its own, dropped afterwards) with --employees employees (default 10,000) and
 * --attendance records (default 1,000,000) spread evenly over them, then imports it into a fresh
 * SQLite file and a fresh MariaDB schema, and prints rows per second for the employees, the
 * attendance and the whole run, and the time of a second run (which changes nothing).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { systemClock } from '../src/clock';
import { type Db, openDatabase } from '../src/db/connect';
import { importIcehrm } from '../src/import/icehrm-import';
import { openIcehrmSource } from '../src/import/icehrm-source';
import type { ImportProgress, TableCounts } from '../src/import/report';
import { openInstance } from '../src/instances/instance';
import { createIcehrmDatabase } from '../support/icehrm-schema';

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const EMPLOYEES = option('employees', 10_000);
const ATTENDANCE = option('attendance', 1_000_000);
/** The server only: the bench makes schemas of its own on it (a database named in BENCH_MYSQL_URL is not used). */
const SERVER_URL = (() => {
  const url = new URL(process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/');
  url.pathname = '/';
  return url.toString();
})();

/** Seconds each table took, from the previous table's end. */
class Timer implements ImportProgress {
  readonly seconds = new Map<string, number>();
  private last = process.hrtime.bigint();

  tableDone(table: string, _counts: TableCounts): void {
    const now = process.hrtime.bigint();
    this.seconds.set(table, Number(now - this.last) / 1e9);
    this.last = now;
  }

  running(): void {}
}

async function fillIcehrm(): Promise<Awaited<ReturnType<typeof createIcehrmDatabase>>> {
  const started = Date.now();
  const source = await createIcehrmDatabase(SERVER_URL);
  await source.insert('Migrations', [{ file: 'v20240101_260004_latest', version: 260004, status: 'Up' }]);
  await source.insert('CompanyStructures', [
    { id: 1, title: 'Company', description: '', type: 'Company', country: 'US', parent: null, timezone: 'America/New_York' },
    { id: 2, title: 'Berlin', description: '', type: 'Regional Office', country: 'DE', parent: 1, timezone: 'Europe/Berlin' },
  ]);
  await source.insert('JobTitles', [{ id: 1, code: 'SE', name: 'Software Engineer' }]);
  const employees = Array.from({ length: EMPLOYEES }, (_, index) => ({
    id: index + 1,
    employee_id: `E${index + 1}`,
    first_name: `First${index}`,
    last_name: `Last${index}`,
    work_email: `e${index + 1}@example.com`,
    birthday: '1985-04-0' + ((index % 9) + 1),
    joined_date: '2020-01-01',
    department: (index % 2) + 1,
    job_title: 1,
    supervisor: index < 100 ? null : (index % 100) + 1,
    status: 'Active',
  }));
  await source.insert('Employees', employees, 5000);
  const perEmployee = Math.ceil(ATTENDANCE / EMPLOYEES);
  let id = 1;
  for (let first = 0; first < EMPLOYEES; first += 100) {
    const rows: Array<Record<string, unknown>> = [];
    for (let employee = first; employee < Math.min(EMPLOYEES, first + 100); employee++) {
      for (let day = 0; day < perEmployee && id <= ATTENDANCE; day++) {
        // One shift a day, counting back from 2026-06-30.
        const date = new Date(Date.UTC(2026, 5, 30 - day)).toISOString().slice(0, 10);
        rows.push({
          id: id++,
          employee: employee + 1,
          in_time: `${date} 08:${String(employee % 60).padStart(2, '0')}:00`,
          out_time: `${date} 17:00:00`,
          note: day % 20 === 0 ? 'Visit' : null,
        });
      }
    }
    await source.insert('Attendance', rows, 5000);
  }
  console.log(
    `IceHrm database: ${EMPLOYEES} employees, ${id - 1} attendance records, filled in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  return source;
}

async function importInto(label: string, db: Db, sourceUrl: string): Promise<void> {
  const instance = await openInstance(db, { clock: systemClock });
  const { defaultTimezone, maxShiftHours, punchFutureToleranceSeconds } = await instance.settings.get();
  for (const run of ['first run', 'second run']) {
    const source = await openIcehrmSource(sourceUrl);
    const timer = new Timer();
    const started = process.hrtime.bigint();
    const report = await importIcehrm(
      source,
      db,
      {
        dryRun: false,
        merge: false,
        now: new Date(),
        fallbackTimezone: defaultTimezone,
        attendance: { maxShiftHours, punchFutureToleranceSeconds },
      },
      timer,
    );
    const total = Number(process.hrtime.bigint() - started) / 1e9;
    await source.close();
    const rowsOf = (table: string) => {
      const counts = report.tables.get(table)!;
      return counts.read;
    };
    const rate = (table: string) => Math.round(rowsOf(table) / timer.seconds.get(table)!);
    const read = [...report.tables.values()].reduce((sum, counts) => sum + counts.read, 0);
    console.log(
      `${label.padEnd(18)} ${run.padEnd(11)} employees ${String(rate('employees')).padStart(7)} rows/s   attendance ${String(rate('attendance')).padStart(7)} rows/s   ` +
        `all ${String(Math.round(read / total)).padStart(7)} rows/s   ${total.toFixed(1)} s, ${report.written} rows written, ${report.rejects.length} left out`,
    );
  }
}

async function main(): Promise<void> {
  const source = await fillIcehrm();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-bench-import-'));
  const targetName = `hrm_bench_import_${randomBytes(4).toString('hex')}`;
  const server = await mysql.createConnection({ uri: SERVER_URL });
  const [versionRows] = await server.query('SELECT VERSION() AS version');
  try {
    console.log(
      `Machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, ${String((versionRows as Array<{ version: string }>)[0]?.version)}`,
    );
    const sqlite = openDatabase({ client: 'sqlite', filename: path.join(workDir, 'hrm.sqlite') });
    try {
      await importInto('SQLite', sqlite, source.url);
    } finally {
      await sqlite.destroy();
    }
    await server.query(`CREATE DATABASE \`${targetName}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    const url = new URL(SERVER_URL);
    url.pathname = `/${targetName}`;
    const mariadb = openDatabase({ client: 'mysql', url: url.toString() });
    try {
      await importInto('MariaDB', mariadb, source.url);
    } finally {
      await mariadb.destroy();
    }
  } finally {
    await server.query(`DROP DATABASE IF EXISTS \`${targetName}\``);
    await server.end();
    await source.drop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
