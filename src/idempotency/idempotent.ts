import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { asUniqueViolation } from '../db/constraint-errors';
import { retryConflicts } from '../db/retry-conflicts';
import type { Db } from '../db/connect';
import { fromSqlDateTime } from '../db/sql-time';
import { BadRequestError, ConflictError, ValidationError } from '../errors';
import {
  completeClaim,
  findIdempotencyRecord,
  forgetExpiredKey,
  insertClaim,
  releaseClaim,
  type StoredResponse,
  takeOverExpiredClaim,
  withholdClaim,
} from './repository';

/** What a write answers: sent as is, and stored for replay when an Idempotency-Key was sent. */
export interface WriteResult {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
  /**
   * The answer holds a credential (a bearer token, a signing secret): under an Idempotency-Key
   * only the fact that the write happened is stored, never the answer, and a retry is 409.
   */
  secret?: boolean;
}

/** A write's answer as it goes out: its body as JSON text, and whether it is a replay. */
interface WriteAnswer {
  status: number;
  headers: Record<string, string>;
  json: string;
  replayed: boolean;
}

/** Who asks, with which key (the Idempotency-Key header, if sent), and what for (requestHashOf). */
interface WriteRequest {
  userId: number;
  key: string | undefined;
  requestHash: string;
  now: Date;
}

/** How long a running first request holds its key before a retry may take it over. */
const CLAIM_LEASE_MS = 60_000;
/** How long keys are remembered (docs/api.md, "Retrying writes": at least 24 hours). */
export const KEY_RETENTION_MS = 24 * 3600 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Every write of the API goes through here: `write` runs in one transaction, which it is given
 * and passes down to the repositories it calls, and the answer it returns comes back to be sent.
 *
 * Under an Idempotency-Key (docs/api.md, "Retrying writes") a retry with the same key and request gets the first
 * answer again and writes nothing; the same key with another request is 422; while the first
 * request still runs, 409. The answer is stored in the write's own transaction, so a write is
 * never applied without its key being completed, or the other way round. A write that fails
 * (4xx or 5xx) stores nothing and frees the key, as a request that changed nothing. An answer
 * marked `secret` is sent but not stored: the key is kept as used, and a retry is 409.
 *
 * A transaction the database aborts for a conflict (a deadlock, or a Galera certification
 * conflict with a write committed through another node) runs again whole (retryConflicts): a
 * conflict is never the client's problem, and the rollback took the key's completion with it.
 */
export async function idempotentWrite(
  db: Db,
  request: WriteRequest,
  write: (trx: Knex.Transaction) => Promise<WriteResult>,
): Promise<WriteAnswer> {
  const answered = async (trx: Knex.Transaction) => {
    const result = await write(trx);
    return { answer: answerOf(result), secret: result.secret === true };
  };
  if (request.key === undefined) return retryConflicts(() => db.transaction(async (trx) => (await answered(trx)).answer));
  if (!KEY_PATTERN.test(request.key)) {
    throw new BadRequestError({ code: 'invalid_idempotency_key', detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters' });
  }

  const { userId, now } = request;
  const keyHash = sha256(request.key);
  const claimId = await retryConflicts(() => claim(db, { userId, keyHash, requestHash: request.requestHash, now }));
  if (typeof claimId !== 'number') return { ...claimId, json: claimId.body, replayed: true };
  try {
    return await retryConflicts(() =>
      db.transaction(async (trx) => {
        const { answer, secret } = await answered(trx);
        if (secret) await withholdClaim(trx, claimId);
        else await completeClaim(trx, claimId, { status: answer.status, headers: answer.headers, body: answer.json });
        return answer;
      }),
    );
  } catch (error) {
    await releaseClaim(db, claimId);
    throw error;
  }
}

/** The claim's id when this request may run, or the stored response to replay. */
async function claim(db: Db, claim: { userId: number; keyHash: string; requestHash: string; now: Date }): Promise<number | StoredResponse> {
  const lockedUntil = new Date(claim.now.getTime() + CLAIM_LEASE_MS);
  const forgottenBefore = new Date(claim.now.getTime() - KEY_RETENTION_MS);
  let existing: Awaited<ReturnType<typeof findIdempotencyRecord>>;
  for (let attempt = 1; ; attempt++) {
    try {
      return await insertClaim(db, { ...claim, lockedUntil });
    } catch (error) {
      if (!asUniqueViolation(error)) throw error;
    }
    existing = await findIdempotencyRecord(db, claim.userId, claim.keyHash);
    // A key older than its retention is forgotten, whether or not the purge has removed it yet:
    // it goes, and the claim is made again (once: a second collision is a request of now).
    if (attempt > 1 || !existing || fromSqlDateTime(existing.createdAt) >= forgottenBefore) break;
    await forgetExpiredKey(db, existing.id, forgottenBefore);
  }
  if (!existing)
    throw new ConflictError({ code: 'idempotency_key_in_use', detail: 'A request with this Idempotency-Key is still running' });
  if (existing.requestHash !== claim.requestHash) {
    throw new ValidationError([{ field: 'Idempotency-Key', message: 'was already used with another request body' }]);
  }
  if (existing.state === 'withheld') {
    throw new ConflictError({
      code: 'idempotency_answer_not_stored',
      detail:
        'The request with this Idempotency-Key succeeded; its answer held a secret, which is never stored, so it cannot be sent again',
    });
  }
  if (existing.response) return existing.response;
  if (fromSqlDateTime(existing.lockedUntil) < claim.now && (await takeOverExpiredClaim(db, existing.id, claim.now, lockedUntil))) {
    return existing.id;
  }
  throw new ConflictError({ code: 'idempotency_key_in_use', detail: 'A request with this Idempotency-Key is still running; retry later' });
}

function answerOf(result: WriteResult): WriteAnswer {
  return { status: result.status, headers: result.headers ?? {}, json: JSON.stringify(result.body), replayed: false };
}

/** What makes two requests "the same" for a key: method, path and body (key order aside). */
export function requestHashOf(method: string, url: string, body: unknown): string {
  return sha256(`${method} ${url.split('?')[0]}\n${canonicalJson(body)}`);
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** JSON with object keys sorted, so that key order does not make two equal bodies differ. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
