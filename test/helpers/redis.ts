import { Redis } from 'ioredis';

const url = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A Redis client for tests, or undefined when none answers. Under CI=true an unreachable Redis
 * fails instead: CI must not skip the shared-store tests silently.
 */
export async function connectTestRedis(): Promise<Redis | undefined> {
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  try {
    await client.connect();
    await client.ping();
    return client;
  } catch (error) {
    client.disconnect();
    const reason = `Redis at ${url} is unreachable (${(error as Error).message})`;
    if (process.env.CI === 'true') throw new Error(`${reason}; CI=true requires the Redis rate-limit tests`, { cause: error });
    process.stderr.write(`\n*** SKIPPED the Redis rate-limit tests: ${reason} ***\n`);
    return undefined;
  }
}
