import { createPool as createCallbackPool } from 'mysql2';
import mysql, { type RowDataPacket } from 'mysql2/promise';
import { parseArgs } from 'node:util';
import type { Caller } from '../src/caller';
import { toEmployeeRecord } from '../src/employee-records/record';
import { fastStatementOf } from '../src/employees/list';
import { listEmployeesQuery } from '../src/employees/list-query';
import { referencesOf, toEmployeeView } from '../src/employees/output';
import { toPage } from '../src/http/pagination';
import { parseQuery } from '../src/http/parse';
import { type NameLookup, readReferenceNames } from '../src/lookups/reference-names';
import knex from 'knex';
import { DEFAULT_MYSQL_URL } from './options';

/**
 * What writing a page of the employee list costs the server's process, against the list
 * ceiling's work (JSON.stringify of the raw rows): the admin's page 1 read N times as the server
 * reads it (its prepared statement, fresh rows each time, as a server gets them), each set
 * shaped once per way, medians of R runs. The time of a set's first touch counts, as it does in
 * a server. Needs a database that `npm run bench:core -- --db mysql` seeded (BENCH_MYSQL_URL, by
 * default the bench's): npm run bench:list-shaping -- [--sets 300] [--runs 9]. Then it times
 * reading those rows with the server's statement and without its dates cast to text.
 */
type Row = Record<string, unknown>;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { sets: { type: 'string', default: '300' }, runs: { type: 'string', default: '9' } } });
  const url = process.env.BENCH_MYSQL_URL || DEFAULT_MYSQL_URL;
  const sets = Number(values.sets);
  const runs = Number(values.runs);
  // The server's connection options (src/db/connect.ts).
  const pool = mysql.createPool({ uri: url, connectionLimit: 4, charset: 'utf8mb4', timezone: 'Z', dateStrings: true });
  const db = knex({ client: 'mysql2', connection: { uri: url, charset: 'utf8mb4', timezone: 'Z', dateStrings: true } as never });
  try {
    const [first] = await pool.query<RowDataPacket[]>('SELECT MIN(id) AS id FROM employees');
    const firstId = Number(first[0]?.id);
    const caller: Caller = { userId: 0, username: 'bench-admin', role: 'admin', employeeId: null, tokenId: 'bench' };
    const query = parseQuery(listEmployeesQuery, { limit: '50' });
    const statement = fastStatementOf(caller, query, { value: firstId, id: firstId }, 'mysql');
    if (!statement) throw new Error('The admin page 1 has no prepared statement');
    const read = async () => (await pool.execute<RowDataPacket[]>(statement.sql, statement.values as string[]))[0] as Row[];
    const names: NameLookup = await readReferenceNames(db, referencesOf((await read()).map((row) => toEmployeeRecord({ ...row }))));

    const ways: Record<string, (rows: Row[]) => number> = {
      'the raw rows, JSON.stringify (the list ceiling)': (rows) =>
        Buffer.byteLength(JSON.stringify({ data: rows.slice(0, 50), total: 100_000, nextPage: 2 })),
      'the records only (toEmployeeRecord)': (rows) => rows.slice(0, 50).map(toEmployeeRecord).length,
      'the page as the server writes it': (rows) => {
        const views = rows.slice(0, 50).map((row) => toEmployeeView(toEmployeeRecord(row), caller, names));
        return Buffer.byteLength(JSON.stringify(toPage(views, 100_000, 1, 50, true)));
      },
    };
    const reading = await readingCosts(url, statement, runs);

    const timings = new Map<string, number[]>();
    for (let run = 0; run < runs; run++) {
      for (const [way, shape] of Object.entries(ways)) {
        const fresh: Row[][] = [];
        for (let n = 0; n < sets; n++) fresh.push(await read());
        const started = process.hrtime.bigint();
        for (const rows of fresh) shape(rows);
        const perPage = Number(process.hrtime.bigint() - started) / 1000 / sets;
        timings.set(way, [...(timings.get(way) ?? []), perPage]);
      }
    }
    console.log(`${sets} fresh pages of 50 per way and run, ${runs} runs, node ${process.version}: µs per page (median, lowest)`);
    for (const [way, perPage] of timings) {
      const sorted = [...perPage].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)] as number;
      console.log(`${way.padEnd(50)} ${median.toFixed(0).padStart(6)} ${(sorted[0] as number).toFixed(0).padStart(6)}`);
    }
    console.log(`\nReading the page's rows, ${READS} reads ${IN_FLIGHT} at a time per way and run: CPU µs per page (median, lowest)`);
    for (const [way, perPage] of reading) {
      const sorted = [...perPage].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)] as number;
      console.log(`${way.padEnd(50)} ${median.toFixed(0).padStart(6)} ${(sorted[0] as number).toFixed(0).padStart(6)}`);
    }
  } finally {
    await pool.end();
    await db.destroy();
  }
}

const READS = 1500;
const IN_FLIGHT = 64;

/**
 * This process's CPU (mysql2 reading the rows) per page of the admin's page 1, READS reads with
 * IN_FLIGHT at a time on the pool, alternating the server's statement (dates cast to text) with
 * the same statement reading the dates as DATE/DATETIME, which mysql2 turns into text itself.
 */
async function readingCosts(url: string, statement: { sql: string; values: unknown[] }, runs: number): Promise<Map<string, number[]>> {
  const binaryDates = statement.sql.replace(/cast\((`e`\.`\w+`) as char\) as `\w+`/g, '$1');
  if (binaryDates === statement.sql) throw new Error('The statement casts no date: nothing to compare');
  const ways: Record<string, string> = {
    'dates cast to text (the server)': statement.sql,
    'dates read as dates': binaryDates,
  };
  // The server's pool size and connection options, and mysql2's callback API, as src/db/driver-statements.ts calls it.
  const pool = createCallbackPool({ uri: url, connectionLimit: 10, charset: 'utf8mb4', timezone: 'Z', dateStrings: true });
  const execute = (sql: string) =>
    new Promise<void>((resolve, reject) => pool.execute(sql, statement.values as string[], (error) => (error ? reject(error) : resolve())));
  const costs = new Map<string, number[]>();
  try {
    for (let run = 0; run < runs; run++) {
      for (const [way, sql] of Object.entries(ways)) {
        const started = process.cpuUsage();
        let next = 0;
        const reader = async () => {
          while (next++ < READS) await execute(sql);
        };
        await Promise.all(Array.from({ length: IN_FLIGHT }, reader));
        const used = process.cpuUsage(started);
        costs.set(way, [...(costs.get(way) ?? []), (used.user + used.system) / READS]);
      }
    }
  } finally {
    await new Promise((resolve) => pool.end(resolve));
  }
  return costs;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
