import dotenv from 'dotenv';
import type { FastifyInstance } from 'fastify';
import { createApp } from './app';
import { createFirstAdmin, type FirstAdmin } from './auth/first-admin';
import { systemClock } from './clock';
import { ConfigError, loadConfig } from './config';
import { openDatabase } from './db/connect';
import { SchemaTooNewError } from './db/migrate';
import { openInstance } from './instance';
import { createLogger, type Logger, standardOutput } from './logger';
import { Metrics, startMetricsServer } from './metrics/metrics';
import { closeRateLimitStore, openRateLimitStore } from './rate-limits/store';

const SHUTDOWN_TIMEOUT_MS = 10_000;

async function main(): Promise<void> {
  dotenv.config({ quiet: true });
  const config = loadConfig();
  const logger = createLogger(config, standardOutput());
  const db = openDatabase(config.database);
  const instance = await openInstance(db, { clock: systemClock, jwtSecret: config.jwtSecret });
  const firstAdmin = await createFirstAdmin(instance, systemClock.now());
  const { restApiEnabled } = await instance.settings.get();

  const rateLimitStore = openRateLimitStore(config, db);
  const metrics = config.metricsPort === undefined ? undefined : new Metrics(() => [{ name: 'main', db }]);
  const app = createApp({ config, logger, clock: systemClock, instance, rateLimitStore, metrics });
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const apiUrl = `http://${config.host}:${port}${config.basePath}`;
  logger.info({ url: apiUrl, database: config.database.client }, 'server listening');
  const metricsServer =
    metrics && config.metricsPort !== undefined
      ? await startMetricsServer(metrics.registry, { host: config.metricsHost, port: config.metricsPort })
      : undefined;
  if (metricsServer) logger.info({ url: `http://${config.metricsHost}:${config.metricsPort}/metrics` }, 'metrics listening');
  // For the person starting the server, not for the log: printed whatever LOG_LEVEL is.
  process.stdout.write(startMessage(apiUrl, firstAdmin, restApiEnabled));

  const shutdown = (signal: string) =>
    stop(app, logger, signal, async () => {
      metricsServer?.close();
      await closeRateLimitStore(rateLimitStore);
      await db.destroy();
    });
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

function startMessage(apiUrl: string, firstAdmin: FirstAdmin | undefined, apiEnabled: boolean): string {
  const lines = [`\nHRM API listening on ${apiUrl}`];
  if (firstAdmin) {
    lines.push(
      '',
      `First start: created the user "${firstAdmin.username}" (linked to employee ${firstAdmin.employeeId}) and this token for it.`,
      'It is shown only once; keep it secret:',
      '',
      `  ${firstAdmin.token}`,
      '',
      'More tokens: npm run -s hrm -- token issue --username admin',
    );
  }
  if (!apiEnabled) {
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

async function stop(app: FastifyInstance, logger: Logger, signal: string, closeDatabase: () => Promise<void>): Promise<void> {
  logger.info({ signal }, 'shutting down');
  const forced = setTimeout(() => {
    logger.error('in-flight requests did not finish in time; exiting');
    process.exit(1);
  }, SHUTDOWN_TIMEOUT_MS);
  forced.unref();
  // Stop accepting connections, let in-flight requests finish, then close the pool.
  await app.close();
  await closeDatabase();
  logger.info('stopped');
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof SchemaTooNewError;
  const reason = error instanceof Error ? error.message : String(error);
  process.stderr.write(`hrm: ${known ? reason : `could not start: ${reason}`}\n`);
  process.exit(1);
});
