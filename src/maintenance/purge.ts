import os from 'node:os';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Clock } from '../clock';
import type { Db } from '../db/connect';
import { KEY_RETENTION_MS } from '../idempotency/idempotent';
import { listRegisteredInstances } from '../instances/registry';
import type { InstanceSource } from '../instances/source';
import type { Logger } from '../logger';
import {
  claimDueJob,
  deleteOldAttendanceTombstones,
  deleteOldShiftTombstones,
  deleteOldEmployeeTombstones,
  deleteOldLeaveTombstones,
  deleteOldIdempotencyKeys,
  deleteOldRateLimits,
  deleteOldTokens,
} from './repository';

/** How long rows are kept once they are of no more use (docs/security.md, README). */
export const RETENTION_MS = {
  /** Expired or revoked tokens stay listed (GET /tokens) for 30 days, then go. */
  tokens: 30 * 86_400_000,
  /** Idempotency keys: replayed for 24 hours (docs/api.md, "Retrying writes"). */
  idempotencyKeys: KEY_RETENTION_MS,
  /** Rate-limit counts: the longest window is 15 minutes (sign-ins). */
  rateLimits: 3_600_000,
  /**
   * Deletion tombstones: the feeds promise at least 90 days (docs/api.md, "Keeping a copy in
   * sync"); a week more, so that a sync that runs a little late still finds every deletion.
   */
  tombstones: 97 * 86_400_000,
};

const JOB = 'purge';
const BATCH_SIZE = 500;
/** A run deletes at most this many batches per table; the next run goes on. */
const MAX_BATCHES = 200;

interface PurgeCounts {
  tokens: number;
  idempotencyKeys: number;
  rateLimits: number;
  /** Tombstones of deleted employees and attendance records. */
  tombstones: number;
}

/**
 * Deletes what has outlived its retention, in batches of `batchSize` rows (one short statement
 * each, so writers never wait long for a lock), letting other work run between batches.
 */
export async function purgeOldRows(db: Db, now: Date, options: { batchSize?: number; only?: 'rateLimits' } = {}): Promise<PurgeCounts> {
  const batchSize = options.batchSize ?? BATCH_SIZE;
  const inBatches = async (deleteBatch: () => Promise<number>) => {
    let total = 0;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const deleted = await deleteBatch();
      total += deleted;
      if (deleted < batchSize) break;
      await yieldToEventLoop();
    }
    return total;
  };
  const time = now.getTime();
  const rateLimits = () => inBatches(() => deleteOldRateLimits(db, time - RETENTION_MS.rateLimits, batchSize));
  // Cloud mode's control database holds only the rate-limit counts (RATE_LIMIT_STORE=database).
  if (options.only === 'rateLimits') return { tokens: 0, idempotencyKeys: 0, rateLimits: await rateLimits(), tombstones: 0 };
  const tombstonesBefore = new Date(time - RETENTION_MS.tombstones);
  return {
    tokens: await inBatches(() => deleteOldTokens(db, new Date(time - RETENTION_MS.tokens), batchSize)),
    idempotencyKeys: await inBatches(() => deleteOldIdempotencyKeys(db, new Date(time - RETENTION_MS.idempotencyKeys), batchSize)),
    rateLimits: await rateLimits(),
    tombstones:
      (await inBatches(() => deleteOldEmployeeTombstones(db, tombstonesBefore, batchSize))) +
      (await inBatches(() => deleteOldAttendanceTombstones(db, tombstonesBefore, batchSize))) +
      (await inBatches(() => deleteOldLeaveTombstones(db, tombstonesBefore, batchSize))) +
      (await inBatches(() => deleteOldShiftTombstones(db, tombstonesBefore, batchSize))),
  };
}

/**
 * Purges `db` if no process has done so within `intervalMs`: of all the processes sharing the
 * database (cluster workers, several servers), the one whose claim lands runs it; the others get
 * undefined. The claim is a conditional UPDATE of the job's row, so it works the same on SQLite
 * and MySQL, needs no held connection or lock, and a process that dies mid-run only delays the
 * next run to its time.
 */
export async function purgeIfDue(
  db: Db,
  options: { now: Date; intervalMs: number; claimedBy?: string; batchSize?: number; only?: 'rateLimits' },
): Promise<PurgeCounts | undefined> {
  const { now } = options;
  const claimedBy = options.claimedBy ?? `${os.hostname()}:${process.pid}`;
  if (!(await claimDueJob(db, JOB, { now, nextRunAt: new Date(now.getTime() + options.intervalMs), claimedBy }))) return undefined;
  return purgeOldRows(db, now, { batchSize: options.batchSize, only: options.only });
}

export interface PurgeSchedule {
  /** Stops the schedule and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * The purge of a server process (start/serve.ts; every process starts one, the claim picks who runs).
 * Each process looks every quarter interval whether a run is due for the one instance; in cloud
 * mode, once per interval for each registered instance. `intervalMs` 0 starts nothing.
 */
export function startPurgeSchedule(options: {
  intervalMs: number;
  instances: InstanceSource;
  /** Cloud mode's control database (the instance registry). */
  control?: Db;
  clock: Clock;
  logger: Logger;
}): PurgeSchedule {
  const { intervalMs, instances, control, clock, logger } = options;
  if (intervalMs === 0) return { stop: async () => undefined };
  let running: Promise<void> = Promise.resolve();
  const purgeInstance = async (name: string | undefined) => {
    const lease = await instances.acquire(name);
    if (!lease) return;
    try {
      const counts = await purgeIfDue(lease.instance.db, { now: clock.now(), intervalMs });
      if (counts && counts.tokens + counts.idempotencyKeys + counts.rateLimits + counts.tombstones > 0)
        logger.info({ instance: name, ...counts }, 'purged old rows');
    } finally {
      lease.release();
    }
  };
  // Cloud mode: each process looks at an instance once per interval, not every tick, so that
  // idle instances' databases are not opened four times an interval by every process.
  const lookedAt = new Map<string, number>();
  const tick = async () => {
    if (!control) return purgeInstance(undefined);
    const counts = await purgeIfDue(control, { now: clock.now(), intervalMs, only: 'rateLimits' });
    if (counts && counts.rateLimits > 0) logger.info({ control: true, ...counts }, 'purged old rows');
    for (const { name } of await listRegisteredInstances(control)) {
      const now = clock.now().getTime();
      if (now - (lookedAt.get(name) ?? Number.NEGATIVE_INFINITY) < intervalMs) continue;
      lookedAt.set(name, now);
      await purgeInstance(name);
    }
  };
  const timer = setInterval(
    () => {
      running = running.then(tick).catch((error: unknown) => logger.warn({ err: error }, 'purge failed'));
    },
    Math.max(1000, Math.floor(intervalMs / 4)),
  );
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
