import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { bearerToken } from '../auth/bearer-token';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Db } from '../db/connect';
import { RateLimitedError } from '../errors';
import { instanceOf } from '../http/context';
import { databaseRateLimitStore } from './database-store';

const WINDOW_MS = 60_000;

/** Where the counts live, opened by main.ts (createApp opens nothing). */
export type RateLimitStore = { kind: 'memory' } | { kind: 'redis'; client: Redis } | { kind: 'database'; db: Db };

type Policy = 'per-token' | 'per-ip';

/** Failed password sign-ins allowed per window, by what they are counted against. */
const LOGIN_WINDOW_MS = 15 * 60_000;
const LOGIN_FAILURES = { 'user-ip': 5, user: 50, ip: 20 } as const;
type LoginCounter = keyof typeof LOGIN_FAILURES;

/** Limits on failed password sign-ins (POST /oauth/token). */
export interface LoginAttempts {
  /** 429 when this username, or this client, failed too often lately. */
  assertMayTry(request: FastifyRequest, username: string): Promise<void>;
  recordFailure(request: FastifyRequest, username: string): Promise<void>;
}

export interface RateLimits {
  /** The hook: after the settings gate, before authentication. */
  enforce(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  login: LoginAttempts;
}

/**
 * The limits of CONTRACT §8, counted by @fastify/rate-limit in `store`: per token for requests
 * with a correctly signed token, per client address for every other request (no token, or a bad
 * one: guessing tokens is limited too). Every limited response carries the IETF `RateLimit-Policy`
 * and `RateLimit` fields; a refused one is 429 with `Retry-After`. A limit of 0 is off.
 *
 * Failed password sign-ins are counted apart, per username and client address together (5 per
 * 15 minutes), per username (50) and per address (20): guessing is slow, and since the windows
 * end and the pair counts most, an attacker elsewhere cannot lock a user out for long.
 */
export async function registerRateLimits(
  app: FastifyInstance,
  options: { limits: Config['rateLimit']; store: RateLimitStore; clock: Clock },
): Promise<RateLimits> {
  await app.register(fastifyRateLimit, { global: false, ...storeOptions(options.store) });
  const keys = new WeakMap<FastifyRequest, string>();
  const keyOf = (request: FastifyRequest) => keys.get(request) ?? request.ip;
  const maxOf: Record<Policy, number> = { 'per-token': options.limits.perToken, 'per-ip': options.limits.perIp };
  const limiters = {
    'per-token': app.createRateLimit({ max: maxOf['per-token'], timeWindow: WINDOW_MS, keyGenerator: keyOf }),
    'per-ip': app.createRateLimit({ max: maxOf['per-ip'], timeWindow: WINDOW_MS, keyGenerator: keyOf }),
  };

  const enforce = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const instance = instanceOf(request);
    const token = bearerToken(request, instance, options.clock.now());
    const policy: Policy = token.kind === 'signed' ? 'per-token' : 'per-ip';
    const max = maxOf[policy];
    if (max === 0) return;
    keys.set(request, `${instance.realm}:${token.kind === 'signed' ? `token:${token.claims.jti}` : `ip:${request.ip}`}`);
    let result;
    try {
      result = await limiters[policy](request);
    } catch (error) {
      // An unreachable store must not take the API down with it: the request goes unlimited.
      request.log.warn({ err: error }, 'rate limit store unavailable');
      return;
    }
    if (result.isAllowed) return;
    reply.header('RateLimit-Policy', `"${policy}";q=${max};w=${WINDOW_MS / 1000}`);
    reply.header('RateLimit', `"${policy}";r=${result.remaining};t=${result.ttlInSeconds}`);
    if (result.isExceeded) {
      throw new RateLimitedError({
        retryAfterSeconds: result.ttlInSeconds,
        detail: `At most ${max} requests per minute ${policy === 'per-token' ? 'per token' : 'per client address without a valid token'}; retry in ${result.ttlInSeconds} s`,
      });
    }
  };
  return { enforce, login: loginAttempts(app) };
}

function loginAttempts(app: FastifyInstance): LoginAttempts {
  const usernames = new WeakMap<FastifyRequest, string>();
  const keyFor = (counter: LoginCounter) => (request: FastifyRequest) => {
    const user = usernames.get(request) ?? '';
    const realm = instanceOf(request).realm;
    if (counter === 'user-ip') return `${realm}:login:${user}|${request.ip}`;
    return counter === 'user' ? `${realm}:login-user:${user}` : `${realm}:login-ip:${request.ip}`;
  };
  const counters = (Object.keys(LOGIN_FAILURES) as LoginCounter[]).map((counter) =>
    app.createRateLimit({ max: LOGIN_FAILURES[counter], timeWindow: LOGIN_WINDOW_MS, keyGenerator: keyFor(counter) }),
  );
  return {
    async assertMayTry(request, username) {
      usernames.set(request, username.toLowerCase());
      const states = await Promise.all(counters.map((counter) => counter(request, { increment: false })));
      const blocked = states.filter((state) => !state.isAllowed && state.remaining === 0);
      if (blocked.length === 0) return;
      const retryAfterSeconds = Math.max(...blocked.map((state) => (state.isAllowed ? 0 : state.ttlInSeconds)));
      throw new RateLimitedError({ retryAfterSeconds, detail: `Too many failed sign-ins; retry in ${retryAfterSeconds} s` });
    },
    async recordFailure(request, username) {
      usernames.set(request, username.toLowerCase());
      await Promise.all(counters.map((counter) => counter(request)));
    },
  };
}

function storeOptions(store: RateLimitStore) {
  switch (store.kind) {
    case 'memory':
      return { cache: 100_000 };
    case 'redis':
      return { redis: store.client, nameSpace: 'hrm-rate-limit:' };
    case 'database':
      return { store: databaseRateLimitStore(store.db) };
  }
}
