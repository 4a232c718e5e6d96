// Attendance terminals: entries/s a batch upload ingests against punches/s of single punch-in and
// punch-out requests, and what a re-upload of the same batches (duplicates only) costs.
//
//   npm run bench:terminals [-- --db mysql|sqlite --employees 1000 --batches 8 --connections 4]
//
// One run on MariaDB/MySQL (BENCH_MYSQL_URL, default mysql://root@127.0.0.1:3306/hrm_bench_terminals,
// dropped and recreated), or with --db sqlite on a new SQLite file: seeds --employees employees (badge numbers 100000 + id, as `hrm seed`
// gives them, no attendance), starts the real server (dist/src/main.js, rate limits too high to refuse anything, no
// webhook subscriptions) and, with --connections clients at once, each on employees of its own:
//   1. single: an admin punches each employee in and out (explicit times, one request each);
//   2. batches: one device per client uploads --batches batches of 500 entries (in and out of
//      250 employees on a day), each a POST /attendance/punch-logs;
//   3. re-upload: the same batches again: every entry is a duplicate.
// Ratios hold within one run only: the machine may be shared.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { systemClock } from '../src/clock';
import { openDatabase } from '../src/db/connect';
import { openInstance } from '../src/instances/instance';
import { createDevice } from '../src/terminals/devices';
import { startApiServer } from './api-server';
import { Children } from './children';
import { createSqliteDatabase, runBench, recreateMysqlDatabase, withoutCredentials } from './databases';
import { prepareFixture } from './fixture';

const BATCH = 500;

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const USAGE = `Usage: npm run bench:terminals [-- options]
  --db mysql|sqlite    the database (default: mysql, at BENCH_MYSQL_URL)
  --employees N        employees seeded (default 1000)
  --batches N          batches of ${BATCH} entries per client (default 8)
  --connections N      clients at once, each with a device of its own (default 4)
  --help
`;
const DB = process.argv.includes('--db') ? process.argv[process.argv.indexOf('--db') + 1] : 'mysql';
const EMPLOYEES = option('employees', 1000);
const BATCHES = option('batches', 8);
const CONNECTIONS = option('connections', 4);

interface Entry {
  log_id: string;
  attendance_device_id: string;
  time: string;
  direction: 'in' | 'out';
}

async function post(url: string, token: string, body: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

/** The ids of employees client `client` of `clients` works on. */
function share(ids: number[], client: number, clients: number): number[] {
  return ids.filter((_, n) => n % clients === client);
}

const at = (day: number, hour: number) => new Date(Date.UTC(2025, 0, 1 + day, hour)).toISOString();

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    process.stdout.write(USAGE);
    return;
  }
  if (DB !== 'mysql' && DB !== 'sqlite') throw new Error(`--db takes mysql or sqlite\n${USAGE}`);
  const url = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/hrm_bench_terminals';
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-bench-terminals-'));
  const children = new Children();
  try {
    const database = DB === 'sqlite' ? createSqliteDatabase(workDir) : await recreateMysqlDatabase(url);
    const fixture = await prepareFixture(database.config, EMPLOYEES, 0);
    const ids = Array.from({ length: fixture.employees.lastId - fixture.employees.firstId + 1 }, (_, n) => fixture.employees.firstId + n);
    const db = openDatabase(database.config);
    const tokens: string[] = [];
    try {
      const instance = await openInstance(db, { clock: systemClock });
      for (let n = 0; n < CONNECTIONS; n++) {
        tokens.push(
          (await createDevice(db, instance.signingKey, { name: `Bench door ${n}` }, { now: new Date(), defaultTimezone: 'UTC' })).token,
        );
      }
    } finally {
      await db.destroy();
    }

    const { child: server, api: base } = await startApiServer(children, 'the server', {
      databaseUrl: database.url,
      workDir,
      logFile: path.join(workDir, 'server.log'),
    });

    // 1. Single punches: in and out of every employee on day 0, one request each.
    const singleStarted = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, client) => {
        for (const id of share(ids, client, CONNECTIONS)) {
          const opened = await post(`${base}/attendance/punch-in`, fixture.token, { employee: id, in_time: at(0, 8) });
          const closed = await post(`${base}/attendance/punch-out`, fixture.token, { employee: id, out_time: at(0, 17) });
          if (opened.status !== 201 || closed.status !== 200) throw new Error(`A single punch failed: ${opened.status} ${closed.status}`);
        }
      }),
    );
    const singleSeconds = Number(process.hrtime.bigint() - singleStarted) / 1e9;
    const singlePunches = ids.length * 2;

    // 2. Batches: each client's device sends BATCHES batches of 500 entries, days 1, 2, ...
    const batchesOf = (client: number): Entry[][] => {
      const mine = share(ids, client, CONNECTIONS);
      const entries: Entry[] = [];
      for (let day = 1; entries.length < BATCHES * BATCH; day++) {
        for (const id of mine) {
          const badge = String(100000 + id);
          entries.push({ log_id: `${day}-${id}-in`, attendance_device_id: badge, time: at(day, 8), direction: 'in' });
          entries.push({ log_id: `${day}-${id}-out`, attendance_device_id: badge, time: at(day, 17), direction: 'out' });
        }
      }
      return Array.from({ length: BATCHES }, (_, n) => entries.slice(n * BATCH, (n + 1) * BATCH));
    };
    const upload = async (expected: string) => {
      const started = process.hrtime.bigint();
      const latencies: number[] = [];
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async (_, client) => {
          for (const entries of batchesOf(client)) {
            const sent = process.hrtime.bigint();
            const answer = await post(`${base}/attendance/punch-logs`, tokens[client] as string, { entries });
            latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
            const wrong =
              answer.status === 200 ? answer.json.results.find((result: { result: string }) => result.result !== expected) : answer.json;
            if (wrong) throw new Error(`A batch entry was not ${expected}: ${JSON.stringify(wrong)}`);
          }
        }),
      );
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      latencies.sort((a, b) => a - b);
      return { perSecond: (CONNECTIONS * BATCHES * BATCH) / seconds, medianMs: latencies[Math.floor(latencies.length / 2)] as number };
    };
    const batches = await upload('created');
    const reupload = await upload('duplicate');
    await children.stop(server);

    const single = singlePunches / singleSeconds;
    process.stdout.write(
      [
        `Attendance terminals on ${database.label}${DB === 'mysql' ? ` (${withoutCredentials(url)})` : ''}: ${CONNECTIONS} clients at once, ${EMPLOYEES} employees`,
        '',
        '| what | requests | entries or punches | per second | median ms per request |',
        '|---|---|---|---|---|',
        `| single punch-in / punch-out | ${singlePunches} | ${singlePunches} | ${Math.round(single)} | ${((singleSeconds * 1000 * CONNECTIONS) / singlePunches).toFixed(1)} (mean) |`,
        `| batches of ${BATCH} (new entries) | ${CONNECTIONS * BATCHES} | ${CONNECTIONS * BATCHES * BATCH} | ${Math.round(batches.perSecond)} (${(batches.perSecond / single).toFixed(1)}x) | ${batches.medianMs.toFixed(0)} |`,
        `| re-upload of the same batches (duplicates only) | ${CONNECTIONS * BATCHES} | ${CONNECTIONS * BATCHES * BATCH} | ${Math.round(reupload.perSecond)} | ${reupload.medianMs.toFixed(0)} |`,
        '',
      ].join('\n'),
    );
  } finally {
    await children.stopAll();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

runBench(main);
