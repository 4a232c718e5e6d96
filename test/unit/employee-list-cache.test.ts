import { EmployeeListCache } from '../../src/employees/list';
import { TestClock } from '../helpers/test-clock';

/** A count the test finishes by hand, and how many times it was started. */
function controlledCount() {
  const finishers: Array<(total: number) => void> = [];
  const failers: Array<(error: Error) => void> = [];
  const count = jest.fn(
    () =>
      new Promise<number>((resolve, reject) => {
        finishers.push(resolve);
        failers.push(reject);
      }),
  );
  return {
    count,
    finish: (call: number, total: number) => finishers[call]?.(total),
    fail: (call: number) => failers[call]?.(new Error('lost')),
  };
}

describe('EmployeeListCache totals', () => {
  let cache: EmployeeListCache;
  let clock: TestClock;
  beforeEach(() => {
    clock = new TestClock(new Date('2026-01-01T00:00:00Z'));
    cache = new EmployeeListCache(clock);
  });

  it('counts once for requests asking the same question while it is being counted', async () => {
    const { count, finish } = controlledCount();

    const first = cache.total('q', count);
    const second = cache.total('q', count);
    finish(0, 42);

    expect(await Promise.all([first, second])).toEqual([42, 42]);
    expect(count).toHaveBeenCalledTimes(1);
  });

  it('remembers a total for 2 seconds, then counts again', async () => {
    const { count, finish } = controlledCount();
    const first = cache.total('q', count);
    finish(0, 42);
    await first;

    const remembered = await cache.total('q', count);
    clock.advance(2001);
    const recount = cache.total('q', count);
    finish(1, 43);

    expect(remembered).toBe(42);
    expect(await recount).toBe(43);
    expect(count).toHaveBeenCalledTimes(2);
  });

  it('does not let a count begun before clear() answer or be remembered after it', async () => {
    const { count, finish } = controlledCount();
    const before = cache.total('q', count);

    cache.clear(); // this process wrote an employee
    const after = cache.total('q', count);
    finish(1, 43);
    finish(0, 42);

    expect(await before).toBe(42);
    expect(await after).toBe(43);
    expect(await cache.total('q', count)).toBe(43);
    expect(count).toHaveBeenCalledTimes(2);
  });

  it('forgets a count that failed, so the next request counts again', async () => {
    const { count, fail, finish } = controlledCount();
    const failed = cache.total('q', count);
    fail(0);
    await expect(failed).rejects.toThrow('lost');

    const retried = cache.total('q', count);
    finish(1, 42);

    expect(await retried).toBe(42);
    expect(count).toHaveBeenCalledTimes(2);
  });
});
