import type { Server } from 'node:http';
import { register } from 'prom-client';
import { createApp } from '../app';
import { systemClock } from '../clock';
import type { Config } from '../config';
import { createServer } from '../http/server';
import type { Logger } from '../logger';
import { startPurgeSchedule } from '../maintenance/purge';
import { startScheduleSweep } from '../days/schedule-sweep';
import { Metrics, startMetricsServer } from '../metrics/metrics';
import { startWebhookDelivery } from '../webhooks/start';
import type { Opened } from './open';

const SHUTDOWN_TIMEOUT_MS = 10_000;

interface ServeOptions {
  /** The single process answers METRICS_PORT itself; a cluster's primary answers for its workers. */
  servesMetrics: boolean;
  /** Runs once everything is stopped and closed. */
  afterStop?: () => void;
}

/**
 * The serve sequence of the single process and of each cluster worker: the app on the API port,
 * webhook delivery and the purge schedule, and a graceful stop on SIGTERM or SIGINT. Resolves with
 * the port once the server listens and the stop handler is in place.
 */
export async function serve(config: Config, logger: Logger, opened: Opened, options: ServeOptions): Promise<number> {
  // Counted in the process-wide registry, which a primary's AggregatorRegistry collects too.
  const metrics = config.metricsPort === undefined ? undefined : new Metrics(register, () => opened.databases);
  const server = createServer(
    createApp({ config, logger, clock: systemClock, instances: opened.instances, rateLimitStore: opened.rateLimitStore, metrics }),
  );
  await listen(server, config);
  const metricsServer = options.servesMetrics ? await listenForMetrics(config, logger, register) : undefined;
  const delivery = startWebhookDelivery({
    config,
    logger,
    clock: systemClock,
    instances: opened.instances,
    control: opened.control,
    metrics: metrics?.webhooks,
  });
  const purge = startPurgeSchedule({
    intervalMs: config.purgeIntervalMs,
    instances: opened.instances,
    control: opened.control,
    clock: systemClock,
    logger,
  });
  const schedules = startScheduleSweep({
    intervalMs: config.scheduleSweepIntervalMs,
    instances: opened.instances,
    control: opened.control,
    clock: systemClock,
    logger,
  });
  // Before the start message: a SIGTERM sent as soon as it is read must find the handler.
  onShutdownSignal(async (signal) => {
    await stop(server, logger, signal, async () => {
      metricsServer?.close();
      await delivery.stop();
      await purge.stop();
      await schedules.stop();
      await opened.close();
    });
    options.afterStop?.();
  });
  return portOf(server, config);
}

/** The Prometheus listener on METRICS_PORT (its own port: never the API's). */
export async function listenForMetrics(config: Config, logger: Logger, registry: Parameters<typeof startMetricsServer>[0]) {
  if (config.metricsPort === undefined) return undefined;
  const server = await startMetricsServer(registry, { host: config.metricsHost, port: config.metricsPort });
  logger.info({ url: `http://${config.metricsHost}:${config.metricsPort}/metrics` }, 'metrics listening');
  return server;
}

/** Runs `handler` on the first SIGTERM or SIGINT (a terminal's Ctrl-C reaches workers too). */
export function onShutdownSignal(handler: (signal: string) => Promise<void>): void {
  let started = false;
  const once = (signal: string) => {
    if (started) return;
    started = true;
    void handler(signal);
  };
  process.on('SIGTERM', once);
  process.on('SIGINT', once);
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

async function stop(server: Server, logger: Logger, signal: string, closeAll: () => Promise<void>): Promise<void> {
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
  await closeAll();
  logger.info('stopped');
}
