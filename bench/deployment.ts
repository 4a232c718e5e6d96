import { UNLIMITED } from './limits';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import mysql from 'mysql2/promise';
import { startWebServer, type WebServer } from '../support/web-servers';
import { systemClock } from '../src/clock';
import { openDatabase, type DatabaseConfig } from '../src/db/connect';
import { CONTROL_DATABASE_MIGRATIONS, migrateToLatest } from '../src/db/migrate';
import { createInstance } from '../src/provisioning/create-instance';
import { instanceDatabaseConfig } from '../src/instances/registry';
import { SETTING, writeSetting } from '../src/settings/repository';
import { type Child, Children, freePort, waitUntilAnswering } from './children';
import { DatabaseUnreachableError, recreateMysqlDatabase, withoutCredentials } from './databases';
import { prepareFixture } from './fixture';
import { tokenPerConnection } from './load';
import { PERFORMANCE_DOC, writeSection } from './performance-doc';

// npm run bench:deploy: GET /employees/me on MariaDB directly, through nginx and through Apache
// (the shipped configs), with WORKERS=1 and 2; then cloud mode with many instances receiving
// traffic round-robin, sampling how many connections the server holds to MariaDB meanwhile.

const HOST = '127.0.0.1';
const SERVER_SCRIPT = path.join(__dirname, '..', 'src', 'main.js');
const DEFAULT_URL = 'mysql://root@127.0.0.1:3306/hrm_bench_deploy';

const USAGE = `Usage: npm run bench:deploy -- [options]

  --employees N            employees to seed for the self-hosted part (default 10000)
  --instances N            cloud instances receiving traffic round-robin (default 200)
  --max-connections LIST   CLOUD_MAX_CONNECTIONS values to measure, e.g. 40,120 (default 40)
  --connections N          concurrent HTTP connections (default 64)
  --warmup S               seconds of unmeasured load before each measurement (default 3)
  --duration S             measured seconds per scenario (default 10)
  --only self-hosted|cloud one part only
  --write                  write the table into docs/performance.md (npm run bench does)
  --keep                   keep the databases and the temporary directory
  --help

MariaDB/MySQL: BENCH_MYSQL_URL (default ${DEFAULT_URL}). That database is dropped and
recreated; cloud mode uses <name>_cloud and its instance schemas <name>_cloud_*, dropped at the end.`;

interface Options {
  employees: number;
  instances: number;
  maxConnections: number[];
  connections: number;
  warmup: number;
  duration: number;
  parts: Array<'self-hosted' | 'cloud'>;
  keep: boolean;
  /** Write the table into docs/performance.md. */
  write: boolean;
  url: string;
}

interface Row {
  scenario: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  failures: number;
  /** Cloud: most connections the server held to the control and instance databases at once. */
  peakOwnConnections?: number;
  /** Cloud: MariaDB's Threads_connected at its highest during the run (every client of the server). */
  peakThreadsConnected?: number;
}

type Requests = autocannon.Request[] | undefined;

async function main(): Promise<void> {
  const options = parseOptions();
  if (!options) return;
  const children = new Children();
  const webServers: WebServer[] = [];
  process.once('SIGINT', () => void cleanUp().finally(() => process.exit(130)));
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-bench-deploy-'));
  progress(`working directory (server logs): ${workDir}`);
  const cleanUp = async () => {
    await Promise.all(webServers.splice(0).map((web) => web.stop()));
    await children.stopAll();
  };

  const rows: Row[] = [];
  let label = '';
  try {
    if (options.parts.includes('self-hosted')) {
      const database = await recreateMysqlDatabase(options.url);
      label = database.label;
      progress(`${label}: seeding ${options.employees} employees`);
      const fixture = await prepareFixture(database.config, options.employees, 0);
      // As in npm run bench: 64 users, one per connection, each asking about themselves.
      const me = {
        path: '/',
        headers: {},
        requests: [
          { method: 'GET', path: '/app/api/employees/me', setupRequest: tokenPerConnection(fixture.userTokens) },
        ] satisfies Requests,
      };

      for (const workers of [1, 2]) {
        const server = await startServer(children, workDir, `self-hosted-w${workers}`, {
          DATABASE_URL: database.url,
          WORKERS: String(workers),
        });
        rows.push(await measure(`direct, WORKERS=${workers}`, server.origin, me, options));
        for (const kind of ['nginx', 'apache'] as const) {
          const web = await startWebServer(kind, { config: kind === 'nginx' ? 'server' : 'vhost', prefix: '', upstreamPort: server.port });
          webServers.push(web);
          rows.push(await measure(`through ${kind === 'nginx' ? 'nginx' : 'Apache'}, WORKERS=${workers}`, web.origin, me, options));
          await web.stop();
          webServers.splice(webServers.indexOf(web), 1);
        }
        await children.stop(server.child);
      }
    }
    if (options.parts.includes('cloud')) {
      const cloud = await prepareCloud(options);
      label ||= cloud.label;
      try {
        for (const maxConnections of options.maxConnections) {
          const server = await startServer(children, workDir, `cloud-${maxConnections}`, {
            DATABASE_URL: cloud.url,
            DEPLOYMENT: 'cloud',
            CLOUD_MAX_CONNECTIONS: String(maxConnections),
          });
          let next = 0;
          // Round-robin: each request goes to the next instance, with that instance's token.
          const requests: Requests = [
            {
              method: 'GET',
              setupRequest: (request) => {
                const target = cloud.instances[next++ % cloud.instances.length] as { name: string; token: string };
                return { ...request, path: `/api/${target.name}/employees/me`, headers: { authorization: `Bearer ${target.token}` } };
              },
            },
          ];
          const sampler = sampleConnections(cloud.serverUrl, cloud.controlName);
          const row = await measure(
            `cloud, ${cloud.instances.length} instances round-robin, CLOUD_MAX_CONNECTIONS=${maxConnections}`,
            server.origin,
            { path: '/', headers: {}, requests },
            options,
            () => sampler.reset(),
          );
          const peaks = await sampler.stop();
          rows.push({ ...row, peakOwnConnections: peaks.own, peakThreadsConnected: peaks.threads });
          await children.stop(server.child);
        }
      } finally {
        if (!options.keep) await dropCloud(cloud.serverUrl, cloud.controlName);
      }
    }
  } catch (error) {
    if (error instanceof DatabaseUnreachableError) throw new Error(`${error.message}. Set BENCH_MYSQL_URL.`, { cause: error });
    throw error;
  } finally {
    await cleanUp();
  }
  if (!options.keep) fs.rmSync(workDir, { recursive: true, force: true });
  const report = `${header(options, label)}\n\n${table(rows)}`;
  process.stdout.write(`\n${report}\n`);
  if (options.write) {
    writeSection('deploy', 'Behind nginx and Apache, WORKERS, cloud mode (npm run bench)', report);
    progress(`wrote the table into ${PERFORMANCE_DOC}`);
  }
}

