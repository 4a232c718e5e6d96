import knex from 'knex';
import type { Caller } from '../src/caller';
import { fastStatementOf, listRowsQuery } from '../src/employees/list';
import { listEmployeesQuery } from '../src/employees/list-query';
import { parseQuery } from '../src/http/parse';
import { UNLIMITED } from './limits';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Child, Children, cpuSeconds, freePort, peakRssMb, waitUntilAnswering } from './children';
import { comparedBuild, comparedDatabase, prepareComparedFixture } from './compared-build';
import { type BenchDatabase, createSqliteDatabase, DatabaseUnreachableError, recreateMysqlDatabase } from './databases';
import { type Fixture, prepareFixture } from './fixture';
import { type Measurement, measure, medianOf, scenarioTarget, type Target } from './load';
import { type BenchDialect, type BenchOptions, parseBenchOptions, USAGE } from './options';
import { headerLine, type ResultRow, resultTable } from './report';
import { PERFORMANCE_DOC, writeSection } from './performance-doc';
import { type Scenario, SCENARIOS } from './scenarios';

const HOST = '127.0.0.1';
const BASE_PATH = '/app/api';
// Compiled layout: dist/bench/run.js next to dist/src/main.js.
const SERVER_SCRIPT = path.join(__dirname, '..', 'src', 'main.js');
const CEILING_SCRIPT = path.join(__dirname, 'ceiling-server.js');
const CEILING_SCENARIO = 'ceiling: GET /employees/me (node:http + mysql2)';
const LIST_CEILING_SCRIPT = path.join(__dirname, 'list-ceiling-server.js');
const LIST_CEILING_SCENARIO = "list ceiling: GET /employees?limit=50 (page 1) (node:http + mysql2 query, the list's rows query)";
const PREPARED_LIST_CEILING_SCENARIO = 'list ceiling, prepared: GET /employees?limit=50 (page 1) (node:http + mysql2 execute, the same)';
const EXPRESS_BASELINE_SCRIPT = path.join(__dirname, 'express-baseline.js');
const EXPRESS_BASELINE_SCENARIO = 'Express 5 baseline: GET /employees/me (bare Express + mysql2)';

interface RunningServer {
  child: Child;
  baseUrl: string;
}

/** One row of the table: what to send, and what each round measured. */
interface Plan {
  name: string;
  target: Target;
  /** Concurrent connections, when the scenario fixes them. */
  connections?: number;
  server: RunningServer;
  rounds: Measurement[];
  /** For a compared build's plan: this build's plan of the same scenario. */
  comparedWith?: Plan;
}

async function main(): Promise<void> {
  const options = optionsOrExit();
  if (!options) return;
  const children = new Children();
  stopChildrenOnExit(children);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-bench-'));
  progress(`working directory (database file, server logs): ${workDir}`);

  let succeeded = false;
  try {
    const rows: ResultRow[] = [];
    const seeded: string[] = [];
    const skipped: string[] = [];
    for (const dialect of options.databases) {
      const database = await freshDatabase(dialect, options, workDir, skipped);
      if (database) rows.push(...(await benchDatabase(database, options, workDir, children, seeded)));
    }
    const report = `${headerLine(options, new Date())}\n${seeded.join('\n')}\n\n${resultTable(rows)}`;
    process.stdout.write(`\n${report}\n`);
    if (options.write) {
      writeSection('core', 'Endpoints and the ceiling (npm run bench)', report);
      progress(`wrote the table into ${PERFORMANCE_DOC}`);
    }
    for (const reason of skipped) process.stdout.write(`\nSKIPPED ${reason}\n`);
    succeeded = true;
  } finally {
    await children.stopAll();
    if (succeeded && !options.keep) fs.rmSync(workDir, { recursive: true, force: true });
    else progress(`kept ${workDir}`);
  }
}

function optionsOrExit(): BenchOptions | undefined {
  try {
    const parsed = parseBenchOptions(process.argv.slice(2), process.env);
    if (parsed !== 'help') return parsed;
    process.stdout.write(`${USAGE}\n`);
  } catch (error) {
    // parseArgs throws TypeError for unknown options; ours throw UsageError.
    process.stderr.write(`bench: ${(error as Error).message} (see npm run bench -- --help)\n`);
    process.exitCode = 2;
  }
  return undefined;
}

