import { type KeyObject, randomUUID } from 'node:crypto';
import type { Db } from '../db/connect';
import { insertToken } from '../users/token-repository';
import { signAccessToken } from '../tokens/tokens';

/** IceHrm's token lifetime, and ours unless a shorter or longer one is asked for. */
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 180 * 24 * 3600;

interface IssuedToken {
  id: string;
  token: string;
  expiresAt: Date;
}

/** Creates the token row and signs the JWT that refers to it. The JWT itself is never stored. */
export async function issueToken(
  db: Db,
  key: KeyObject,
  options: { userId: number; name: string | null; now: Date; lifetimeSeconds?: number },
): Promise<IssuedToken> {
  const id = randomUUID();
  const expiresAt = new Date(options.now.getTime() + (options.lifetimeSeconds ?? DEFAULT_TOKEN_LIFETIME_SECONDS) * 1000);
  await insertToken(db, { id, userId: options.userId, name: options.name, createdAt: options.now, expiresAt });
  return { id, token: signAccessToken(key, { userId: options.userId, tokenId: id, issuedAt: options.now, expiresAt }), expiresAt };
}
