import type { Request, RequestHandler } from 'express';
import type { Config } from '../config';
import { RateLimitedError } from '../errors';
import { instanceOf } from '../http/context';

/** Seconds a refused caller is told to wait: a turn comes free as soon as one of its lists is answered. */
const RETRY_AFTER_SECONDS = 1;

/** One caller's heavy requests: how many are being served, and who waits for a turn, first come first served. */
interface Budget {
  running: number;
  waiting: Array<() => void>;
}

/**
 * A budget of concurrent heavy requests per caller: at most `limit` GET (or HEAD) requests on the
 * `heavyAt` paths (patterns under the base path, /employees/:id/attendance) are served at once
 * for one caller; more wait for a turn, in order, up to `waitMs`, then get 429
 * `too_many_concurrent_requests` with Retry-After. One token cannot hold the database with a
 * flood of costly lists while other callers' requests queue behind them (docs/security.md, API4).
 *
 * The caller is the user behind the token, the terminal behind a device token, or else the
 * client address; in cloud mode, within its instance. Mount it after authentication. The counts
 * are this process's: with WORKERS or several servers, each process gives each caller its own
 * budget. A turn ends when the response is sent or the client goes away.
 */
export function limitCallerConcurrency(options: Config['callerConcurrency'], heavyAt: readonly string[]): RequestHandler {
  const { limit, waitMs } = options;
  if (limit === 0 || heavyAt.length === 0) return (_req, _res, next) => next();
  const heavy = new RegExp(`^(?:${heavyAt.map(patternSource).join('|')})/?$`, 'i');
  const budgets = new Map<string, Budget>();

  const refusal = () =>
    new RateLimitedError({
      code: 'too_many_concurrent_requests',
      retryAfterSeconds: RETRY_AFTER_SECONDS,
      detail: `At most ${limit} list requests of one caller are served at once; retry in ${RETRY_AFTER_SECONDS} s`,
    });
  const forgetIfIdle = (key: string, budget: Budget) => {
    if (budget.running === 0 && budget.waiting.length === 0) budgets.delete(key);
  };
  /** Hands free turns to the callers waiting, in order (one whose client left passes its turn on). */
  const passTurns = (key: string, budget: Budget) => {
    while (budget.running < limit && budget.waiting.length > 0) budget.waiting.shift()?.();
    forgetIfIdle(key, budget);
  };

  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !heavy.test(req.path)) return next();
    // A client that went away while authentication ran has no answer to wait for, and its close
    // has passed: a turn it took would never be given back.
    if (res.closed) return;
    const key = callerKey(req);
    let budget = budgets.get(key);
    if (!budget) budgets.set(key, (budget = { running: 0, waiting: [] }));
    const current = budget;

    const serve = () => {
      current.running++;
      res.once('close', () => {
        current.running--;
        passTurns(key, current);
      });
      // The list starts on the event loop's next turn: the requests already received (another
      // caller's GET /employees/me) go first, and on SQLite, whose queries hold the thread from
      // start to end, a flood's other lists meet a spent budget instead of each running at once.
      setImmediate(next);
    };
    if (current.running < limit) return serve();
    if (waitMs === 0) return next(refusal());

    const stopWaiting = () => {
      clearTimeout(timer);
      res.off('close', gaveUp);
      const index = current.waiting.indexOf(turn);
      if (index !== -1) current.waiting.splice(index, 1);
    };
    const turn = () => {
      stopWaiting();
      if (!res.closed) serve();
    };
    const timer = setTimeout(() => {
      stopWaiting();
      forgetIfIdle(key, current);
      next(refusal());
    }, waitMs);
    // A client that goes away (or a request that times out) while waiting gives its place up.
    const gaveUp = () => {
      stopWaiting();
      forgetIfIdle(key, current);
    };
    res.once('close', gaveUp);
    current.waiting.push(turn);
  };
}

/** Who a request counts against: its user, its terminal, or its client address; within its instance. */
function callerKey(req: Request): string {
  const realm = instanceOf(req).realm;
  if (req.caller) return `${realm}:user:${req.caller.userId}`;
  if (req.device) return `${realm}:device:${req.device.id}`;
  return `${realm}:ip:${req.clientIp}`;
}

/** A route pattern as a regular expression: `:name` is one path segment, the rest literal. */
function patternSource(pattern: string): string {
  return pattern
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
}