async function freshDatabase(
  dialect: BenchDialect,
  options: BenchOptions,
  workDir: string,
  skipped: string[],
): Promise<BenchDatabase | undefined> {
  if (dialect === 'sqlite') return createSqliteDatabase(workDir);
  try {
    return await recreateMysqlDatabase(options.mysqlUrl);
  } catch (error) {
    if (!(error instanceof DatabaseUnreachableError)) throw error;
    const reason = `MariaDB/MySQL: ${error.message}. Set BENCH_MYSQL_URL, or use --db sqlite.`;
    progress(`SKIPPED ${reason}`);
    skipped.push(reason);
    return undefined;
  }
}

/** Seeds, starts the server (and on MySQL the ceiling), measures every scenario, stops them. */
async function benchDatabase(
  database: BenchDatabase,
  options: BenchOptions,
  workDir: string,
  children: Children,
  seeded: string[],
): Promise<ResultRow[]> {
  progress(`${database.label}: migrating and seeding ${options.employees} employees, ${options.attendanceDays} attendance days each`);
  const fixture = await prepareFixture(database.config, options.employees, options.attendanceDays);
  const { employees, attendance } = fixture.seedSeconds;
  const line = `${database.label}: seeded ${options.employees} employees in ${employees.toFixed(1)} s, ${fixture.attendanceRows} attendance records in ${attendance.toFixed(1)} s`;
  progress(line);
  seeded.push(line);
  const other = options.compare && (await prepareCompared(database, options.compare, options, workDir, seeded));
  const scenarios = SCENARIOS.filter((scenario) => wanted(options, scenario.name));
  // One server per WORKERS setting the scenarios ask for (and per build, with --compare); the
  // others sit idle meanwhile.
  const servers = new Map<number, RunningServer>();
  const compared = new Map<number, RunningServer>();
  const baselines: Baseline[] = [];
  try {
    for (const workers of new Set(scenarios.map(workersOf))) {
      servers.set(workers, await startServer(database, workDir, children, workers, SERVER_SCRIPT, 'this build'));
      if (other) compared.set(workers, await startServer(other.database, workDir, children, workers, other.server, other.label));
    }
    if (database.dialect === 'mysql') {
      for (const [name, script, path] of [
        [CEILING_SCENARIO, CEILING_SCRIPT, '/employees/me'],
        [LIST_CEILING_SCENARIO, LIST_CEILING_SCRIPT, '/employees'],
        [PREPARED_LIST_CEILING_SCENARIO, LIST_CEILING_SCRIPT, '/employees'],
        [EXPRESS_BASELINE_SCENARIO, EXPRESS_BASELINE_SCRIPT, '/employees/me'],
      ] as const) {
        if (wanted(options, name))
          baselines.push({ name, path, server: await startBaseline(name, script, path, database, fixture, workDir, children) });
      }
    }
    return await measureRounds(database, scenarios, { servers, compared, baselines }, { fixture, compared: other?.fixture }, options);
  } finally {
    for (const server of [...servers.values(), ...compared.values(), ...baselines.map((baseline) => baseline.server)])
      await children.stop(server.child);
  }
}

/** The compared build's own database, seeded by its own fixture, and its server script. */
async function prepareCompared(
  database: BenchDatabase,
  { dir, label }: { dir: string; label: string },
  options: BenchOptions,
  workDir: string,
  seeded: string[],
) {
  const build = comparedBuild(dir);
  const own = await comparedDatabase(database, workDir);
  progress(`${database.label}: migrating and seeding the database of ${label} with its own code`);
  const fixture = await prepareComparedFixture(build.fixture, own, options.employees, options.attendanceDays);
  const line = `${database.label}, ${label} (its own database): seeded ${options.employees} employees, ${fixture.attendanceRows} attendance records`;
  progress(line);
  seeded.push(line);
  return { database: own, fixture, server: build.server, label };
}

/** A bare server the API is compared with: the ceiling, the Express baseline. */
interface Baseline {
  name: string;
  /** What it answers, relative to its origin. */
  path: string;
  server: RunningServer;
}

/** Whether --only (any of its texts; `=name` for that name exactly) lets the scenario or ceiling of this name run. */
function wanted(options: BenchOptions, name: string): boolean {
  return options.only === undefined || options.only.some((text) => (text.startsWith('=') ? name === text.slice(1) : name.includes(text)));
}

function workersOf(scenario: Scenario): number {
  return scenario.workers ?? 1;
}

/**
 * The plans of one round. A scenario of this build and the same scenario of the compared build
 * swap places every other round: whichever runs first meets what the round before left behind
 * (MariaDB still writing out the previous punches), and on punches it ran 8-10% slower, whichever
 * build it was. With an odd number of rounds this build runs first once more than the other.
 */
