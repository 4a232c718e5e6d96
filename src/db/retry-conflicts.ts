import { isConflictAbort, isNodeNotReady } from './constraint-errors';

/**
 * Runs of a write transaction at most. A conflict needs writes of the same rows through different
 * nodes within milliseconds of each other; 30 simultaneous updates of one employee spread over
 * three nodes (test/integration/galera-cluster.test.ts) lost more than 5 runs in a row, and on a
 * loaded machine one lost 10.
 */
const MAX_WRITE_ATTEMPTS = 16;
/** The longest pause between two runs; pauses double from 4 ms, each a random part of it. */
const MAX_PAUSE_MS = 200;

/**
 * Thrown inside a write transaction that met what a concurrent transaction committed after this
 * one read (a unique key it had checked for): run again, it reads that and decides with it.
 */
export class RunAgainError extends Error {
  constructor(readonly conflict: unknown) {
    super('A concurrent write committed what this transaction had checked for');
  }
}

/**
 * Runs `transaction` (a whole write transaction, from BEGIN to COMMIT) again when the database
 * aborted it for a conflict (isConflictAbort: a deadlock, or a Galera certification conflict with
 * a write committed through another node), refused it on a node that cannot serve (its
 * connection is dropped and the next runs on another node), or asked for it (RunAgainError).
 * Each rolls everything back, the idempotency record included, so a retried write is applied
 * once. A random pause, longer after each run, lets the winner's write reach this node first and
 * spreads the losers out. After the last run the error goes on: a 503 with Retry-After.
 */
export async function retryConflicts<T>(transaction: () => Promise<T>, onRetry?: (attempt: number, error: unknown) => void): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      const again = error instanceof RunAgainError;
      if (attempt >= MAX_WRITE_ATTEMPTS || !(again || isConflictAbort(error) || isNodeNotReady(error))) {
        throw again ? error.conflict : error;
      }
      onRetry?.(attempt, error);
      const pause = Math.min(MAX_PAUSE_MS, 2 ** (attempt + 1));
      await new Promise((resolve) => setTimeout(resolve, pause / 2 + (Math.random() * pause) / 2));
    }
  }
}
