import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Clock } from '../clock';
import type { Db } from '../db/connect';
import { asUniqueViolation, isConflictAbort } from '../db/constraint-errors';
import { toSqlDateTime } from '../db/sql-time';
import { listRegisteredInstances } from '../instances/registry';
import type { InstanceSource } from '../instances/source';
import type { Logger } from '../logger';
import { sweepRotations } from '../shifts/rotations/rotation-writes';
import { announceAbsences } from './absences';

// The schedules sweep (docs/schedules.md "Sweeps"): rotations generated 90 days ahead and final
// absences announced, on one node at a time per database (a lease row in sweep_leases), with all
// its state in the database so a restart picks up where the last run stopped.

const LEASE = 'schedules';
/** How long a holder keeps the lease without renewing it: another node takes over after. */
const LEASE_MS = 30 * 60_000;

/** Takes or renews the lease for `holder`; false while another holder's lease runs. */
export async function acquireSweepLease(db: Db, holder: string, now: Date): Promise<boolean> {
  const expiresAt = toSqlDateTime(new Date(now.getTime() + LEASE_MS));
  const renewed = await db('sweep_leases')
    .where('name', LEASE)
    .where((free) => free.where('expires_at', '<', toSqlDateTime(now)).orWhere('holder', holder))
    .update({ holder, expires_at: expiresAt });
  if (renewed > 0) return true;
  try {
    await db('sweep_leases').insert({ name: LEASE, holder, expires_at: expiresAt });
    return true;
  } catch (error) {
    // Another holder's insert came first: on one server a unique violation, on a Galera cluster
    // (inserts through two nodes at once) a certification conflict.
    if (asUniqueViolation(error) || isConflictAbort(error)) return false;
    throw error;
  }
}

/** Gives the lease up, so that the next process (a restart) sweeps at once rather than after LEASE_MS. */
export async function releaseSweepLease(db: Db, holder: string): Promise<void> {
  await db('sweep_leases').where({ name: LEASE, holder }).delete();
}

/** One run on one database, if this holder gets the lease; what it did, or undefined without the lease. */
export async function runScheduleSweep(db: Db, holder: string, now: Date): Promise<{ generated: number; absences: number } | undefined> {
  if (!(await acquireSweepLease(db, holder, now))) return undefined;
  const generated = await sweepRotations(db, now);
  const absences = await announceAbsences(db, now);
  return { generated, absences };
}

/**
 * Runs the sweep every `intervalMs` (SCHEDULE_SWEEP_INTERVAL) on every instance this process
 * serves (src/start/serve.ts); stopping gives up the leases it holds.
 */
export function startScheduleSweep(options: {
  intervalMs: number;
  instances: InstanceSource;
  control?: Db;
  clock: Clock;
  logger: Logger;
}): {
  stop(): Promise<void>;
} {
  const { instances, control, clock, logger } = options;
  const holder = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const held = new Set<string | undefined>();
  let running: Promise<void> = Promise.resolve();
  const onInstance = async (name: string | undefined, work: (db: Db) => Promise<void>) => {
    const lease = await instances.acquire(name);
    if (!lease) return;
    try {
      await work(lease.instance.db);
    } finally {
      lease.release();
    }
  };
  const sweepInstance = (name: string | undefined) =>
    onInstance(name, async (db) => {
      const done = await runScheduleSweep(db, holder, clock.now());
      if (done) held.add(name);
      if (done && done.generated + done.absences > 0) logger.info({ instance: name, ...done }, 'schedules swept');
    });
  const tick = async () => {
    if (!control) return sweepInstance(undefined);
    for (const { name } of await listRegisteredInstances(control)) await sweepInstance(name);
  };
  const timer = setInterval(() => {
    running = running.then(tick).catch((error: unknown) => logger.warn({ err: error }, 'schedules sweep failed'));
  }, options.intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
      for (const name of held)
        await onInstance(name, (db) => releaseSweepLease(db, holder)).catch((error: unknown) =>
          logger.warn({ err: error, instance: name }, 'schedules lease not released'),
        );
    },
  };
}
