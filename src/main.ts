import cluster from 'node:cluster';
import dotenv from 'dotenv';
import type { Server } from 'node:http';
import { createApp } from './app';
import { createServer } from './http/server';
import { createFirstAdmin, type FirstAdmin } from './instances/first-admin';
import { systemClock } from './clock';
import { type Config, ConfigError, loadConfig } from './config';
import { type Db, openDatabase } from './db/connect';
import { CONTROL_DATABASE_MIGRATIONS, migrateToLatest, SchemaTooNewError } from './db/migrate';
import { openInstance } from './instance';
import { InstanceDirectory } from './instances/directory';
import { listRegisteredInstances } from './instances/registry';
import { type InstanceSource, singleInstance } from './instances/source';
import { ServiceUnavailableError } from './errors';
import { recoveringSource } from './instances/recovering';
import { createLogger, type Logger, standardOutput } from './logger';
import { withServerNodeFlags } from './node-flags';
import { Metrics, startMetricsServer } from './metrics/metrics';
import type { RateLimitStore } from './rate-limits/limits';
import { closeRateLimitStore, openRateLimitStore } from './rate-limits/store';
import { AggregatorRegistry, register } from 'prom-client';
import { startWebhookDelivery } from './webhooks/start';
import { startPurgeSchedule } from './maintenance/purge';

const SHUTDOWN_TIMEOUT_MS = 10_000;

/** What serving needs: the instances, and how to close their databases afterwards. */
interface Opened {
  instances: InstanceSource;
  /** Cloud mode: the control database (the instance registry). */
  control?: Db;
  rateLimitStore: RateLimitStore;
  /** The databases whose pools the metrics show. */
  databases: Array<{ name: string; db: Db }>;
  close(): Promise<void>;
}

/** What the person starting the server is told, besides the URL. */
interface StartNotes {
  firstAdmin?: FirstAdmin;
  apiEnabled?: boolean;
  /** The database did not answer at start; the server retries on every request. */
  databaseUnavailable?: boolean;
  /** Cloud mode: instances registered so far. */
  instanceCount?: number;
}

interface ListeningMessage {
  type: 'hrm:listening';
  port: number;
}

async function main(): Promise<void> {
  dotenv.config({ quiet: true });
  const config = loadConfig();
  const logger = createLogger(config, standardOutput());
  if (cluster.isWorker) return runWorker(config, logger);
  if (config.workers > 1) return runPrimary(config, logger);

  const { opened, notes } = await prepare(config);
  const metrics = config.metricsPort === undefined ? undefined : new Metrics(register, () => opened.databases);
  const server = createServer(createApp({ config, logger, clock: systemClock, instances: opened.instances, rateLimitStore: opened.rateLimitStore, metrics }));
  await listen(server, config);
  const metricsServer = metrics && (await listenForMetrics(config, logger, register));
  const delivery = startWebhookDelivery({ config, logger, clock: systemClock, instances: opened.instances, control: opened.control, metrics: metrics?.webhooks });
  const purge = startPurgeSchedule({ intervalMs: config.purgeIntervalMs, instances: opened.instances, control: opened.control, clock: systemClock, logger });
  // Before the start message: a SIGTERM sent as soon as it is read must find the handler.
  onShutdownSignal((signal) =>
    stop(server, logger, signal, async () => {
      metricsServer?.close();
      await delivery.stop();
      await purge.stop();
      await opened.close();
    }),
  );
  announce(config, logger, portOf(server, config), notes);
}

/** The Prometheus listener on METRICS_PORT (its own port: never the API's). */
async function listenForMetrics(config: Config, logger: Logger, registry: Parameters<typeof startMetricsServer>[0]) {
  if (config.metricsPort === undefined) return undefined;
  const server = await startMetricsServer(registry, { host: config.metricsHost, port: config.metricsPort });
  logger.info({ url: `http://${config.metricsHost}:${config.metricsPort}/metrics` }, 'metrics listening');
  return server;
}

/**
 * Once per start, before serving: migrations, the first admin (self-hosted) or the control
 * database (cloud). With WORKERS > 1 only the primary does it, so workers never race for it. A
 * database that does not answer does not stop the start: the server answers 503 until it does.
 */
async function prepare(config: Config): Promise<{ opened: Opened; notes: StartNotes }> {
  const notes: StartNotes = {};
  let preparing = true;
  // Told in the start message when the database answers now; on its own once it answers later.
  const opened = open(config, (firstAdmin) => {
    if (preparing) notes.firstAdmin = firstAdmin;
    else announceLateFirstAdmin(firstAdmin);
  });
  try {
    await opened.instances.checkReady();
    if (opened.control) {
      // Cloud: instances are created by "hrm instance create", never by starting the server.
      notes.instanceCount = (await listRegisteredInstances(opened.control)).length;
    } else {
      const { instance } = (await opened.instances.acquire(undefined)) ?? {};
      notes.apiEnabled = instance && (await instance.settings.get()).restApiEnabled;
    }
  } catch (error) {
    if (!(error instanceof ServiceUnavailableError)) {
      await opened.close();
      throw error;
    }
    notes.databaseUnavailable = true;
  }
  preparing = false;
  return { opened, notes };
}

