import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { MemoryStore, type Options, rateLimit, type RateLimitInfo, type Store } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { RedisStore } from 'rate-limit-redis';
import type { Config } from '../config';
import type { Db } from '../db/connect';
import { RateLimitedError } from '../errors';
import { instanceOf } from '../http/context';
import type { Logger } from '../logger';
import { DatabaseStore } from './database-store';

const WINDOW_MS = 60_000;

/** Where the counts live, opened by start/open.ts (createApp opens nothing). */
export type RateLimitStore = { kind: 'memory' } | { kind: 'redis'; client: Redis } | { kind: 'database'; db: Db };

type Policy = 'per-token' | 'per-ip';

/** Sign-in attempts allowed per window, by what they are counted against. */
const LOGIN_WINDOW_MS = 15 * 60_000;
const LOGIN_FAILURES = { 'user-ip': 5, user: 50, ip: 20 } as const;
type LoginCounter = keyof typeof LOGIN_FAILURES;

/** Limits on password sign-ins (POST /oauth/token). */
export interface LoginAttempts {
  /**
   * Counts an attempt to sign in as `account` (the user found, or the name sent when there is
   * none: never a spelling the database would match to another user) from this client, before
   * its password is checked: 429 when too many failed lately. Counting first means that however many attempts
   * arrive at once, at most the limit's number of them reach the password check. A sign-in that
   * succeeds takes its attempt back with `succeeded`, so only failures count.
   */
  attempt(req: Request, account: string): Promise<{ succeeded(): Promise<void> }>;
}

interface RateLimits {
  /** The middleware: after the settings gate, before authentication. */
  perRequest: RequestHandler;
  /**
   * Cloud mode: the per-address limit, counted before a lookup of the instance registry (a
   * name not known yet), whoever asks: unknown instances have no realm to count in.
   */
  beforeInstanceLookup: RequestHandler;
  login: LoginAttempts;
}

interface RateLimitOptions {
  limits: Config['rateLimit'];
  store: RateLimitStore;
  logger: Logger;
  /**
   * The user (`sub`) of the request's bearer token when it is correctly signed (for this
   * instance), else undefined. Given by app.ts from authentication, so that this module knows
   * nothing of tokens.
   */
  signedUserOf(req: Request): string | undefined;
}

/**
 * The limits (docs/security.md, API4), counted by express-rate-limit in `store`: per token for requests
 * with a correctly signed token, per client address for every other request (no token, or a bad
 * one: guessing tokens is limited too). Every limited response carries the IETF `RateLimit-Policy`
 * and `RateLimit` fields; a refused one is 429 with `Retry-After`. A limit of 0 is off. A store
 * that fails (Redis down) lets requests through and logs it: losing the limiter must not take the
 * API down.
 *
 * Password sign-ins are counted apart, per username and client address together (5 failures per
 * 15 minutes), per username (50) and per address (20): guessing is slow, and since the windows
 * end and the pair counts most, an attacker elsewhere cannot lock a user out for long.
 */
export function createRateLimits(options: RateLimitOptions): RateLimits {
  const { limits } = options;
  const keyOf: Record<Policy, (req: Request) => string> = {
    // Per user, not per token id: a rotated token (POST /tokens) must not start a new count.
    'per-token': (req) => `${instanceOf(req).realm}:user:${options.signedUserOf(req)}`,
    'per-ip': (req) => `${instanceOf(req).realm}:ip:${req.clientIp}`,
  };
  const maxOf: Record<Policy, number> = { 'per-token': limits.perToken, 'per-ip': limits.perIp };
  const perText: Record<Policy, string> = { 'per-token': 'per token', 'per-ip': 'per client address without a valid token' };
  const limiter = (
    policy: Policy,
    keyGenerator = keyOf[policy],
    storeName: string = policy,
    per = perText[policy],
  ): RequestHandler | undefined => {
    const max = maxOf[policy];
    if (max === 0) return undefined;
    const fields = (info: RateLimitInfo) => {
      const seconds = secondsUntil(info.resetTime);
      return { policy: `"${policy}";q=${max};w=${WINDOW_MS / 1000}`, state: `"${policy}";r=${info.remaining};t=${seconds}`, seconds };
    };
    const limited = rateLimit({
      windowMs: WINDOW_MS,
      limit: max,
      store: newStore(options.store, storeName),
      keyGenerator,
      standardHeaders: false,
      legacyHeaders: false,
      passOnStoreError: true,
      logger: storeLogger(options.logger),
      // The key is ours (a token id or the address TRUST_PROXY settled), not express-rate-limit's.
      validate: { xForwardedForHeader: false, keyGeneratorIpFallback: false },
      handler: (req, res, next) => {
        const { policy: policyField, state, seconds } = fields(infoOf(req));
        res.setHeader('RateLimit-Policy', policyField);
        res.setHeader('RateLimit', state);
        next(
          new RateLimitedError({ retryAfterSeconds: seconds, detail: `At most ${max} requests per minute ${per}; retry in ${seconds} s` }),
        );
      },
    });
    return (req, res, next) =>
      limited(req, res, (error?: unknown) => {
        const info = (req as Request & { rateLimit?: RateLimitInfo }).rateLimit;
        // Not set when the store failed and the request went through unlimited.
        if (info && !error) {
          const { policy: policyField, state } = fields(info);
          res.setHeader('RateLimit-Policy', policyField);
          res.setHeader('RateLimit', state);
        }
        next(error);
      });
  };
  const perToken = limiter('per-token');
  const perIp = limiter('per-ip');
  const perRequest: RequestHandler =
    perToken || perIp
      ? (req, res, next) => {
          const enforce = options.signedUserOf(req) === undefined ? perIp : perToken;
          if (enforce) enforce(req, res, next);
          else next();
        }
      : (_req, _res, next) => next();
  const beforeLookup = limiter(
    'per-ip',
    (req) => `lookup:ip:${req.clientIp}`,
    'instance-lookup',
    'per client address for instances not looked up yet',
  );
  const beforeInstanceLookup: RequestHandler = beforeLookup ?? ((_req, _res, next) => next());
  return { perRequest, beforeInstanceLookup, login: loginAttempts(options.store, options.logger) };
}

