import { Redis } from 'ioredis';
import type { Config } from '../config';
import type { Db } from '../db/connect';
import type { RateLimitStore } from './limits';

/** Opens the store RATE_LIMIT_STORE names; `db` is the database of DATABASE_URL. */
export function openRateLimitStore(config: Config, db: Db): RateLimitStore {
  switch (config.rateLimit.store) {
    case 'memory':
      return { kind: 'memory' };
    case 'database':
      return { kind: 'database', db };
    case 'redis':
      // Fail fast instead of queueing commands while Redis is away: the limiter then lets
      // requests through (and logs it) rather than making every request wait.
      return {
        kind: 'redis',
        client: new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000 }),
      };
  }
}

export async function closeRateLimitStore(store: RateLimitStore): Promise<void> {
  if (store.kind === 'redis') await store.client.quit().catch(() => undefined);
}
