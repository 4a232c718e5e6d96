import type { Clock } from '../clock';
import { isUnavailableError } from '../db/constraint-errors';
import { ServiceUnavailableError } from '../errors';
import type { InstanceLease, InstanceSource } from './source';

/** How long after a failed attempt to reach the database the next request may try again. */
const RETRY_AFTER_FAILURE_MS = 1000;

/**
 * An InstanceSource that prepares itself (migrations, the signing secret...) on first need
 * instead of at start, and tries again after a failure: a server started while its database is
 * down serves 503 (and /readyz 503) until the database answers, then works without a restart.
 * Concurrent requests share one attempt; attempts are at most one a second.
 */
export function recoveringSource(prepare: () => Promise<InstanceSource>, clock: Clock): InstanceSource {
  let ready: InstanceSource | undefined;
  let attempt: Promise<InstanceSource> | undefined;
  let failedAt = Number.NEGATIVE_INFINITY;

  const source = async (): Promise<InstanceSource> => {
    if (ready) return ready;
    if (!attempt) {
      if (clock.now().getTime() - failedAt < RETRY_AFTER_FAILURE_MS) throw new ServiceUnavailableError();
      attempt = prepare()
        .then((prepared) => (ready = prepared))
        .catch((error: unknown) => {
          failedAt = clock.now().getTime();
          throw error;
        })
        .finally(() => {
          attempt = undefined;
        });
    }
    try {
      return await attempt;
    } catch (error) {
      if (isUnavailableError(error)) throw new ServiceUnavailableError();
      throw error;
    }
  };

  return {
    acquire: async (name): Promise<InstanceLease | undefined> => (await source()).acquire(name),
    checkReady: async () => (await source()).checkReady(),
    // Not prepared yet: preparing queries the database too.
    needsLookup: (name) => (ready ? (ready.needsLookup?.(name) ?? false) : true),
  };
}