function infoOf(req: Request): RateLimitInfo {
  const info = (req as Request & { rateLimit?: RateLimitInfo }).rateLimit;
  if (!info) throw new Error('express-rate-limit set no rateLimit on the request');
  return info;
}

function secondsUntil(time: Date | undefined): number {
  return time === undefined ? WINDOW_MS / 1000 : Math.max(1, Math.ceil((time.getTime() - Date.now()) / 1000));
}

function loginAttempts(kind: RateLimitStore, logger: Logger): LoginAttempts {
  const counters = (Object.keys(LOGIN_FAILURES) as LoginCounter[]).map((counter) => {
    const store = newStore(kind, `login-${counter}`);
    // Redis's store loads its scripts here; one that fails loads them again when first used.
    Promise.resolve(store.init?.({ windowMs: LOGIN_WINDOW_MS } as Options)).catch((error: unknown) => {
      logger.warn({ err: error }, 'rate limit store unavailable');
    });
    return { counter, max: LOGIN_FAILURES[counter], store };
  });
  const keyFor = (counter: LoginCounter, req: Request, account: string) => {
    const realm = instanceOf(req).realm;
    if (counter === 'user-ip') return `${realm}:${account}|${req.clientIp}`;
    return counter === 'user' ? `${realm}:${account}` : `${realm}:${req.clientIp}`;
  };
  return {
    async attempt(req, account) {
      const keys = counters.map(({ counter }) => keyFor(counter, req, account));
      let counted: Array<{ totalHits: number; resetTime: Date | undefined }>;
      try {
        counted = await Promise.all(counters.map(({ store }, index) => store.increment(keys[index] as string)));
      } catch (error) {
        // As for every request: a store that fails lets the attempt through, and the log says so.
        logger.warn({ err: error }, 'rate limit store unavailable');
        return { succeeded: async () => undefined };
      }
      const blocked = counted.filter((count, index) => count.totalHits > (counters[index]?.max ?? 0));
      if (blocked.length > 0) {
        const retryAfterSeconds = Math.max(...blocked.map((count) => secondsUntil(count.resetTime)));
        throw new RateLimitedError({ retryAfterSeconds, detail: `Too many failed sign-ins; retry in ${retryAfterSeconds} s` });
      }
      return {
        succeeded: async () => {
          await Promise.all(counters.map(({ store }, index) => store.decrement(keys[index] as string))).catch((error: unknown) => {
            logger.warn({ err: error }, 'rate limit store unavailable');
          });
        },
      };
    },
  };
}

/**
 * A store of `kind` for one counter (express-rate-limit wants one per limiter, and initialises
 * it); `name` keeps the counters' counts apart where they share Redis or the database.
 */
function newStore(kind: RateLimitStore, name: string): Store {
  return kind.kind === 'memory'
    ? new MemoryStore()
    : kind.kind === 'redis'
      ? new RedisStore({ sendCommand: redisCommands(kind.client), prefix: `hrm-rate-limit:${name}:` })
      : new DatabaseStore(kind.db, name);
}

/**
 * Sends rate-limit-redis's commands. Its store loads its Lua scripts once, when it starts, and
 * keeps a failed load for good: with Redis down at that moment the limits would stay off after
 * Redis came back. So a script load that fails answers the script's SHA1 (what Redis answers for
 * it) instead; once Redis is back, running the script finds it missing (NOSCRIPT), and the store
 * loads it again.
 */
function redisCommands(client: Redis): (command: string, ...args: string[]) => Promise<never> {
  return async (command, ...args) => {
    try {
      return (await client.call(command, ...args)) as never;
    } catch (error) {
      const [subcommand, script] = args;
      if (command.toUpperCase() === 'SCRIPT' && subcommand?.toUpperCase() === 'LOAD' && script !== undefined) {
        return createHash('sha1').update(script).digest('hex') as never;
      }
      throw error;
    }
  };
}

function storeLogger(logger: Logger): Options['logger'] {
  return {
    error: (error) => logger.warn({ err: error }, 'rate limit store unavailable'),
    warn: (error, message) => logger.warn({ err: error }, message ?? 'rate limiter warning'),
  };
}
