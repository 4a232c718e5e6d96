import cluster from 'node:cluster';
import dotenv from 'dotenv';
import { type Config, ConfigError, loadConfig } from './config';
import { SchemaTooNewError } from './db/migrate';
import { createLogger, type Logger, standardOutput } from './logger';
import { runPrimary, runWorker } from './start/cluster';
import { prepare } from './start/prepare';
import { serve } from './start/serve';
import { announce } from './start/start-messages';

/** The process entry: the configuration, the logger, and one of three ways to run. */
async function main(): Promise<void> {
  dotenv.config({ quiet: true });
  const config = loadConfig();
  const logger = createLogger(config, standardOutput(process.stdout.isTTY === true));
  if (cluster.isWorker) return runWorker(config, logger);
  if (config.workers > 1) return runPrimary(config, logger);
  return runSingle(config, logger);
}

/** WORKERS=1: this process prepares the installation, serves, and says where. */
async function runSingle(config: Config, logger: Logger): Promise<void> {
  const { opened, notes } = await prepare(config, logger);
  const port = await serve(config, logger, opened, { servesMetrics: true });
  announce(config, logger, port, notes);
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof SchemaTooNewError;
  const reason = error instanceof Error ? error.message : String(error);
  process.stderr.write(`hrm: ${known ? reason : `could not start: ${reason}`}\n`);
  process.exit(1);
});