function inRoundOrder(plans: Plan[], round: number): Plan[] {
  if (round % 2 === 1) return plans;
  const ordered = [...plans];
  for (let index = 0; index + 1 < ordered.length; index++) {
    const [first, second] = [ordered[index] as Plan, ordered[index + 1] as Plan];
    if (second.comparedWith !== first) continue;
    ordered[index] = second;
    ordered[index + 1] = first;
    index++;
  }
  return ordered;
}

/**
 * Alternates the server's scenarios, the compared build's (each right after this build's in odd
 * rounds, right before it in even ones: inRoundOrder) and the
 * baselines, round after round, so all are measured under the same conditions (MariaDB's caches,
 * the machine's other load), and reports medians. Peak RSS is read before the processes are
 * stopped.
 */
async function measureRounds(
  database: BenchDatabase,
  scenarios: Scenario[],
  running: { servers: Map<number, RunningServer>; compared: Map<number, RunningServer>; baselines: Baseline[] },
  fixtures: { fixture: Fixture; compared: Fixture | undefined },
  options: BenchOptions,
): Promise<ResultRow[]> {
  const { fixture } = fixtures;
  const label = options.compare?.label ?? '';
  const plans = scenarios.flatMap((scenario): Plan[] => {
    const server = running.servers.get(workersOf(scenario)) as RunningServer;
    const plan: Plan = {
      name: scenario.name,
      target: scenarioTarget(scenario, server.baseUrl + BASE_PATH, fixture),
      connections: scenario.connections,
      server,
      rounds: [],
    };
    const other = running.compared.get(workersOf(scenario));
    if (!other || !fixtures.compared) return [plan];
    // The same requests against the other build's server, with its own database's tokens and ids.
    const target = scenarioTarget(scenario, other.baseUrl + BASE_PATH, fixtures.compared);
    return [plan, { ...plan, name: `${scenario.name} [${label}]`, target, server: other, rounds: [], comparedWith: plan }];
  });
  const baselinePlans = running.baselines.map((baseline): Plan => ({
    name: baseline.name,
    target: { url: `${baseline.server.baseUrl}${baseline.path}`, method: 'GET', headers: {} },
    server: baseline.server,
    rounds: [],
  }));

  for (let round = 1; round <= options.rounds; round++) {
    for (const plan of [...inRoundOrder(plans, round), ...baselinePlans]) {
      const progressLabel = `${database.label}, round ${round}/${options.rounds}: ${plan.name}`;
      const shape = { ...options, connections: plan.connections ?? options.connections };
      plan.rounds.push(await measureAndReport(progressLabel, plan.target, shape, () => cpuSeconds(plan.server.child.pid)));
    }
  }

  const ceilingOf = (name: string) => baselinePlans.find((plan) => plan.name === name);
  // The list scenarios' ratio is to the text-protocol list ceiling, as /employees/me's is to its
  // text-protocol ceiling; the prepared one is measured beside it (docs/performance.md).
  const listCeilings = new Set(scenarios.filter((scenario) => scenario.ceiling === 'list').map((scenario) => scenario.name));
  const rowOf = (plan: Plan): ResultRow => {
    const measurement = medianOf(plan.rounds);
    const scenario = plan.comparedWith?.name ?? plan.name;
    const listRow = listCeilings.has(scenario) || scenario === PREPARED_LIST_CEILING_SCENARIO || scenario === LIST_CEILING_SCENARIO;
    const ceilingPlan = ceilingOf(listRow ? LIST_CEILING_SCENARIO : CEILING_SCENARIO);
    // Each round's ratio to the ceiling's figure of the same round, and their median: the rounds
    // were alternated so that both meet the same load from the machine's other users.
    const ratios = ceilingPlan?.rounds.map(
      (round, index) => (plan.rounds[index]?.requestsPerSecond ?? Number.NaN) / round.requestsPerSecond,
    );
    const ratioToCeiling = plan !== ceilingPlan && ratios ? medianOfNumbers(ratios) : undefined;
    if (ratios && plan !== ceilingPlan && ratios.length > 1)
      progress(`${database.label}: ${plan.name}: ratio to its ceiling by round ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}`);
    const compared = plans.find((other) => other.comparedWith === plan);
    const ratioToCompared = compared && measurement.requestsPerSecond / medianOf(compared.rounds).requestsPerSecond;
    return {
      database: database.label,
      scenario: plan.name,
      measurement,
      peakRssMb: peakRssMb(plan.server.child.pid),
      ratioToCeiling,
      ratioToCompared,
    };
  };
  return [...plans, ...baselinePlans].map(rowOf);
}

