import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';

export interface AccessTokenClaims {
  /** User id. */
  sub: string;
  /** Token id: the primary key of its api_tokens row. */
  jti: string;
  iat: number;
  exp: number;
}

type TokenRejection = 'expired' | 'invalid';

export class TokenRejectedError extends Error {
  constructor(readonly reason: TokenRejection) {
    super(reason === 'expired' ? 'The token has expired' : 'The token is not valid');
  }
}

/**
 * The instance's secret as a KeyObject, made once. Given a string, jsonwebtoken first tries to
 * parse it as a public key on every call, fifty times the cost of a verify with a KeyObject.
 */
export function signingKeyFrom(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret, 'utf8'));
}

export function signAccessToken(key: KeyObject, token: { userId: number; tokenId: string; issuedAt: Date; expiresAt: Date }): string {
  return signToken(key, { subject: String(token.userId), ...token });
}

/** A device token's subject: `device:<id>`, which no user id can be. */
const DEVICE_SUBJECT = /^device:([1-9][0-9]{0,9})$/;

/** An attendance terminal's token (src/terminals): the same JWT, with the device as its subject. */
export function signDeviceToken(key: KeyObject, token: { deviceId: number; tokenId: string; issuedAt: Date; expiresAt: Date }): string {
  return signToken(key, { subject: `device:${token.deviceId}`, ...token });
}

/** The device a token's subject names, or undefined for a user's token. */
export function deviceOfSubject(subject: string): number | undefined {
  const match = DEVICE_SUBJECT.exec(subject);
  return match ? Number(match[1]) : undefined;
}

function signToken(key: KeyObject, token: { subject: string; tokenId: string; issuedAt: Date; expiresAt: Date }): string {
  const claims: AccessTokenClaims = {
    sub: token.subject,
    jti: token.tokenId,
    iat: Math.floor(token.issuedAt.getTime() / 1000),
    exp: Math.floor(token.expiresAt.getTime() / 1000),
  };
  return jwt.sign(claims, key, { algorithm: 'HS256' });
}

/** Most tokens whose signature is remembered per key; the oldest is forgotten first. */
const MAX_VERIFIED_TOKENS = 10_000;
const verifiedTokens = new WeakMap<KeyObject, Map<string, AccessTokenClaims>>();

/**
 * Checks signature and expiry only; whether the token row still allows it is the caller's job.
 * A client sends the same token request after request, so the claims of a token whose signature
 * checked out are remembered (the same string always verifies the same way); expiry is checked
 * on every call.
 */
export function verifyAccessToken(key: KeyObject, token: string, now: Date): AccessTokenClaims {
  let verified = verifiedTokens.get(key);
  if (!verified) {
    verified = new Map();
    verifiedTokens.set(key, verified);
  }
  const known = verified.get(token);
  if (known) {
    // As jsonwebtoken judges expiry: expired from the second `exp` names.
    if (Math.floor(now.getTime() / 1000) >= known.exp) throw new TokenRejectedError('expired');
    return known;
  }
  const claims = Object.freeze(verifySignature(key, token, now));
  if (verified.size >= MAX_VERIFIED_TOKENS) verified.delete(verified.keys().next().value as string);
  verified.set(token, claims);
  return claims;
}

function verifySignature(key: KeyObject, token: string, now: Date): AccessTokenClaims {
  let payload: string | jwt.JwtPayload;
  try {
    // The algorithm is pinned: a token may not choose "none" or another key type.
    payload = jwt.verify(token, key, { algorithms: ['HS256'], clockTimestamp: Math.floor(now.getTime() / 1000) });
  } catch (error) {
    throw new TokenRejectedError(error instanceof jwt.TokenExpiredError ? 'expired' : 'invalid');
  }
  if (
    typeof payload !== 'object' ||
    typeof payload.sub !== 'string' ||
    typeof payload.jti !== 'string' ||
    typeof payload.exp !== 'number' ||
    typeof payload.iat !== 'number'
  ) {
    throw new TokenRejectedError('invalid');
  }
  return { sub: payload.sub, jti: payload.jti, iat: payload.iat, exp: payload.exp };
}
