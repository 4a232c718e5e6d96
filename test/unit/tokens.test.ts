import jwt from 'jsonwebtoken';
import { signAccessToken, signingKeyFrom, TokenRejectedError, verifyAccessToken } from '../../src/tokens/tokens';

const SECRET = 'a'.repeat(48);
const KEY = signingKeyFrom(SECRET);
const issuedAt = new Date('2026-01-01T00:00:00Z');
const expiresAt = new Date('2026-01-02T00:00:00Z');

function rejection(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof TokenRejectedError) return error.reason;
    throw error;
  }
  return undefined;
}

describe('access tokens', () => {
  const token = signAccessToken(KEY, { userId: 7, tokenId: 'f4b9a6f0-0000-4000-8000-000000000001', issuedAt, expiresAt });

  it('carry sub, jti, iat and exp, signed with HS256', () => {
    expect(jwt.decode(token, { complete: true })).toMatchObject({
      header: { alg: 'HS256', typ: 'JWT' },
      payload: { sub: '7', jti: 'f4b9a6f0-0000-4000-8000-000000000001', iat: 1767225600, exp: 1767312000 },
    });
  });

  it('verify before expiry', () => {
    expect(verifyAccessToken(KEY, token, new Date('2026-01-01T12:00:00Z'))).toEqual({
      sub: '7',
      jti: 'f4b9a6f0-0000-4000-8000-000000000001',
      iat: 1767225600,
      exp: 1767312000,
    });
  });

  it('are rejected as expired from their exp on', () => {
    expect(rejection(() => verifyAccessToken(KEY, token, expiresAt))).toBe('expired');
  });

  it('are rejected when signed with another secret, tampered with, unsigned or not JWTs', () => {
    const now = new Date('2026-01-01T12:00:00Z');
    const [header, , signature] = token.split('.');
    const tampered = `${header}.${Buffer.from(JSON.stringify({ sub: '1', jti: 'x', iat: 1, exp: 9999999999 })).toString('base64url')}.${signature}`;
    const unsigned = jwt.sign({ sub: '7', jti: 'x', iat: 1767225600, exp: 1767312000 }, '', { algorithm: 'none' });
    const hs512 = jwt.sign({ sub: '7', jti: 'x', iat: 1767225600, exp: 1767312000 }, SECRET, { algorithm: 'HS512' });

    expect(rejection(() => verifyAccessToken(signingKeyFrom('b'.repeat(48)), token, now))).toBe('invalid');
    expect(rejection(() => verifyAccessToken(KEY, tampered, now))).toBe('invalid');
    expect(rejection(() => verifyAccessToken(KEY, unsigned, now))).toBe('invalid');
    expect(rejection(() => verifyAccessToken(KEY, hs512, now))).toBe('invalid');
    expect(rejection(() => verifyAccessToken(KEY, 'garbage', now))).toBe('invalid');
  });

  it('once verified, are still rejected when they expire, and only accepted under the key that signed them', () => {
    const fresh = signAccessToken(KEY, { userId: 8, tokenId: 'f4b9a6f0-0000-4000-8000-000000000002', issuedAt, expiresAt });
    expect(verifyAccessToken(KEY, fresh, new Date('2026-01-01T12:00:00Z')).sub).toBe('8');
    expect(verifyAccessToken(KEY, fresh, new Date('2026-01-01T23:59:59Z')).sub).toBe('8');

    expect(rejection(() => verifyAccessToken(KEY, fresh, expiresAt))).toBe('expired');
    expect(rejection(() => verifyAccessToken(signingKeyFrom('c'.repeat(48)), fresh, new Date('2026-01-01T12:00:00Z')))).toBe('invalid');
  });

  it('are rejected when a claim is missing', () => {
    const withoutJti = jwt.sign({ sub: '7', iat: 1767225600, exp: 1767312000 }, SECRET, { algorithm: 'HS256' });

    expect(rejection(() => verifyAccessToken(KEY, withoutJti, new Date('2026-01-01T12:00:00Z')))).toBe('invalid');
  });
});
