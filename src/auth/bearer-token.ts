import type { Request } from 'express';
import type { Instance } from '../instances/instance';
import { type AccessTokenClaims, TokenRejectedError, verifyAccessToken } from '../tokens/tokens';

const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i;

/** What the request's Authorization header holds, judged by signature and expiry alone. */
type BearerToken =
  | { kind: 'missing'; inQueryString: boolean }
  | { kind: 'malformed' }
  | { kind: 'rejected'; reason: string }
  | { kind: 'signed'; claims: AccessTokenClaims };

const checked = new WeakMap<Request, BearerToken>();

/**
 * Reads and verifies the bearer token once per request: the rate limiter (which keys on the
 * token) and authentication (which then checks its row) both ask.
 */
export function bearerToken(req: Request, instance: Instance, now: Date): BearerToken {
  let result = checked.get(req);
  if (!result) {
    result = readBearer(req, instance, now);
    checked.set(req, result);
  }
  return result;
}

function readBearer(req: Request, instance: Instance, now: Date): BearerToken {
  const header = req.headers.authorization;
  if (header === undefined) return { kind: 'missing', inQueryString: /[?&]access_token=/.test(req.originalUrl) };
  const token = BEARER.exec(header)?.[1];
  if (!token) return { kind: 'malformed' };
  try {
    return { kind: 'signed', claims: verifyAccessToken(instance.signingKey, token, now) };
  } catch (error) {
    if (error instanceof TokenRejectedError) return { kind: 'rejected', reason: error.message };
    throw error;
  }
}
