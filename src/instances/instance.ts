import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { signingKeyFrom } from '../tokens/tokens';
import type { Clock } from '../clock';
import type { Db } from '../db/connect';
import { migrateToLatest } from '../db/migrate';
import { toSqlDateTime } from '../db/sql-time';
import { SettingsCache } from '../settings/cache';
import { readSetting, SETTING } from '../settings/repository';

/**
 * One installation's data and identity: its database, settings and token-signing secret. A
 * self-hosted server serves one; cloud mode serves many side by side.
 */
export interface Instance {
  /** Instance name in cloud mode; undefined when self-hosted. */
  name: string | undefined;
  /** Realm of the WWW-Authenticate challenge: the instance name, or "hrm". */
  realm: string;
  db: Db;
  settings: SettingsCache;
  /** The clock of the instance's caches (a feature keeps its own cache per instance). */
  clock: Clock;
  /** Signs and verifies this instance's tokens (HS256). */
  signingKey: KeyObject;
  /** Keys the HMAC of this instance's entity tags (src/http/conditional.ts): a tag reveals nothing offline. */
  entityTagKey: KeyObject;
}

/** Migrates the database and loads (or, on first use, creates) the instance's signing secret. */
export async function openInstance(db: Db, options: { name?: string; clock: Clock; jwtSecret?: string }): Promise<Instance> {
  await migrateToLatest(db);
  const secret = options.jwtSecret ?? (await ensureStoredSecret(db, options.clock.now()));
  return {
    name: options.name,
    realm: options.name ?? 'hrm',
    db,
    settings: new SettingsCache(db, options.clock),
    clock: options.clock,
    signingKey: signingKeyFrom(secret),
    entityTagKey: entityTagKeyFrom(secret),
  };
}

/**
 * The entity-tag key, HMAC(secret, "etag"): per instance like the signing secret, yet never the
 * secret itself, so a tag's MAC and a token's signature are never made with one key.
 */
function entityTagKeyFrom(secret: string): KeyObject {
  return createSecretKey(createHmac('sha256', secret).update('etag').digest());
}

/** The stored secret, generated once per instance; concurrent first starts agree on one. */
async function ensureStoredSecret(db: Db, now: Date): Promise<string> {
  const stored = await readSetting(db, SETTING.jwtSecret);
  if (stored) return stored;
  await db('settings')
    .insert({ name: SETTING.jwtSecret, value: randomBytes(48).toString('base64url'), updated_at: toSqlDateTime(now) })
    .onConflict('name')
    .ignore();
  const created = await readSetting(db, SETTING.jwtSecret);
  if (!created) throw new Error('Could not store the token signing secret');
  return created;
}