async function startServer(
  children: Children,
  workDir: string,
  name: string,
  env: Record<string, string>,
): Promise<{ child: Child; port: number; origin: string }> {
  const port = await freePort(HOST);
  const child = children.start(`the ${name} server`, SERVER_SCRIPT, {
    env: { PATH: process.env.PATH, NODE_ENV: 'production', HOST, PORT: String(port), LOG_LEVEL: 'info', ...UNLIMITED, ...env },
    cwd: workDir,
    logFile: path.join(workDir, `${name}.log`),
  });
  const origin = `http://${HOST}:${port}`;
  await waitUntilAnswering(child, `${origin}/readyz`);
  progress(`${name}: pid ${child.pid} on ${origin}`);
  return { child, port, origin };
}

async function measure(
  scenario: string,
  origin: string,
  target: { path: string; headers: Record<string, string>; requests?: Requests },
  options: Options,
  beforeMeasuring?: () => void,
): Promise<Row> {
  progress(`${scenario} ...`);
  const run = (duration: number) =>
    autocannon({
      url: origin + target.path,
      headers: target.headers,
      requests: target.requests,
      connections: options.connections,
      duration,
    });
  if (options.warmup > 0) await run(options.warmup);
  beforeMeasuring?.();
  const result = await run(options.duration);
  const row = {
    scenario,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
  progress(`  ${row.requestsPerSecond.toFixed(0)} req/s, p99 ${row.p99} ms${row.failures ? `, ${row.failures} NON-2XX/ERRORS` : ''}`);
  return row;
}

interface Cloud {
  label: string;
  url: string;
  serverUrl: string;
  controlName: string;
  instances: Array<{ name: string; token: string }>;
}

/** A control database `<bench db>_cloud` with `instances` instances, each enabled, with its admin token. */
async function prepareCloud(options: Options): Promise<Cloud> {
  const controlUrl = new URL(options.url);
  const controlName = `${decodeURIComponent(controlUrl.pathname.slice(1))}_cloud`;
  controlUrl.pathname = `/${controlName}`;
  const serverUrl = new URL(options.url);
  serverUrl.pathname = '/';
  await dropCloud(serverUrl.toString(), controlName);
  const { label } = await recreateMysqlDatabase(controlUrl.toString());
  const config: DatabaseConfig = { client: 'mysql', url: controlUrl.toString() };
  const control = openDatabase(config, { poolMax: 4 });
  const instances: Cloud['instances'] = [];
  try {
    await migrateToLatest(control, CONTROL_DATABASE_MIGRATIONS);
    progress(`creating ${options.instances} instances in ${withoutCredentials(controlUrl.toString())} ...`);
    const started = Date.now();
    const names = Array.from({ length: options.instances }, (_, i) => `t${String(i + 1).padStart(4, '0')}`);
    // Four at a time: creating one is mostly DDL round trips.
    for (let i = 0; i < names.length; i += 4) {
      await Promise.all(
        names.slice(i, i + 4).map(async (name) => {
          const created = await createInstance(control, config, name, systemClock);
          const db = openDatabase(instanceDatabaseConfig(config, created.databaseName), { poolMax: 1 });
          try {
            await writeSetting(db, SETTING.restApiEnabled, '1', systemClock.now());
          } finally {
            await db.destroy();
          }
          instances.push({ name, token: created.admin.token });
        }),
      );
    }
    progress(`  created in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await control.destroy();
  }
  instances.sort((a, b) => a.name.localeCompare(b.name));
  return { label, url: controlUrl.toString(), serverUrl: serverUrl.toString(), controlName, instances };
}

async function dropCloud(serverUrl: string, controlName: string): Promise<void> {
  const connection = await mysql.createConnection({ uri: serverUrl });
  try {
    const [rows] = await connection.query(
      'SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ? OR SCHEMA_NAME LIKE ?',
      [controlName, `${controlName.replaceAll('_', '\\_')}\\_%`],
    );
    for (const { name } of rows as Array<{ name: string }>) await connection.query(`DROP DATABASE \`${name}\``);
  } finally {
    await connection.end();
  }
}

/**
 * Samples every 100 ms: connections whose database is the control database or one of its
 * instances (the server under test's, whoever else uses MariaDB), and the server-wide
 * Threads_connected. The sampler's own connection has no database, so it is not counted.
 */
function sampleConnections(serverUrl: string, controlName: string) {
  let own = 0;
  let threads = 0;
  let running = true;
  const done = (async () => {
    const connection = await mysql.createConnection({ uri: serverUrl });
    try {
      while (running) {
        const [ownRows] = await connection.query('SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? OR DB LIKE ?', [
          controlName,
          `${controlName.replaceAll('_', '\\_')}\\_%`,
        ]);
        const [threadRows] = await connection.query("SHOW GLOBAL STATUS LIKE 'Threads_connected'");
        own = Math.max(own, Number((ownRows as Array<{ n: number }>)[0]?.n));
        threads = Math.max(threads, Number((threadRows as Array<{ Value: string }>)[0]?.Value));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await connection.end();
    }
  })();
  return {
    reset: () => {
      own = 0;
      threads = 0;
    },
    stop: async () => {
      running = false;
      await done;
      return { own, threads };
    },
  };
}

function header(options: Options, label: string): string {
  return [
    new Date().toISOString(),
    `nproc ${os.availableParallelism()}`,
    os.cpus()[0]?.model ?? '',
    `node ${process.version}`,
    label,
    `${options.connections} connections, ${options.warmup} s warm-up + ${options.duration} s measured`,
  ].join(' | ');
}

function table(rows: Row[]): string {
  const columns = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx+errors', 'peak DB conns (server)', 'peak Threads_connected'];
  const cells = rows.map((row) => [
    row.scenario,
    row.requestsPerSecond.toFixed(0),
    row.p50.toFixed(1),
    row.p99.toFixed(1),
    row.failures > 0 ? `! ${row.failures}` : '0',
    row.peakOwnConnections === undefined ? '' : String(row.peakOwnConnections),
    row.peakThreadsConnected === undefined ? '' : String(row.peakThreadsConnected),
  ]);
  const widths = columns.map((title, i) => Math.max(title.length, ...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join(' | ');
  return [line(columns), widths.map((width) => '-'.repeat(width)).join('-|-'), ...cells.map(line)].join('\n');
}

function parseOptions(): Options | undefined {
  try {
    const { values } = parseArgs({
      args: process.argv.slice(2),
      strict: true,
      options: {
        employees: { type: 'string', default: '10000' },
        instances: { type: 'string', default: '200' },
        'max-connections': { type: 'string', default: '40' },
        connections: { type: 'string', default: '64' },
        warmup: { type: 'string', default: '3' },
        duration: { type: 'string', default: '10' },
        only: { type: 'string' },
        keep: { type: 'boolean', default: false },
        write: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return undefined;
    }
    if (values.only !== undefined && values.only !== 'self-hosted' && values.only !== 'cloud')
      throw new Error('--only takes self-hosted or cloud');
    return {
      employees: wholeNumber('--employees', values.employees, 1, 1_000_000),
      instances: wholeNumber('--instances', values.instances, 1, 5000),
      maxConnections: values['max-connections'].split(',').map((value) => wholeNumber('--max-connections', value.trim(), 2, 10_000)),
      connections: wholeNumber('--connections', values.connections, 1, 10_000),
      warmup: wholeNumber('--warmup', values.warmup, 0, 3600),
      duration: wholeNumber('--duration', values.duration, 1, 3600),
      parts: values.only ? [values.only as 'self-hosted' | 'cloud'] : ['self-hosted', 'cloud'],
      keep: values.keep,
      write: values.write,
      url: process.env.BENCH_MYSQL_URL || DEFAULT_URL,
    };
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message} (see npm run bench:deploy -- --help)\n`);
    process.exitCode = 2;
    return undefined;
  }
}

function wholeNumber(option: string, value: string, min: number, max: number): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) throw new Error(`${option} must be a whole number from ${min} to ${max}`);
  return parsed;
}

function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
