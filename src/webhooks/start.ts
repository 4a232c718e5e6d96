import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Db } from '../db/connect';
import { listRegisteredInstances } from '../instances/registry';
import type { InstanceSource } from '../instances/source';
import type { Logger } from '../logger';
import { urlPolicyOf } from './routes';
import { DeliveryWorker, type WebhookMetrics } from './worker';

/** Cloud mode: how often the list of instances is read again, and an idle instance looked at. */
const CLOUD_RECHECK_MS = 60_000;

/**
 * The delivery worker of a server process (start/serve.ts; every WORKERS process runs one). Self-hosted
 * it looks at the one instance every half second. In cloud mode it walks the registered
 * instances: one with deliveries to send is looked at again on the next pass, one with none a
 * minute later, so a new event of an idle instance leaves within about a minute.
 */
export function startWebhookDelivery(options: {
  config: Config;
  logger: Logger;
  clock: Clock;
  instances: InstanceSource;
  /** Cloud mode's control database (the instance registry). */
  control?: Db;
  metrics?: WebhookMetrics;
}): DeliveryWorker {
  const { config, control, instances } = options;
  const cloud = config.deployment === 'cloud' && control !== undefined;
  return new DeliveryWorker({
    instances,
    instanceNames: cloud ? registeredNames(control, instances, options.clock) : async () => [undefined],
    clock: options.clock,
    logger: options.logger,
    policy: urlPolicyOf(config),
    timeoutMs: config.webhooks.timeoutMs,
    metrics: options.metrics,
    idleCheckMs: cloud ? CLOUD_RECHECK_MS : 0,
  }).start();
}

function registeredNames(control: Db, instances: InstanceSource, clock: Clock): () => Promise<string[]> {
  let names: string[] = [];
  let readAt = Number.NEGATIVE_INFINITY;
  return async () => {
    const now = clock.now().getTime();
    if (now - readAt >= CLOUD_RECHECK_MS) {
      // Migrates the control database on a first start, as the first request would.
      await instances.checkReady();
      names = (await listRegisteredInstances(control)).map((instance) => instance.name);
      readAt = now;
    }
    return names;
  };
}
