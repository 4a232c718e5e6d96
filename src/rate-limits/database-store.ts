import type { Db } from '../db/connect';
import { dialectOf } from '../db/connect';

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/**
 * A store for @fastify/rate-limit that counts in the database, so every server process on it
 * shares one count per key. A window starts with its key's first request (as with Redis) and one
 * upsert per request counts it, starting a new window once the old one is over.
 */
export function databaseRateLimitStore(db: Db, now: () => number = Date.now) {
  const mysql = dialectOf(db) === 'mysql';

  async function increment(key: string, time: number, timeWindow: number): Promise<{ hits: number; windowStart: number }> {
    if (mysql) {
      // Assignments run left to right and both read the old window_start.
      await db.raw(
        `INSERT INTO rate_limits (limit_key, window_start, hits) VALUES (?, ?, 1)
         ON DUPLICATE KEY UPDATE hits = IF(window_start + ? <= VALUES(window_start), 1, hits + 1),
                                 window_start = IF(window_start + ? <= VALUES(window_start), VALUES(window_start), window_start)`,
        [key, time, timeWindow, timeWindow],
      );
      const row: { hits: number; window_start: number | string } = await db('rate_limits').where({ limit_key: key }).first('hits', 'window_start');
      return { hits: Number(row.hits), windowStart: Number(row.window_start) };
    }
    const rows = (await db.raw(
      `INSERT INTO rate_limits (limit_key, window_start, hits) VALUES (?, ?, 1)
       ON CONFLICT (limit_key) DO UPDATE
         SET hits = CASE WHEN window_start + ? <= excluded.window_start THEN 1 ELSE hits + 1 END,
             window_start = CASE WHEN window_start + ? <= excluded.window_start THEN excluded.window_start ELSE window_start END
       RETURNING hits, window_start`,
      [key, time, timeWindow, timeWindow],
    )) as Array<{ hits: number; window_start: number }>;
    return { hits: Number(rows[0]?.hits ?? 1), windowStart: Number(rows[0]?.window_start ?? time) };
  }

  return class DatabaseRateLimitStore {
    incr(key: string, callback: Callback, timeWindow: number): void {
      const time = now();
      increment(key, time, timeWindow).then(
        ({ hits, windowStart }) => callback(null, { current: hits, ttl: windowStart + timeWindow - time }),
        (error: Error) => callback(error),
      );
    }

    read(key: string, callback: Callback, timeWindow: number): void {
      const time = now();
      db('rate_limits')
        .where({ limit_key: key })
        .first('hits', 'window_start')
        .then(
          (row: { hits: number; window_start: number | string } | undefined) => {
            const live = row !== undefined && Number(row.window_start) + timeWindow > time;
            callback(null, live ? { current: Number(row.hits), ttl: Number(row.window_start) + timeWindow - time } : { current: 0, ttl: timeWindow });
          },
          (error: Error) => callback(error),
        );
    }

    child(): DatabaseRateLimitStore {
      return this;
    }
  };
}
