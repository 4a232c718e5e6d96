import type { Db } from '../../src/db/connect';
import { LAST_USED_RESOLUTION_MS, touchOnce } from '../../src/auth/last-used';

// touchOnce (src/auth/last-used.ts): last_used_at written once per token a minute, also for a
// request that read the row before the previous write committed and asks after it ended.
describe('touchOnce', () => {
  // Only its identity is used: the writes are the `touch` functions below.
  const db = {} as Db;
  const at = (ms: number) => new Date(Date.UTC(2026, 10, 28, 12) + ms);

  it('writes once for callers that ask together', async () => {
    let writes = 0;
    const touch = () => new Promise<void>((resolve) => setTimeout(() => resolve(void writes++), 5));
    await Promise.all([
      touchOnce(db, 'token:1', at(0), touch),
      touchOnce(db, 'token:1', at(0), touch),
      touchOnce(db, 'token:1', at(1), touch),
    ]);
    expect(writes).toBe(1);
  });

  it('does not write again within the minute after a write ended, and writes once it has passed', async () => {
    let writes = 0;
    const touch = async () => void writes++;
    await touchOnce(db, 'token:2', at(0), touch);
    await touchOnce(db, 'token:2', at(10), touch);
    await touchOnce(db, 'token:2', at(LAST_USED_RESOLUTION_MS - 1), touch);
    expect(writes).toBe(1);
    await touchOnce(db, 'token:2', at(LAST_USED_RESOLUTION_MS), touch);
    expect(writes).toBe(2);
  });

  it('writes again when the clock was set back, and keeps tokens and devices apart', async () => {
    let writes = 0;
    const touch = async () => void writes++;
    await touchOnce(db, 'token:3', at(0), touch);
    await touchOnce(db, 'token:3', at(-1000), touch);
    await touchOnce(db, 'device:3', at(-1000), touch);
    expect(writes).toBe(3);
  });

  it('remembers nothing of a write that failed', async () => {
    let writes = 0;
    await expect(touchOnce(db, 'token:4', at(0), async () => Promise.reject(new Error('database gone')))).rejects.toThrow('database gone');
    await touchOnce(db, 'token:4', at(1), async () => void writes++);
    expect(writes).toBe(1);
  });
});