/**
 * Opens the database(s) a serving process needs. Migrating and loading the instance wait for the
 * first request (or prepare's readiness check) and are retried until the database answers.
 * `onFirstAdmin` hears of the admin created on a first start, whenever that happens.
 */
function open(config: Config, onFirstAdmin: (firstAdmin: FirstAdmin) => void = announceLateFirstAdmin): Opened {
  if (config.deployment === 'cloud') {
    const control = openDatabase(config.database, { poolMax: 2 });
    const directory = new InstanceDirectory({
      control,
      controlConfig: config.database,
      servers: config.databaseServers,
      clock: systemClock,
      maxConnections: config.cloudMaxConnections,
      idleTimeoutMs: config.cloudIdleTimeoutMs,
      listStatementTimeoutMs: config.listQueryTimeoutMs,
    });
    const instances = recoveringSource(async () => {
      await migrateToLatest(control, CONTROL_DATABASE_MIGRATIONS);
      return directory;
    }, systemClock);
    const rateLimitStore = openRateLimitStore(config, control);
    return {
      instances,
      control,
      rateLimitStore,
      databases: [{ name: 'control', db: control }],
      close: async () => {
        await closeRateLimitStore(rateLimitStore);
        await directory.close();
        await control.destroy();
      },
    };
  }
  const db = openDatabase(config.database, { listStatementTimeoutMs: config.listQueryTimeoutMs });
  const instances = recoveringSource(async () => {
    const instance = await openInstance(db, { clock: systemClock, jwtSecret: config.jwtSecret });
    const firstAdmin = await createFirstAdmin(instance, systemClock.now());
    if (firstAdmin) onFirstAdmin(firstAdmin);
    return singleInstance(instance);
  }, systemClock);
  const rateLimitStore = openRateLimitStore(config, db);
  return {
    instances,
    rateLimitStore,
    databases: [{ name: 'main', db }],
    close: async () => {
      await closeRateLimitStore(rateLimitStore);
      await db.destroy();
    },
  };
}

/** A first start whose database came up only after the start message: its token, now. */
function announceLateFirstAdmin(firstAdmin: FirstAdmin): void {
  process.stdout.write(firstAdminLines(firstAdmin).join('\n') + '\n\n');
}

/**
 * WORKERS > 1: this process prepares the installation, forks the workers (node:cluster shares
 * the port among them), prints the start message once they all listen, restarts a worker that
 * dies, and on SIGTERM/SIGINT stops them all and waits for them.
 */
async function runPrimary(config: Config, logger: Logger): Promise<void> {
  const { opened, notes } = await prepare(config);
  await opened.close();

  let stopping = false;
  const listening = new Set<number>();
  let announced = false;
  cluster.setupPrimary({ execArgv: withServerNodeFlags(process.execArgv) });
  const fork = () => {
    const worker = cluster.fork();
    worker.on('message', (message: ListeningMessage) => {
      if (message?.type !== 'hrm:listening') return;
      listening.add(worker.id);
      if (!announced && listening.size === config.workers) {
        announced = true;
        announce(config, logger, message.port, notes);
      }
    });
  };
  cluster.on('exit', (worker, code, signal) => {
    const wasListening = listening.delete(worker.id);
    if (stopping) return;
    logger.error({ workerPid: worker.process.pid, code, signal }, 'worker exited');
    // A worker that never got to listen would fail again: stop instead of looping.
    if (!wasListening) {
      process.stderr.write(`hrm: a worker process could not start (exit code ${code}); stopping\n`);
      stopping = true;
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
      process.exitCode = 1;
      return;
    }
    fork();
  });
  for (let i = 0; i < config.workers; i++) fork();
  // Every worker counts in its own process; the primary answers for all of them together.
  const metricsServer = await listenForMetrics(config, logger, new AggregatorRegistry());

  onShutdownSignal(async (signal) => {
    stopping = true;
    metricsServer?.close();
    logger.info({ signal, workers: config.workers }, 'shutting down');
    const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            worker.once('exit', () => resolve());
            worker.process.kill('SIGTERM');
          }),
      ),
    );
    logger.info('stopped');
  });
}

