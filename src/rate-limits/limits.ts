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

/**
 * The limits of CONTRACT §8, counted by @fastify/rate-limit in `store`: per token for requests
 * with a correctly signed token, per client address for every other request (no token, or a bad
 * one: guessing tokens is limited too). Every limited response carries the IETF `RateLimit-Policy`
 * and `RateLimit` fields; a refused one is 429 with `Retry-After`. A limit of 0 is off.
 * Returns the hook; it runs after the settings gate and before authentication.
 */
export async function registerRateLimits(
  app: FastifyInstance,
  options: { limits: Config['rateLimit']; store: RateLimitStore; clock: Clock },
): Promise<(request: FastifyRequest, reply: FastifyReply) => Promise<void>> {
  await app.register(fastifyRateLimit, { global: false, ...storeOptions(options.store) });
  const keys = new WeakMap<FastifyRequest, string>();
  const keyOf = (request: FastifyRequest) => keys.get(request) ?? request.ip;
  const maxOf: Record<Policy, number> = { 'per-token': options.limits.perToken, 'per-ip': options.limits.perIp };
  const limiters = {
    'per-token': app.createRateLimit({ max: maxOf['per-token'], timeWindow: WINDOW_MS, keyGenerator: keyOf }),
    'per-ip': app.createRateLimit({ max: maxOf['per-ip'], timeWindow: WINDOW_MS, keyGenerator: keyOf }),
  };

  return async function enforceRateLimits(request, reply) {
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
