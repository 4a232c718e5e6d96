import { createHash, type KeyObject } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Clock } from '../clock';
import { LAST_USED_RESOLUTION_MS, touchOnce } from './last-used';
import { ForbiddenError, UnauthorizedError } from '../errors';
import { findDeviceByToken, touchDevice } from '../terminals/devices';
import { instanceOf } from '../http/context';
import { routePathOf } from '../http/routes';
import { findTokenPrincipal, touchToken } from '../users/token-repository';
import { bearerToken } from './bearer-token';
import { type AccessTokenClaims, deviceOfSubject } from '../tokens/tokens';

/**
 * Bearer authentication (docs/api.md, "Tokens"): every request that reaches it needs a token,
 * except OPTIONS, which only lists a path's methods (public routes are mounted in front of it).
 * For the paths in `callerEmployeeAt` the caller's employee record is read with the token, in the
 * same query; a device token reaches only `devicePaths`. A token passes
 * when its signature and expiry are valid and its row exists, is not revoked or expired, and its
 * user may still sign in. Every failure is 401 with a WWW-Authenticate challenge; the detail says
 * why, the status never differs.
 */
export function requireBearer(
  clock: Clock,
  options: { callerEmployeeAt: ReadonlySet<string>; devicePaths: ReadonlySet<string> },
): RequestHandler {
  const { callerEmployeeAt, devicePaths } = options;
  return async (req, _res, next) => {
    if (req.method === 'OPTIONS') return next();
    const instance = instanceOf(req);
    const reject = (detail: string, tokenSent = true): never => {
      throw new UnauthorizedError({ realm: instance.realm, tokenSent, detail });
    };

    const now = clock.now();
    const token = bearerToken(req, instance, now);
    switch (token.kind) {
      case 'missing':
        if (token.inQueryString) reject('Tokens in the query string are not accepted; send Authorization: Bearer <token>');
        return reject('Send the token in the header Authorization: Bearer <token>', false);
      case 'malformed':
        return reject('The Authorization header must be "Bearer <token>"');
      case 'rejected':
        return reject(token.reason);
    }
    const { claims } = token;
    const deviceId = deviceOfSubject(claims.sub);
    if (deviceId !== undefined) return next(await authenticateDevice(req, deviceId, claims, { now, devicePaths }, reject));

    const withEmployee = callerEmployeeAt.size > 0 && callerEmployeeAt.has(routePathOf(req));
    const principal = await findTokenPrincipal(instance.db, claims.jti, { withEmployee });
    if (!principal || String(principal.userId) !== claims.sub) return reject('The token is not valid');
    if (principal.revoked) return reject('The token has been revoked');
    if (principal.expiresAt.getTime() <= now.getTime()) return reject('The token has expired');
    if (principal.userDisabled) return reject('The user is disabled');
    if (principal.employeeStatus === 'Terminated') return reject("The user's employee record is terminated");

    // last_used_at is for people reviewing their tokens: a write at most once a minute per token.
    if (principal.lastUsedAt === null || now.getTime() - principal.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      await touchOnce(instance.db, `token:${principal.tokenId}`, now, () => touchToken(instance.db, principal.tokenId, now));
    }
    req.caller = {
      userId: principal.userId,
      username: principal.username,
      role: principal.role,
      employeeId: principal.employeeId,
      tokenId: principal.tokenId,
    };
    req.callerEmployee = principal.employee;
    next();
  };
}

/**
 * A device token (src/terminals): valid while its device is not deleted and is active; on any
 * path but those declaring `deviceToken` (the punch logs) it is 403 (RFC 6750
 * insufficient_scope), whatever the path is.
 */
async function authenticateDevice(
  req: Request,
  deviceId: number,
  claims: AccessTokenClaims,
  { now, devicePaths }: { now: Date; devicePaths: ReadonlySet<string> },
  reject: (detail: string) => never,
): Promise<undefined> {
  const instance = instanceOf(req);
  const device = await findDeviceByToken(instance.db, claims.jti);
  if (!device || device.id !== deviceId) return reject('The token is not valid');
  if (device.revoked) return reject('The token has been revoked');
  if (device.tokenExpiresAt.getTime() <= now.getTime()) return reject('The token has expired');
  if (!device.active) return reject('The device is not active');
  if (!devicePaths.has(routePathOf(req))) {
    throw new ForbiddenError({
      detail: `A device token may only upload and read punch logs (${[...devicePaths].join(', ')})`,
      headers: { 'WWW-Authenticate': `Bearer realm="${instance.realm}", error="insufficient_scope"` },
    });
  }
  if (device.lastUsedAt === null || now.getTime() - device.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await touchOnce(instance.db, `device:${device.id}`, now, () => touchDevice(instance.db, device.id, now));
  }
  req.device = device;
  return undefined;
}

/**
 * The user (`sub`) of the request's token when it is correctly signed for its instance: what the
 * per-token rate limit keys on, so that rotating tokens or holding several does not reset it.
 * Qualified by a fingerprint of the signing key: self-hosted installations all have the realm
 * "hrm" and users numbered from 1, and may share one Redis.
 */
export function signedUserOf(clock: Clock): (req: Request) => string | undefined {
  return (req) => {
    const instance = instanceOf(req);
    const token = bearerToken(req, instance, clock.now());
    return token.kind === 'signed' ? `${fingerprintOf(instance.signingKey)}:${token.claims.sub}` : undefined;
  };
}

const fingerprints = new WeakMap<KeyObject, string>();

/** A short, one-way name for a signing key (16 characters of its SHA-256). */
function fingerprintOf(key: KeyObject): string {
  let fingerprint = fingerprints.get(key);
  if (fingerprint === undefined) {
    fingerprint = createHash('sha256').update(key.export()).digest('base64url').slice(0, 16);
    fingerprints.set(key, fingerprint);
  }
  return fingerprint;
}
