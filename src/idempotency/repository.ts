import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  /** The JSON body as sent. */
  body: string;
}

interface IdempotencyRecord {
  id: number;
  requestHash: string;
  /** withheld: completed, but the answer held a secret and was not stored. */
  state: 'in_progress' | 'completed' | 'withheld';
  lockedUntil: string;
  createdAt: string;
  response: StoredResponse | undefined;
}

export async function findIdempotencyRecord(db: Db, userId: number, keyHash: string): Promise<IdempotencyRecord | undefined> {
  const row: Record<string, unknown> | undefined = await db('idempotency_keys').where({ user_id: userId, key_hash: keyHash }).first();
  if (!row) return undefined;
  return {
    id: Number(row.id),
    requestHash: String(row.request_hash),
    state: row.state as IdempotencyRecord['state'],
    lockedUntil: String(row.locked_until),
    createdAt: String(row.created_at),
    response:
      row.state === 'completed'
        ? {
            status: Number(row.response_status),
            headers: JSON.parse(String(row.response_headers)) as Record<string, string>,
            body: String(row.response_body),
          }
        : undefined,
  };
}

/** Inserts the claim; the unique (user, key) index makes a concurrent second claim fail. */
export async function insertClaim(
  db: Db,
  claim: { userId: number; keyHash: string; requestHash: string; now: Date; lockedUntil: Date },
): Promise<number> {
  const [id] = await db('idempotency_keys').insert({
    user_id: claim.userId,
    key_hash: claim.keyHash,
    request_hash: claim.requestHash,
    state: 'in_progress',
    locked_until: toSqlDateTime(claim.lockedUntil),
    created_at: toSqlDateTime(claim.now),
  });
  return Number(id);
}

/** Takes over a claim whose first request died; false if someone else took it first. */
export async function takeOverExpiredClaim(db: Db, id: number, now: Date, lockedUntil: Date): Promise<boolean> {
  const changed = await db('idempotency_keys')
    .where({ id, state: 'in_progress' })
    .where('locked_until', '<', toSqlDateTime(now))
    .update({ locked_until: toSqlDateTime(lockedUntil) });
  return changed === 1;
}

export async function completeClaim(db: Db, id: number, response: StoredResponse): Promise<void> {
  await db('idempotency_keys')
    .where({ id })
    .update({
      state: 'completed',
      response_status: response.status,
      response_headers: JSON.stringify(response.headers),
      response_body: response.body,
    });
}

/** Completes a claim without its answer (one that held a secret). */
export async function withholdClaim(db: Db, id: number): Promise<void> {
  await db('idempotency_keys').where({ id }).update({ state: 'withheld' });
}

export async function releaseClaim(db: Db, id: number): Promise<void> {
  await db('idempotency_keys').where({ id, state: 'in_progress' }).delete();
}

/** Deletes a key kept past its retention (created before `before`); a newer one under its id stays. */
export async function forgetExpiredKey(db: Db, id: number, before: Date): Promise<void> {
  await db('idempotency_keys').where({ id }).where('created_at', '<', toSqlDateTime(before)).delete();
}
