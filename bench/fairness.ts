// One caller's flood against another user's requests: what another user's GET /employees/me
// waits while one admin token keeps --flood lists sorted on a column without an index in flight.
//
//   npm run bench:fairness [-- --db mysql --employees 20000 --flood 40 --seconds 10 --rounds 2]
//
// On MariaDB/MySQL (BENCH_MYSQL_URL, default mysql://root@127.0.0.1:3306/hrm_bench_fairness,
// dropped and recreated) or SQLite (a temporary file): seeds --employees employees (no
// attendance), then starts the real server (dist/src/main.js, rate limits too high to refuse
// anything) with the budget and the statement limit off (CALLER_CONCURRENCY=0,
// LIST_QUERY_TIMEOUT_MS=0: the server as it was before them) and on (their defaults), alternately
// for --rounds rounds. In each run, after a --warmup of the same load:
//   - the flood: --flood loops of one admin, each sending GET /employees?sortField=<a field
//     without an index>&page=<1..50> as soon as its last answer came (a 429 included: a flood
//     does not wait);
//   - the poll: one employee user sends GET /employees/me, one at a time, back to back.
// It prints the poll's p50, p95 and worst latency, and what the flood got (answers by status, per
// second). The load generator shares the machine with the server and the database: compare the
// rows of one run with each other, not with other machines.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startApiServer } from './api-server';
import { Children } from './children';
import { type BenchDatabase, createSqliteDatabase, runBench, recreateMysqlDatabase, withoutCredentials } from './databases';
import { prepareFixture } from './fixture';

/** Read-shape fields without an index: each list sorts every row. */
const UNINDEXED_SORTS = ['birthday', 'city', 'work_email', 'mobile_phone', 'middle_name'];

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'mysql' },
    employees: { type: 'string', default: '20000' },
    flood: { type: 'string', default: '40' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '2' },
  },
});
const EMPLOYEES = Number(args.employees);
const FLOOD = Number(args.flood);
const SECONDS = Number(args.seconds);
const WARMUP = Number(args.warmup);
const ROUNDS = Number(args.rounds);

const SETTINGS = {
  off: { CALLER_CONCURRENCY: '0', LIST_QUERY_TIMEOUT_MS: '0' },
  on: {},
} as const;
type Setting = keyof typeof SETTINGS;

interface RunResult {
  setting: Setting;
  poll: number[];
  flood: Map<number, number>;
  seconds: number;
}

async function timed(url: string, token: string): Promise<{ status: number; ms: number }> {
  const started = process.hrtime.bigint();
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  return { status: response.status, ms: Number(process.hrtime.bigint() - started) / 1e6 };
}

/** Runs the flood and the poll for `seconds`; counts what they got unless it is a warm-up. */
async function load(
  base: string,
  adminToken: string,
  userToken: string,
  seconds: number,
  counted: boolean,
): Promise<Omit<RunResult, 'setting'>> {
  const ends = Date.now() + seconds * 1000;
  const poll: number[] = [];
  const flood = new Map<number, number>();
  const floodLoop = async (loop: number) => {
    for (let n = 0; Date.now() < ends; n++) {
      const sort = UNINDEXED_SORTS[(loop + n) % UNINDEXED_SORTS.length];
      const page = 1 + ((loop * 7 + n) % 50);
      const { status } = await timed(`${base}/employees?sortField=${sort}&page=${page}`, adminToken);
      if (counted) flood.set(status, (flood.get(status) ?? 0) + 1);
    }
  };
  const pollLoop = async () => {
    while (Date.now() < ends) {
      const { status, ms } = await timed(`${base}/employees/me`, userToken);
      if (status !== 200) throw new Error(`GET /employees/me answered ${status}`);
      if (counted) poll.push(ms);
    }
  };
  await Promise.all([...Array.from({ length: FLOOD }, (_, loop) => floodLoop(loop)), pollLoop()]);
  return { poll, flood, seconds };
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-bench-fairness-'));
  const children = new Children();
  try {
    const database: BenchDatabase =
      args.db === 'sqlite'
        ? createSqliteDatabase(workDir)
        : await recreateMysqlDatabase(process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/hrm_bench_fairness');
    const fixture = await prepareFixture(database.config, EMPLOYEES, 0);
    const userToken = fixture.userTokens[0] as string;
    const results: RunResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which setting runs first: the first run of a round meets what the last left behind.
      const order: Setting[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
      for (const setting of order) {
        const { child: server, api: base } = await startApiServer(children, `the server (${setting})`, {
          databaseUrl: database.url,
          workDir,
          logFile: path.join(workDir, `server-${setting}-${round}.log`),
          env: SETTINGS[setting],
        });
        if (WARMUP > 0) await load(base, fixture.token, userToken, WARMUP, false);
        results.push({ setting, ...(await load(base, fixture.token, userToken, SECONDS, true)) });
        await children.stop(server);
      }
    }

    const rows = results.map(({ setting, poll, flood, seconds }) => {
      const sorted = [...poll].sort((a, b) => a - b);
      const answered = [...flood.entries()]
        .sort(([a], [b]) => a - b)
        .map(([status, count]) => `${status}: ${count}`)
        .join(', ');
      const ok = flood.get(200) ?? 0;
      return `| ${setting === 'off' ? 'off (as before)' : 'on (defaults)'} | ${poll.length} | ${quantile(sorted, 0.5).toFixed(0)} | ${quantile(sorted, 0.95).toFixed(0)} | ${(sorted.at(-1) ?? Number.NaN).toFixed(0)} | ${answered} | ${(ok / seconds).toFixed(0)} |`;
    });
    process.stdout.write(
      [
        `Fairness on ${database.label}${database.dialect === 'mysql' ? ` (${withoutCredentials(database.url)})` : ''}: ${EMPLOYEES} employees, ${FLOOD} concurrent admin lists sorted without an index against one user's GET /employees/me, ${SECONDS} s per run after ${WARMUP} s of warm-up`,
        '',
        '| budget and statement limit | /me requests | /me p50 ms | /me p95 ms | /me worst ms | flood answers by status | flood lists/s (200) |',
        '|---|---|---|---|---|---|---|',
        ...rows,
        '',
      ].join('\n'),
    );
  } finally {
    await children.stopAll();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

runBench(main);
