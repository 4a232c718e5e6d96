import type { Db } from '../db/connect';

// last_used_at of tokens and devices is for people reviewing them: written at most once a minute
// per token or device, and once for the requests that found it stale together.

export const LAST_USED_RESOLUTION_MS = 60_000;

const touchesInFlight = new WeakMap<Db, Map<string, Promise<void>>>();
const touchesWritten = new WeakMap<Db, Map<string, number>>();
/** Tokens and devices whose last write this process remembers (the oldest are forgotten first). */
const REMEMBERED_TOUCHES = 10_000;

/**
 * Writes last_used_at once for the requests of one token that all found it stale: one write
 * instead of one per request, each waiting for the row lock of the one before (on Galera, each
 * a conflict), and the requests go on together when it is written. A request that read the row
 * before that write committed, and asks after it ended, finds the time it wrote and writes nothing.
 */
export function touchOnce(db: Db, key: string, now: Date, touch: () => Promise<void>): Promise<void> {
  let touches = touchesInFlight.get(db);
  if (!touches) touchesInFlight.set(db, (touches = new Map()));
  let written = touchesWritten.get(db);
  if (!written) touchesWritten.set(db, (written = new Map()));
  const inFlight = touches.get(key);
  if (inFlight) return inFlight;
  const last = written.get(key);
  const at = now.getTime();
  // A clock set back (tests, or a corrected server clock) writes again.
  if (last !== undefined && at >= last && at - last < LAST_USED_RESOLUTION_MS) return Promise.resolve();
  const writing = touch()
    .then(() => {
      written.delete(key);
      if (written.size >= REMEMBERED_TOUCHES) written.delete(written.keys().next().value as string);
      written.set(key, at);
    })
    .finally(() => touches.delete(key));
  touches.set(key, writing);
  return writing;
}