async function measureAndReport(
  label: string,
  target: Target,
  options: BenchOptions,
  serverCpuSeconds: () => number,
): Promise<Measurement> {
  progress(`${label} ...`);
  const measurement = await measure(target, options, serverCpuSeconds);
  const failures = measurement.failures > 0 ? `, ${measurement.failures} NON-2XX/ERRORS` : '';
  progress(
    `  ${measurement.requestsPerSecond.toFixed(0)} req/s, p99 ${measurement.p99Ms.toFixed(1)} ms, server CPU ${measurement.serverCpuMicros.toFixed(0)} µs/req${failures}`,
  );
  return measurement;
}

async function startServer(
  database: BenchDatabase,
  workDir: string,
  children: Children,
  workers: number,
  script: string,
  build: string,
): Promise<RunningServer> {
  const port = await freePort(HOST);
  const name = `${build.replace(/[^\w.-]+/g, '-')}-${database.dialect}-w${workers}`;
  const child = children.start(`the ${database.label} server of ${build} (WORKERS=${workers})`, script, {
    // Only what the benchmark decides; the cwd is the work directory so no stray .env is read.
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      HOST,
      PORT: String(port),
      BASE_PATH,
      LOG_LEVEL: 'info',
      WORKERS: String(workers),
      ...UNLIMITED,
    },
    cwd: workDir,
    logFile: path.join(workDir, `${name}.log`),
  });
  const baseUrl = `http://${HOST}:${port}`;
  await waitUntilAnswering(child, `${baseUrl}/healthz`);
  progress(`${database.label}: ${build} server pid ${child.pid} on ${baseUrl}, log ${child.logFile}`);
  return { child, baseUrl };
}

function medianOfNumbers(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * The SQL and values the server sends for the admin's GET /employees?limit=50, page 1, once it
 * knows the page's first row (every request but the first in 2 seconds): its own list module
 * writes them, so the list ceiling always runs the server's current rows query.
 */
function listPageOneStatement(fixture: Fixture): { sql: string; values: unknown[] } {
  const caller: Caller = { userId: 0, username: 'bench-admin', role: 'admin', employeeId: fixture.employeeId, tokenId: 'bench' };
  const query = parseQuery(listEmployeesQuery, { limit: '50' });
  const first = fixture.employees.firstId;
  const start = { value: first, id: first };
  const statement = fastStatementOf(caller, query, start, 'mysql');
  if (statement) return statement;
  const { sql, bindings } = listRowsQuery(knex({ client: 'mysql2' }), caller, query, start)
    .toSQL()
    .toNative();
  return { sql, values: [...bindings] };
}

async function startBaseline(
  name: string,
  script: string,
  answers: string,
  database: BenchDatabase,
  fixture: Fixture,
  workDir: string,
  children: Children,
): Promise<RunningServer> {
  const port = await freePort(HOST);
  const child = children.start(name, script, {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      HOST,
      PORT: String(port),
      EMPLOYEE_ID: String(fixture.employeeId),
      ...(script === LIST_CEILING_SCRIPT ? listCeilingEnv(fixture) : {}),
      ...(name === PREPARED_LIST_CEILING_SCENARIO ? { LIST_PREPARED: '1' } : {}),
    },
    cwd: workDir,
    logFile: path.join(workDir, `${path.basename(script, '.js')}.log`),
  });
  const baseUrl = `http://${HOST}:${port}`;
  // Every answer does the lookup, so an answer also proves the database is reachable.
  await waitUntilAnswering(child, `${baseUrl}${answers}`);
  progress(`${database.label}: ${name}, pid ${child.pid} on ${baseUrl}`);
  return { child, baseUrl };
}

function listCeilingEnv(fixture: Fixture): Record<string, string> {
  const { sql, values } = listPageOneStatement(fixture);
  return { LIST_SQL: sql, LIST_VALUES: JSON.stringify(values), LIST_LIMIT: '50' };
}

function stopChildrenOnExit(children: Children): void {
  for (const [signal, exitCode] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      progress(`${signal}: stopping the servers this benchmark started`);
      void children.stopAll().finally(() => process.exit(exitCode));
    });
  }
  process.once('exit', () => children.killAllNow());
}

function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
