import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock';
import { asUniqueViolation } from '../db/constraint-errors';
import type { Db } from '../db/connect';
import { fromSqlDateTime } from '../db/sql-time';
import { BadRequestError, ConflictError, ValidationError } from '../errors';
import { callerOf, instanceOf } from '../http/context';
import { sendJsonText } from '../http/json-text';
import {
  completeClaim,
  findIdempotencyRecord,
  insertClaim,
  purgeIdempotencyKeys,
  releaseClaim,
  type StoredResponse,
  takeOverExpiredClaim,
} from './repository';

/** What a write answers: sent as is, and stored for replay when an Idempotency-Key was sent. */
export interface WriteResult {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** How long a running first request holds its key before a retry may take it over. */
const CLAIM_LEASE_MS = 60_000;
/** How long keys are remembered (CONTRACT §6: at least 24 hours). */
const KEY_RETENTION_MS = 24 * 3600 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Runs a write under the request's Idempotency-Key (CONTRACT §6). Without the header the write
 * just runs. With it: a retry with the same key and body gets the first response again and
 * writes nothing; the same key with another body is 422; while the first request still runs,
 * 409. The response is stored in the write's own transaction, so a write is never applied
 * without its key being completed, or the other way round. A write that fails (4xx or 5xx)
 * stores nothing and frees the key, as a request that changed nothing.
 */
export async function runWrite(
  request: FastifyRequest,
  reply: FastifyReply,
  clock: Clock,
  write: (db: Db) => Promise<WriteResult>,
): Promise<FastifyReply> {
  const { db } = instanceOf(request);
  const key = request.headers['idempotency-key'];
  if (key === undefined) return send(reply, await write(db));
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
    throw new BadRequestError({
      code: 'invalid_idempotency_key',
      detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters',
    });
  }

  const userId = callerOf(request).userId;
  const keyHash = sha256(key);
  const requestHash = requestHashOf(request.method, request.url, request.body);
  const now = clock.now();
  await purgeIdempotencyKeys(db, userId, new Date(now.getTime() - KEY_RETENTION_MS));

  const claimId = await claim(db, { userId, keyHash, requestHash, now });
  if (typeof claimId !== 'number') return replay(reply, claimId);
  try {
    const result = await db.transaction(async (trx) => {
      const written = await write(trx);
      await completeClaim(trx, claimId, toStored(written));
      return written;
    });
    return send(reply, result);
  } catch (error) {
    await releaseClaim(db, claimId);
    throw error;
  }
}

/** The claim's id when this request may run, or the stored response to replay. */
async function claim(
  db: Db,
  claim: { userId: number; keyHash: string; requestHash: string; now: Date },
): Promise<number | StoredResponse> {
  const lockedUntil = new Date(claim.now.getTime() + CLAIM_LEASE_MS);
  try {
    return await insertClaim(db, { ...claim, lockedUntil });
  } catch (error) {
    if (!asUniqueViolation(error)) throw error;
  }
  const existing = await findIdempotencyRecord(db, claim.userId, claim.keyHash);
  if (!existing) throw new ConflictError({ code: 'idempotency_key_in_use', detail: 'A request with this Idempotency-Key is still running' });
  if (existing.requestHash !== claim.requestHash) {
    throw new ValidationError([{ field: 'Idempotency-Key', message: 'was already used with another request body' }]);
  }
  if (existing.response) return existing.response;
  if (fromSqlDateTime(existing.lockedUntil) < claim.now && (await takeOverExpiredClaim(db, existing.id, claim.now, lockedUntil))) {
    return existing.id;
  }
  throw new ConflictError({ code: 'idempotency_key_in_use', detail: 'A request with this Idempotency-Key is still running; retry later' });
}

function toStored(result: WriteResult): StoredResponse {
  return { status: result.status, headers: result.headers ?? {}, body: JSON.stringify(result.body) };
}

function send(reply: FastifyReply, result: WriteResult): FastifyReply {
  return reply.code(result.status).headers(result.headers ?? {}).send(result.body);
}

function replay(reply: FastifyReply, stored: StoredResponse): FastifyReply {
  return sendJsonText(reply.code(stored.status).headers({ ...stored.headers, 'Idempotent-Replayed': 'true' }), stored.body);
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
