import { createHash } from 'node:crypto';
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import type { Db } from '../db/connect';
import { dialectOf } from '../db/connect';

/** The length of rate_limits.limit_key. */
const LIMIT_KEY_LENGTH = 191;

/**
 * An express-rate-limit store that counts in the database, so every server process on it shares
 * one count per key. A window starts with its key's first request (as with Redis), and one upsert
 * per request counts it, starting a new window once the old one is over. `name` keeps the
 * counts of different limiters apart.
 */
export class DatabaseStore implements Store {
  // Counts are shared by every process on the database: never only this process's.
  readonly localKeys = false;
  private windowMs = 60_000;

  constructor(
    private readonly db: Db,
    private readonly name: string,
    private readonly now: () => number = Date.now,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const time = this.now();
    const limitKey = this.keyOf(key);
    const { db, windowMs } = this;
    if (dialectOf(db) === 'mysql') {
      // Assignments run left to right and both read the old window_start.
      await db.raw(
        `INSERT INTO rate_limits (limit_key, window_start, hits) VALUES (?, ?, 1)
         ON DUPLICATE KEY UPDATE hits = IF(window_start + ? <= VALUES(window_start), 1, hits + 1),
                                 window_start = IF(window_start + ? <= VALUES(window_start), VALUES(window_start), window_start)`,
        [limitKey, time, windowMs, windowMs],
      );
      const row: { hits: number; window_start: number | string } = await db('rate_limits')
        .where({ limit_key: limitKey })
        .first('hits', 'window_start');
      return this.infoOf(Number(row.hits), Number(row.window_start));
    }
    const rows = (await db.raw(
      `INSERT INTO rate_limits (limit_key, window_start, hits) VALUES (?, ?, 1)
       ON CONFLICT (limit_key) DO UPDATE
         SET hits = CASE WHEN window_start + ? <= excluded.window_start THEN 1 ELSE hits + 1 END,
             window_start = CASE WHEN window_start + ? <= excluded.window_start THEN excluded.window_start ELSE window_start END
       RETURNING hits, window_start`,
      [limitKey, time, windowMs, windowMs],
    )) as Array<{ hits: number; window_start: number }>;
    return this.infoOf(Number(rows[0]?.hits ?? 1), Number(rows[0]?.window_start ?? time));
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const row: { hits: number; window_start: number | string } | undefined = await this.db('rate_limits')
      .where({ limit_key: this.keyOf(key) })
      .first('hits', 'window_start');
    if (!row || Number(row.window_start) + this.windowMs <= this.now()) return undefined;
    return this.infoOf(Number(row.hits), Number(row.window_start));
  }

  async decrement(key: string): Promise<void> {
    await this.db('rate_limits')
      .where({ limit_key: this.keyOf(key) })
      .where('hits', '>', 0)
      .decrement('hits', 1);
  }

  async resetKey(key: string): Promise<void> {
    await this.db('rate_limits')
      .where({ limit_key: this.keyOf(key) })
      .delete();
  }

  /** The row's key: `name:key`, hashed when it would not fit the column (a long username and instance name). */
  private keyOf(key: string): string {
    const limitKey = `${this.name}:${key}`;
    return limitKey.length <= LIMIT_KEY_LENGTH ? limitKey : `${this.name}:${createHash('sha256').update(key).digest('hex')}`;
  }

  private infoOf(hits: number, windowStart: number): ClientRateLimitInfo {
    return { totalHits: hits, resetTime: new Date(windowStart + this.windowMs) };
  }
}
