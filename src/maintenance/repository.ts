import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';

/**
 * Claims `job` for this process if it is due: moves its next_run_at to `nextRunAt` in one
 * conditional statement, which only one of several processes can win. True when this one did.
 */
export async function claimDueJob(db: Db, job: string, claim: { now: Date; nextRunAt: Date; claimedBy: string }): Promise<boolean> {
  // The first run ever: a row that is due at once (of concurrent inserts, one lands).
  await db('maintenance_runs')
    .insert({ job, next_run_at: toSqlDateTime(new Date(0)), claimed_by: null })
    .onConflict('job')
    .ignore();
  const moved = await db('maintenance_runs')
    .where({ job })
    .where('next_run_at', '<=', toSqlDateTime(claim.now))
    .update({ next_run_at: toSqlDateTime(claim.nextRunAt), claimed_by: claim.claimedBy.slice(0, 100) });
  return moved === 1;
}

/**
 * Deletes at most `limit` rows of `table` matching `where`, by primary key (a portable
 * DELETE ... LIMIT); returns how many.
 */
async function deleteBatch(db: Db, table: string, key: string, where: (query: ReturnType<Db>) => void, limit: number): Promise<number> {
  const query = db(table).select(key).limit(limit);
  where(query);
  const rows: Array<Record<string, unknown>> = await query;
  if (rows.length === 0) return 0;
  return db(table)
    .whereIn(
      key,
      rows.map((row) => row[key] as string | number),
    )
    .delete();
}

/** Token rows expired, or revoked, before `before`. */
export function deleteOldTokens(db: Db, before: Date, limit: number): Promise<number> {
  const cutoff = toSqlDateTime(before);
  return deleteBatch(
    db,
    'api_tokens',
    'id',
    (query) => void query.where((q) => q.where('expires_at', '<', cutoff).orWhere('revoked_at', '<', cutoff)),
    limit,
  );
}

/** Idempotency keys created before `before` (their answers are no longer replayed). */
export function deleteOldIdempotencyKeys(db: Db, before: Date, limit: number): Promise<number> {
  return deleteBatch(db, 'idempotency_keys', 'id', (query) => void query.where('created_at', '<', toSqlDateTime(before)), limit);
}

/** Rate-limit counts whose window started before `before` (milliseconds since the epoch). */
export function deleteOldRateLimits(db: Db, beforeMs: number, limit: number): Promise<number> {
  return deleteBatch(db, 'rate_limits', 'limit_key', (query) => void query.where('window_start', '<', beforeMs), limit);
}

/** Tombstones of employees deleted before `before` (the deletion feed keeps them 90 days at least). */
export function deleteOldEmployeeTombstones(db: Db, before: Date, limit: number): Promise<number> {
  return deleteBatch(db, 'deleted_employees', 'id', (query) => void query.where('deleted_at', '<', toSqlDateTime(before)), limit);
}

/** Tombstones of attendance records deleted before `before`. */
export function deleteOldAttendanceTombstones(db: Db, before: Date, limit: number): Promise<number> {
  return deleteBatch(db, 'deleted_attendance', 'id', (query) => void query.where('deleted_at', '<', toSqlDateTime(before)), limit);
}

/** Tombstones of leaves deleted before `before`. */
export function deleteOldLeaveTombstones(db: Db, before: Date, limit: number): Promise<number> {
  return deleteBatch(db, 'deleted_leaves', 'id', (query) => void query.where('deleted_at', '<', toSqlDateTime(before)), limit);
}

/** Tombstones of shifts deleted before `before`. */
export function deleteOldShiftTombstones(db: Db, before: Date, limit: number): Promise<number> {
  return deleteBatch(db, 'deleted_shifts', 'id', (query) => void query.where('deleted_at', '<', toSqlDateTime(before)), limit);
}
