import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Clock } from '../clock';
import type { Db } from '../db/connect';
import { asUniqueViolation } from '../db/constraint-errors';
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
export const SWEEP_INTERVAL_MS = 15 * 60_000;

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
    if (asUniqueViolation(error)) return false;
    throw error;
  }
}

/** One run on one database, if this holder gets the lease; what it did, or undefined without the lease. */
export async function runScheduleSweep(db: Db, holder: string, now: Date): Promise<{ generated: number; absences: number } | undefined> {
  if (!(await acquireSweepLease(db, holder, now))) return undefined;
  const generated = await sweepRotations(db, now);
  const absences = await announceAbsences(db, now);
  return { generated, absences };
}

/** Runs the sweep every SWEEP_INTERVAL_MS on every instance this process serves (src/start/serve.ts). */
export function startScheduleSweep(options: { instances: InstanceSource; control?: Db; clock: Clock; logger: Logger }): {
  stop(): Promise<void>;
} {
  const { instances, control, clock, logger } = options;
  const holder = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  let running: Promise<void> = Promise.resolve();
  const sweepInstance = async (name: string | undefined) => {
    const lease = await instances.acquire(name);
    if (!lease) return;
    try {
      const done = await runScheduleSweep(lease.instance.db, holder, clock.now());
      if (done && done.generated + done.absences > 0) logger.info({ instance: name, ...done }, 'schedules swept');
    } finally {
      lease.release();
    }
  };
  const tick = async () => {
    if (!control) return sweepInstance(undefined);
    for (const { name } of await listRegisteredInstances(control)) await sweepInstance(name);
  };
  const timer = setInterval(() => {
    running = running.then(tick).catch((error: unknown) => logger.warn({ err: error }, 'schedules sweep failed'));
  }, SWEEP_INTERVAL_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
