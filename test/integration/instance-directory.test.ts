import type { Pool } from 'tarn';
import { findTokenPrincipal } from '../../src/users/token-repository';
import { verifyAccessToken } from '../../src/tokens/tokens';
import type { Db } from '../../src/db/connect';
import { ServiceUnavailableError } from '../../src/errors';
import { InstanceDirectory, type InstanceDirectoryOptions } from '../../src/instances/directory';
import type { InstanceLease } from '../../src/instances/source';
import { createTestControlDatabase, type TestControlDatabase } from '../helpers/cloud-app';
import { testDialects } from '../helpers/databases';
import { TestClock } from '../helpers/test-clock';

const NAMES = ['one', 'two', 'three', 'four', 'five'];

/** Connections a Knex pool holds right now (in use or idle). */
function poolSize(db: Db): number {
  const pool = (db.client as { pool?: Pool<unknown> }).pool;
  return pool ? pool.numUsed() + pool.numFree() : 0;
}

async function until(condition: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<boolean> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

describe.each(testDialects())('the instance directory on %s', (dialect) => {
  let control: TestControlDatabase;
  const clock = new TestClock();
  const tokens: Record<string, string> = {};
  const directories: InstanceDirectory[] = [];
  beforeAll(async () => {
    control = await createTestControlDatabase(dialect);
    for (const name of NAMES) tokens[name] = (await control.createInstance(name, clock)).admin.token;
  });
  afterEach(async () => {
    await Promise.all(directories.splice(0).map((directory) => directory.close()));
  });
  afterAll(() => control.drop());

  const perInstance = dialect === 'mysql' ? 2 : 1;
  const directory = (options: Partial<InstanceDirectoryOptions> = {}) => {
    const created = new InstanceDirectory({
      control: control.db,
      controlConfig: control.config,
      clock,
      maxConnections: 2 * perInstance,
      idleTimeoutMs: 60_000,
      ...options,
    });
    directories.push(created);
    return created;
  };

  /** What a request does with its lease: authenticate its instance's admin token. */
  async function authenticate(lease: InstanceLease, name: string): Promise<string | undefined> {
    const claims = verifyAccessToken(lease.instance.signingKey, tokens[name] as string, clock.now());
    return (await findTokenPrincipal(lease.instance.db, claims.jti))?.username;
  }

  it('serves five instances through two open slots, never holding more connections than allowed', async () => {
    const d = directory();
    let peakSlots = 0;
    let peakConnections = 0;

    for (let round = 0; round < 3; round++) {
      await Promise.all(
        NAMES.map(async (name) => {
          const lease = await d.acquire(name);
          try {
            expect(await authenticate(lease as InstanceLease, name)).toBe('admin');
            peakSlots = Math.max(peakSlots, d.stats().slotsInUse);
            if (dialect === 'mysql') peakConnections = Math.max(peakConnections, await control.instanceConnections());
          } finally {
            lease?.release();
          }
        }),
      );
    }

    expect(d.stats()).toMatchObject({ known: 5, maxOpen: 2 });
    expect(peakSlots).toBeLessThanOrEqual(2);
    expect(peakConnections).toBeLessThanOrEqual(2 * perInstance);
    if (dialect === 'mysql') expect(await control.instanceConnections()).toBeLessThanOrEqual(2 * perInstance);
  });

  it('keeps serving many concurrent requests for more instances than slots, none left waiting', async () => {
    const d = directory({ slotTimeoutMs: 5000 });
    let next = 0;
    const served: string[] = [];

    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 10; i++) {
          const name = NAMES[next++ % 3] as string;
          const lease = await d.acquire(name);
          try {
            served.push((await authenticate(lease as InstanceLease, name)) as string);
          } finally {
            lease?.release();
          }
        }
      }),
    );

    expect(served).toEqual(Array(80).fill('admin'));
    expect(d.stats().slotsInUse).toBeLessThanOrEqual(2);
  });

  it('reopens an instance it closed to make room, with the same signing key', async () => {
    const d = directory({ maxConnections: perInstance });
    const first = await d.acquire('one');
    const key = first?.instance.signingKey;
    first?.release();
    (await d.acquire('two'))?.release();

    const again = await d.acquire('one');

    expect(again?.instance.signingKey).toBe(key);
    expect(await authenticate(again as InstanceLease, 'one')).toBe('admin');
    again?.release();
  });

  it('makes a request wait while every slot is busy, and go on when one is released', async () => {
    const d = directory({ maxConnections: perInstance });
    const busy = await d.acquire('one');
    let waited = false;

    const waiting = d.acquire('two').then((lease) => {
      waited = true;
      return lease;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stillWaiting = !waited;
    busy?.release();
    const lease = await waiting;

    expect(stillWaiting).toBe(true);
    expect(await authenticate(lease as InstanceLease, 'two')).toBe('admin');
    lease?.release();
  });

  it('answers 503 when no slot frees up in time, and then serves again', async () => {
    const d = directory({ maxConnections: perInstance, slotTimeoutMs: 200 });
    const busy = await d.acquire('one');

    await expect(d.acquire('two')).rejects.toBeInstanceOf(ServiceUnavailableError);
    busy?.release();
    const lease = await d.acquire('two');

    expect(lease?.instance.name).toBe('two');
    lease?.release();
  });

  it("closes an instance's idle connections after the idle timeout", async () => {
    const d = directory({ idleTimeoutMs: 300 });
    const lease = await d.acquire('three');
    await authenticate(lease as InstanceLease, 'three');
    lease?.release();
    const db = (lease as InstanceLease).instance.db;
    expect(poolSize(db)).toBeGreaterThan(0);

    expect(await until(() => poolSize(db) === 0)).toBe(true);
    if (dialect === 'mysql') expect(await until(async () => (await control.instanceConnections()) === 0)).toBe(true);
  });

  it('answers undefined for unknown and malformed names without opening anything', async () => {
    const d = directory();

    expect(await d.acquire('nobody')).toBeUndefined();
    expect(await d.acquire('Not_A_Name')).toBeUndefined();
    expect(await d.acquire(undefined)).toBeUndefined();
    expect(d.stats()).toMatchObject({ known: 0, slotsInUse: 0 });
  });

  it('forgets the least recently used idle instances beyond maxKnown', async () => {
    const d = directory({ maxKnown: 2 });
    for (const name of ['one', 'two', 'three']) (await d.acquire(name))?.release();

    expect(d.stats()).toMatchObject({ known: 2, maxOpen: 2 });
    expect(await until(() => d.stats().slotsInUse === 2)).toBe(true);
    const forgotten = await d.acquire('one');
    expect(await authenticate(forgotten as InstanceLease, 'one')).toBe('admin');
    forgotten?.release();
  });
});
