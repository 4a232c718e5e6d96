// A 3-node MariaDB Galera cluster against one MariaDB server, on this machine.
//
//   npm run build:bench && node dist/bench/galera.js [--seconds 8] [--connections 32] [--employees 2000]
//
// Starts its own cluster (support/galera.ts: loopback ports, temporary data directories),
// seeds one database on it and one on the MariaDB at BENCH_MYSQL_URL (default
// mysql://root@127.0.0.1:3306/hrm_bench_galera, dropped and recreated), and measures with
// autocannon, per scenario: one server process on the single server; one on node 1 with causal
// reads on and off; three, one per node, the load split between them (reads and writes spread);
// and three with every DATABASE_URL naming node 1 first (writes on one node). Everything shares
// one 2-core machine: read the figures as comparisons, never as capacity.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { type GaleraCluster, startGaleraCluster, startingAt } from '../support/galera';
import { type Child, Children, freePort, waitUntilAnswering } from './children';
import { recreateMysqlDatabase } from './databases';
import { type Fixture, prepareFixture } from './fixture';
import { UNLIMITED } from './limits';
import { type Measurement, measure, scenarioTarget } from './load';
import { SCENARIOS, type Scenario } from './scenarios';

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const SECONDS = option('seconds', 8);
const CONNECTIONS = option('connections', 32);
const EMPLOYEES = option('employees', 2000);
const HOST = '127.0.0.1';
const SERVER_SCRIPT = path.join(__dirname, '..', 'src', 'main.js');
const SCENARIO_NAMES = ['GET /employees/me', 'GET /employees?limit=50 (page 1)', 'attendance: POST /attendance/punch-in + punch-out pairs'];

interface Setup {
  name: string;
  urls: string[];
  env?: Record<string, string>;
}

async function main(): Promise<void> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-bench-galera-'));
  const children = new Children();
  let cluster: GaleraCluster | undefined;
  try {
    const single = await recreateMysqlDatabase(process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/hrm_bench_galera');
    process.stderr.write('starting the cluster\n');
    const started = Date.now();
    cluster = await startGaleraCluster();
    process.stderr.write(`cluster synced in ${Date.now() - started} ms\n`);
    const clustered = await cluster.createDatabase();
    const fixtures = new Map<string, Fixture>();
    fixtures.set(single.url, await prepareFixture({ client: 'mysql', url: single.url }, EMPLOYEES, 0));
    const clusterFixture = await prepareFixture({ client: 'mysql', url: clustered.url }, EMPLOYEES, 0);

    const spread = [0, 1, 2].map((node) => cluster?.url(clustered.name, startingAt(node)) as string);
    const setups: Setup[] = [
      { name: 'one MariaDB, 1 process', urls: [single.url] },
      { name: 'cluster, 1 process on node 1', urls: [spread[0] as string] },
      { name: 'cluster, 1 process on node 1, DATABASE_CAUSAL_READS=0', urls: [spread[0] as string], env: { DATABASE_CAUSAL_READS: '0' } },
      { name: 'cluster, 3 processes on nodes 1, 2, 3 (spread)', urls: spread },
      { name: 'cluster, 3 processes all on node 1', urls: [0, 1, 2].map(() => spread[0] as string) },
    ];

    const rows: Array<{ setup: string; scenario: string; result: Measurement }> = [];
    for (const setup of setups) {
      const fixture = fixtures.get(setup.urls[0] as string) ?? clusterFixture;
      const servers: Array<{ child: Child; origin: string }> = [];
      for (const [index, url] of setup.urls.entries())
        servers.push(await startServer(children, workDir, `server-${index}`, { DATABASE_URL: url, ...setup.env }));
      for (const name of SCENARIO_NAMES) {
        const scenario = SCENARIOS.find((candidate) => candidate.name === name) as Scenario;
        const perServer = Math.max(1, Math.round(CONNECTIONS / servers.length));
        const results = await Promise.all(
          servers.map((server) =>
            measure(scenarioTarget(scenario, `${server.origin}/app/api`, fixture), {
              connections: perServer,
              warmupSeconds: 2,
              durationSeconds: SECONDS,
            }),
          ),
        );
        const result: Measurement = {
          requestsPerSecond: results.reduce((sum, each) => sum + each.requestsPerSecond, 0),
          p50Ms: Math.max(...results.map((each) => each.p50Ms)),
          p99Ms: Math.max(...results.map((each) => each.p99Ms)),
          failures: results.reduce((sum, each) => sum + each.failures, 0),
          serverCpuMicros: Number.NaN,
        };
        rows.push({ setup: setup.name, scenario: name, result });
        process.stderr.write(
          `${setup.name} | ${name}: ${Math.round(result.requestsPerSecond)} req/s, p99 ${Math.round(result.p99Ms)} ms, ${result.failures} failures\n`,
        );
      }
      for (const server of servers) await children.stop(server.child);
    }

    process.stdout.write('\n| setup | scenario | req/s | p50 ms | p99 ms | failures |\n|---|---|---:|---:|---:|---:|\n');
    for (const { setup, scenario, result } of rows) {
      process.stdout.write(
        `| ${setup} | ${scenario} | ${Math.round(result.requestsPerSecond)} | ${Math.round(result.p50Ms)} | ${Math.round(result.p99Ms)} | ${result.failures} |\n`,
      );
    }

    // A node's death to the first 2xx through a surviving node, and the rejoin.
    const server = await startServer(children, workDir, 'failover', { DATABASE_URL: spread[0] as string });
    const me = `${server.origin}/app/api/employees/me`;
    const authorization = `Bearer ${clusterFixture.token}`;
    const killedAt = Date.now();
    await cluster.nodes[0]?.kill();
    let firstOkMs = Number.NaN;
    while (Number.isNaN(firstOkMs) && Date.now() - killedAt < 60_000) {
      const res = await fetch(me, { headers: { authorization } }).catch(() => undefined);
      if (res?.ok) firstOkMs = Date.now() - killedAt;
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const restartedAt = Date.now();
    await cluster.nodes[0]?.restart();
    const rejoinMs = Date.now() - restartedAt;
    process.stdout.write(
      `\nnode 1 killed: first 2xx through node 2 after ${firstOkMs} ms (reads); node 1 restarted and synced in ${rejoinMs} ms\n`,
    );
    await children.stop(server.child);
  } finally {
    await children.stopAll();
    await cluster?.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

async function startServer(
  children: Children,
  workDir: string,
  name: string,
  env: Record<string, string>,
): Promise<{ child: Child; origin: string }> {
  const port = await freePort(HOST);
  const child = children.start(name, SERVER_SCRIPT, {
    env: { PATH: process.env.PATH, NODE_ENV: 'production', HOST, PORT: String(port), LOG_LEVEL: 'warn', ...UNLIMITED, ...env },
    cwd: workDir,
    logFile: path.join(workDir, `${name}.log`),
  });
  const origin = `http://${HOST}:${port}`;
  await waitUntilAnswering(child, `${origin}/readyz`);
  return { child, origin };
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
