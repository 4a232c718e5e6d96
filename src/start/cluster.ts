import cluster from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { withServerNodeFlags } from '../node-flags';
import { open } from './open';
import { prepare } from './prepare';
import { listenForMetrics, onShutdownSignal, serve } from './serve';
import { announce, announceLateFirstAdmin } from './start-messages';

interface ListeningMessage {
  type: 'hrm:listening';
  port: number;
}

/**
 * WORKERS > 1: this process prepares the installation, forks the workers (node:cluster shares
 * the port among them), prints the start message once they all listen, restarts a worker that
 * dies, and on SIGTERM/SIGINT stops them all and waits for them.
 */
export async function runPrimary(config: Config, logger: Logger): Promise<void> {
  const { opened, notes } = await prepare(config, logger);
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
export async function runWorker(config: Config, logger: Logger): Promise<void> {
  const port = await serve(
    config,
    logger,
    open(config, logger, (firstAdmin) => announceLateFirstAdmin(config, firstAdmin)),
    {
      servesMetrics: false,
      // The IPC channel to the primary is the last thing keeping a worker alive.
      afterStop: () => process.disconnect?.(),
    },
  );
  const message: ListeningMessage = { type: 'hrm:listening', port };
  process.send?.(message);
}
