import { toSqlDateTime } from '../../src/db/sql-time';
import { type PurgeSchedule, purgeIfDue, purgeOldRows, RETENTION_MS, startPurgeSchedule } from '../../src/maintenance/purge';
import { singleInstance } from '../../src/instances/source';
import { createLogger } from '../../src/logger';
import { testDialects } from '../helpers/databases';
import { createUser } from '../helpers/factories';
import { useTestApp } from '../helpers/test-app';
import { startCloudTestApp } from '../helpers/cloud-app';

const HOUR = 3_600_000;

describe.each(testDialects())('the purge of old rows on %s', (dialect) => {
  const t = useTestApp(dialect);
  beforeEach(async () => {
    await t.db('maintenance_runs').delete();
    await t.db('idempotency_keys').delete();
    await t.db('rate_limits').delete();
  });

  const ago = (ms: number) => toSqlDateTime(new Date(t.clock.now().getTime() - ms));
  /** A token row of a new user with the given dates, as `hrm token issue` would leave it. */
  const tokenRow = async (dates: { created?: number; expires: number; revoked?: number }) => {
    const user = await createUser(t, 'employee');
    await t
      .db('api_tokens')
      .where({ id: user.tokenId })
      .update({
        created_at: ago(dates.created ?? 200 * 24 * HOUR),
        expires_at: ago(dates.expires),
        revoked_at: dates.revoked === undefined ? null : ago(dates.revoked),
      });
    return user.tokenId;
  };
  const idempotencyRow = async (userId: number, key: string, createdAgo: number) =>
    t.db('idempotency_keys').insert({
      user_id: userId,
      key_hash: key,
      request_hash: 'r',
      state: 'completed',
      response_status: 201,
      response_headers: '{}',
      response_body: '{}',
      locked_until: ago(createdAgo),
      created_at: ago(createdAgo),
    });
  const rateLimitRow = (key: string, startedAgo: number) =>
    t.db('rate_limits').insert({ limit_key: key, window_start: t.clock.now().getTime() - startedAgo, hits: 3 });
  const ids = async (table: string, column: string) => (await t.db(table).select(column)).map((row) => String(row[column])).sort();

  it('deletes tokens expired or revoked over 30 days ago, idempotency keys over 24 hours old and rate-limit windows over an hour old, and nothing else', async () => {
    const expiredLongAgo = await tokenRow({ expires: RETENTION_MS.tokens + HOUR });
    const revokedLongAgo = await tokenRow({ expires: -HOUR, revoked: RETENTION_MS.tokens + HOUR });
    const expiredRecently = await tokenRow({ expires: RETENTION_MS.tokens - HOUR });
    const revokedRecently = await tokenRow({ expires: -HOUR, revoked: HOUR });
    const active = await tokenRow({ expires: -24 * HOUR });
    const owner = await createUser(t, 'employee');
    await idempotencyRow(owner.userId, 'old', 25 * HOUR);
    await idempotencyRow(owner.userId, 'fresh', 23 * HOUR);
    await rateLimitRow('old', 2 * HOUR);
    await rateLimitRow('fresh', 10 * 60_000);

    const counts = await purgeOldRows(t.db, t.clock.now());

    expect(counts).toEqual({ tokens: 2, idempotencyKeys: 1, rateLimits: 1, tombstones: 0 });
    const tokens = await ids('api_tokens', 'id');
    expect(tokens).not.toContain(expiredLongAgo);
    expect(tokens).not.toContain(revokedLongAgo);
    expect(tokens).toEqual(expect.arrayContaining([expiredRecently, revokedRecently, active, owner.tokenId]));
    expect(await ids('idempotency_keys', 'key_hash')).toEqual(['fresh']);
    expect(await ids('rate_limits', 'limit_key')).toEqual(['fresh']);
  });

  it('keeps deletion tombstones 97 days (the feeds promise at least 90), then deletes them', async () => {
    await t.db('deleted_employees').delete();
    await t.db('deleted_attendance').delete();
    await t.db('deleted_shifts').delete();
    const DAY = 24 * HOUR;
    const tombstone = (table: string, id: number, deletedAgo: number) =>
      t.db(table).insert({
        ...(table === 'deleted_employees'
          ? { employee_id: id, employee_code: `T${id}` }
          : table === 'deleted_shifts'
            ? { shift_id: id, employee_id: 1 }
            : { attendance_id: id, employee_id: 1 }),
        supervisor_id: null,
        deleted_at: ago(deletedAgo),
      });
    await tombstone('deleted_employees', 1, RETENTION_MS.tombstones + HOUR);
    await tombstone('deleted_employees', 2, 90 * DAY + HOUR);
    await tombstone('deleted_attendance', 3, RETENTION_MS.tombstones + HOUR);
    await tombstone('deleted_attendance', 4, 96 * DAY);
    await tombstone('deleted_shifts', 5, RETENTION_MS.tombstones + HOUR);
    await tombstone('deleted_shifts', 6, 96 * DAY);

    const counts = await purgeOldRows(t.db, t.clock.now());

    expect(RETENTION_MS.tombstones).toBeGreaterThanOrEqual(90 * DAY);
    expect(counts.tombstones).toBe(3);
    expect(await ids('deleted_employees', 'employee_id')).toEqual(['2']);
    expect(await ids('deleted_attendance', 'attendance_id')).toEqual(['4']);
    expect(await ids('deleted_shifts', 'shift_id')).toEqual(['6']);
  });

  it('deletes in batches of the given size until none is left', async () => {
    for (let i = 0; i < 7; i++) await rateLimitRow(`old-${i}`, 2 * HOUR);
    const deletes: string[] = [];
    const onQuery = (query: { sql: string }) => {
      if (/^delete from [`"]rate_limits[`"]/i.test(query.sql)) deletes.push(query.sql);
    };
    t.db.on('query', onQuery);

    const counts = await purgeOldRows(t.db, t.clock.now(), { batchSize: 3 });
    t.db.off('query', onQuery);

    expect(counts.rateLimits).toBe(7);
    expect(deletes).toHaveLength(3);
    expect(await t.db('rate_limits').count({ n: '*' }).first()).toEqual({ n: 0 });
  });

  it('runs in one process at a time: of concurrent claims one purges, and none again before the interval is over', async () => {
    await rateLimitRow('old', 2 * HOUR);
    const other = t.database.open();
    try {
      const now = t.clock.now();

      const results = await Promise.all([
        purgeIfDue(t.db, { now, intervalMs: HOUR, claimedBy: 'first' }),
        purgeIfDue(other, { now, intervalMs: HOUR, claimedBy: 'second' }),
        purgeIfDue(other, { now, intervalMs: HOUR, claimedBy: 'third' }),
      ]);
      await rateLimitRow('old-again', 2 * HOUR);
      const tooSoon = await purgeIfDue(other, { now: new Date(now.getTime() + HOUR - 1000), intervalMs: HOUR, claimedBy: 'second' });
      const due = await purgeIfDue(other, { now: new Date(now.getTime() + HOUR), intervalMs: HOUR, claimedBy: 'second' });

      expect(results.filter((result) => result !== undefined)).toEqual([{ tokens: 0, idempotencyKeys: 0, rateLimits: 1, tombstones: 0 }]);
      expect(tooSoon).toBeUndefined();
      expect(due).toEqual({ tokens: 0, idempotencyKeys: 0, rateLimits: 1, tombstones: 0 });
      expect(await t.db('maintenance_runs').select('job', 'claimed_by')).toEqual([{ job: 'purge', claimed_by: 'second' }]);
    } finally {
      await other.destroy();
    }
  });

  it('is run by the server on its schedule, and not at all with an interval of 0', async () => {
    await rateLimitRow('old', 2 * HOUR);
    const logger = createLogger({ logLevel: 'silent' });
    const off = startPurgeSchedule({ intervalMs: 0, instances: singleInstance(t.instance), clock: t.clock, logger });
    await off.stop();
    expect(await t.db('rate_limits').count({ n: '*' }).first()).toEqual({ n: 1 });

    // The shortest tick is a second: 4 s ticks each second.
    const schedule = startPurgeSchedule({ intervalMs: 4000, instances: singleInstance(t.instance), clock: t.clock, logger });
    try {
      for (let waited = 0; waited < 5000; waited += 100) {
        if (Number((await t.db('rate_limits').count({ n: '*' }).first())?.n) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await schedule.stop();
    }

    expect(await t.db('rate_limits').count({ n: '*' }).first()).toEqual({ n: 0 });
    expect(await t.db('maintenance_runs').first('job')).toEqual({ job: 'purge' });
  });
});

describe.each(testDialects())('the purge in cloud mode on %s', (dialect) => {
  it("purges every registered instance, and the control database's rate-limit counts", async () => {
    const c = await startCloudTestApp(dialect);
    const schedule: PurgeSchedule = { stop: async () => undefined };
    try {
      await c.createInstance('north');
      await c.createInstance('south');
      const dbs = [await c.control.openInstanceDb('north'), await c.control.openInstanceDb('south')];
      // The control database's counts too (RATE_LIMIT_STORE=database in cloud mode), with a fresh
      // one that stays.
      for (const db of [...dbs, c.control.db])
        await db('rate_limits').insert({ limit_key: 'old', window_start: c.clock.now().getTime() - 2 * HOUR, hits: 1 });
      await c.control.db('rate_limits').insert({ limit_key: 'fresh', window_start: c.clock.now().getTime(), hits: 1 });
      const remaining = async () => {
        let rows = 0;
        for (const db of dbs) rows += Number((await db('rate_limits').count({ n: '*' }).first())?.n);
        return rows + Number((await c.control.db('rate_limits').where({ limit_key: 'old' }).count({ n: '*' }).first())?.n);
      };

      schedule.stop = startPurgeSchedule({
        intervalMs: 4000,
        instances: c.directory,
        control: c.control.db,
        clock: c.clock,
        logger: createLogger({ logLevel: 'silent' }),
      }).stop;
      for (let waited = 0; waited < 5000 && (await remaining()) > 0; waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));

      expect(await remaining()).toBe(0);
      expect(await c.control.db('rate_limits').pluck('limit_key')).toEqual(['fresh']);
    } finally {
      await schedule.stop();
      await c.close();
    }
  });
});
