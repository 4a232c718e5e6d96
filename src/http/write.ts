import type { Request, Response } from 'express';
import type { Knex } from 'knex';
import { idempotentWrite, requestHashOf, type WriteResult } from '../idempotency/idempotent';
import { callerOf, instanceOf } from './context';
import { sendJsonText } from './send';

/**
 * The HTTP side of every write: runs `write` through idempotentWrite (one transaction, the
 * request's Idempotency-Key), then, once it has committed, `afterCommit` (caches to forget), and
 * sends the answer. A replayed answer changed nothing, so it clears nothing.
 */
export async function sendWrite(
  req: Request,
  res: Response,
  now: Date,
  write: (trx: Knex.Transaction) => Promise<WriteResult>,
  afterCommit?: () => void,
): Promise<void> {
  const sent = req.headers['idempotency-key'];
  const key = Array.isArray(sent) ? sent.join(', ') : sent;
  const answer = await idempotentWrite(
    instanceOf(req).db,
    { userId: callerOf(req).userId, key, requestHash: key === undefined ? '' : requestHashOf(req.method, req.originalUrl, req.body), now },
    write,
  );
  if (answer.replayed) res.setHeader('Idempotent-Replayed', 'true');
  else afterCommit?.();
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  sendJsonText(res, answer.json, answer.status);
}
