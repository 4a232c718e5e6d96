import type { RequestHandler } from 'express';
import { ServiceUnavailableError } from '../errors';
import { requestIdOf } from './context';
import { sendProblem } from './problem';

/**
 * A request not answered within `timeoutMs` gets 503 with Retry-After (REQUEST_TIMEOUT): a hung
 * database must not hang its clients. Whatever the handler does afterwards goes nowhere (the
 * error handler ends a response that was already answered).
 */
export function requestTimeout(timeoutMs: number): RequestHandler {
  return (req, res, next) => {
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      req.log.warn({ timeoutMs }, 'request timed out');
      sendProblem(
        res,
        new ServiceUnavailableError({ detail: 'The request took too long (the database may be unavailable); try again shortly' }),
        requestIdOf(req),
      );
    }, timeoutMs);
    res.once('close', () => clearTimeout(timer));
    next();
  };
}