/** A worker of the cluster: serves on the shared port, tells the primary, stops on SIGTERM. */
async function runWorker(config: Config, logger: Logger): Promise<void> {
  const opened = open(config);
  // Counted in the process-wide registry, which the primary's AggregatorRegistry collects.
  const metrics = config.metricsPort === undefined ? undefined : new Metrics(register, () => opened.databases);
  const server = createServer(createApp({ config, logger, clock: systemClock, instances: opened.instances, rateLimitStore: opened.rateLimitStore, metrics }));
  await listen(server, config);
  const delivery = startWebhookDelivery({ config, logger, clock: systemClock, instances: opened.instances, control: opened.control, metrics: metrics?.webhooks });
  const purge = startPurgeSchedule({ intervalMs: config.purgeIntervalMs, instances: opened.instances, control: opened.control, clock: systemClock, logger });
  onShutdownSignal(async (signal) => {
    await stop(server, logger, signal, async () => {
      await delivery.stop();
      await purge.stop();
      await opened.close();
    });
    // The IPC channel to the primary is the last thing keeping a worker alive.
    process.disconnect?.();
  });
  const message: ListeningMessage = { type: 'hrm:listening', port: portOf(server, config) };
  process.send?.(message);
}

function announce(config: Config, logger: Logger, port: number, notes: StartNotes): void {
  const base = config.deployment === 'cloud' ? `${config.cloudBasePath}/<instance>` : config.basePath;
  const apiUrl = `http://${config.host}:${port}${base}`;
  logger.info({ url: apiUrl, database: config.database.client, deployment: config.deployment, workers: config.workers }, 'server listening');
  // For the person starting the server, not for the log: printed whatever LOG_LEVEL is.
  const message = config.deployment === 'cloud' ? cloudStartMessage(apiUrl, notes) : startMessage(apiUrl, notes);
  process.stdout.write(message);
}

function firstAdminLines(firstAdmin: FirstAdmin): string[] {
  return [
    '',
    `First start: created the user "${firstAdmin.username}" (linked to employee ${firstAdmin.employeeId}) and this token for it.`,
    'It is shown only once; keep it secret:',
    '',
    `  ${firstAdmin.token}`,
    '',
    'More tokens: npm run -s hrm -- token issue --username admin',
  ];
}

function startMessage(apiUrl: string, { firstAdmin, apiEnabled, databaseUnavailable }: StartNotes): string {
  const lines = [`\nHRM API listening on ${apiUrl}`];
  if (databaseUnavailable) {
    lines.push(
      '',
      'The database does not answer yet: requests get 503 until it does; the server keeps trying.',
      'A first start prints the admin token once the database is reachable.',
    );
  }
  if (firstAdmin) lines.push(...firstAdminLines(firstAdmin));
  if (apiEnabled === false) {
    lines.push(
      '',
      'The REST API is disabled (every request answers 403 api_disabled). Enable it with:',
      '',
      '  npm run -s hrm -- api enable',
    );
  }
  lines.push('', 'Then try:', '', `  curl -H "Authorization: Bearer <token>" ${apiUrl}/employees/me`, '', '');
  return lines.join('\n');
}

function cloudStartMessage(apiUrl: string, { instanceCount, databaseUnavailable }: StartNotes): string {
  const lines = [`\nHRM API (cloud mode) listening on ${apiUrl}`, ''];
  if (databaseUnavailable) {
    lines.push('The control database does not answer yet: requests get 503 until it does; the server keeps trying.');
  } else if (instanceCount === 0) {
    lines.push(
      'No instance exists yet. Create one (it prints its admin token once) with:',
      '',
      '  npm run -s hrm -- instance create <name>',
    );
  } else {
    lines.push(`${instanceCount} instance(s) registered; list them with: npm run -s hrm -- instance list`);
  }
  lines.push('', '');
  return lines.join('\n');
}

function listen(server: Server, config: Config): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function portOf(server: Server, config: Config): number {
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : config.port;
}

/** Runs `handler` on the first SIGTERM or SIGINT (a terminal's Ctrl-C reaches workers too). */
function onShutdownSignal(handler: (signal: string) => Promise<void>): void {
  let started = false;
  const once = (signal: string) => {
    if (started) return;
    started = true;
    void handler(signal);
  };
  process.on('SIGTERM', once);
  process.on('SIGINT', once);
}

async function stop(server: Server, logger: Logger, signal: string, closeDatabases: () => Promise<void>): Promise<void> {
  logger.info({ signal }, 'shutting down');
  const forced = setTimeout(() => {
    logger.error('in-flight requests did not finish in time; exiting');
    process.exit(1);
  }, SHUTDOWN_TIMEOUT_MS);
  forced.unref();
  // Stop accepting connections, let in-flight requests finish, then close the pools. A
  // keep-alive connection whose request finishes after this point would stay open until its
  // client leaves, holding the close up: such connections are closed as soon as they go idle.
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  clearInterval(sweep);
  await closeDatabases();
  logger.info('stopped');
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof SchemaTooNewError;
  const reason = error instanceof Error ? error.message : String(error);
  process.stderr.write(`hrm: ${known ? reason : `could not start: ${reason}`}\n`);
  process.exit(1);
});
