import request from 'supertest';
import { findTokenPrincipal, revokeToken } from '../../src/users/token-repository';
import { findEmployeeById } from '../../src/employees/repository';
import { preparedListRead } from '../../src/db/coalesced-reads';
import { testDialects } from '../helpers/databases';
import { countingConnections } from '../helpers/query-count';
import { createEmployee, createUser, type TestUser } from '../helpers/factories';
import { useTestApp } from '../helpers/test-app';

// Authentication and reads by id look rows up many keys to a query when lookups pile up
// (src/db/coalesced-reads.ts, batchedLookup). Each caller must still get its own row, and nothing older
// than its own request.
describe.each(testDialects())('batched lookups on %s', (dialect) => {
  const t = useTestApp(dialect);
  let users: TestUser[];
  beforeAll(async () => {
    users = [];
    // More users than one batch holds (64), so that a burst needs several batches.
    for (let index = 0; index < 70; index++) users.push(await createUser(t, 'employee'));
  });

  const countingQueries = <T>(work: () => Promise<T>) => countingConnections(t.db, work);

  it('answers a burst of token lookups, each with its own principal, in fewer queries than lookups', async () => {
    const unknownIds = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
    // Every user three times, and unknown ids among them, all at once.
    const asked = [...users, ...users, ...users].map((user) => user.tokenId).concat(unknownIds);

    const { result, queries } = await countingQueries(() =>
      Promise.all(asked.map((tokenId) => findTokenPrincipal(t.db, tokenId, { withEmployee: true }))),
    );

    asked.forEach((tokenId, index) => {
      const user = users.find((candidate) => candidate.tokenId === tokenId);
      const principal = result[index];
      if (!user) {
        expect(principal).toBeUndefined();
        return;
      }
      expect(principal).toMatchObject({
        tokenId,
        userId: user.userId,
        username: user.username,
        employeeId: user.employeeId,
        revoked: false,
      });
      expect(principal?.employee?.id).toBe(user.employeeId);
    });
    expect(queries).toBeGreaterThanOrEqual(2); // 70 distinct ids: more than one batch
    expect(queries).toBeLessThan(asked.length / 10);
  });

  it('answers a burst of employee reads by id, missing ids with nothing', async () => {
    const supervisor = await createEmployee(t, { first_name: 'Sam', last_name: 'Boss' });
    const report = await createEmployee(t, { supervisor_id: supervisor });
    const ids = [report, supervisor, ...users.map((user) => user.employeeId as number), 999_999_999, report];

    const { result, queries } = await countingQueries(() => Promise.all(ids.map((id) => findEmployeeById(t.db, id))));

    ids.forEach((id, index) => {
      if (id === 999_999_999) expect(result[index]).toBeUndefined();
      else expect(result[index]?.id).toBe(id);
    });
    expect(result[0]?.supervisor_id).toBe(supervisor);
    expect(result[0]?.employeeNames.supervisor).toBe('Sam Boss');
    expect(queries).toBeLessThan(ids.length / 10);
  });

  it('sends a lone lookup at once, as one query', async () => {
    const user = users[0] as TestUser;

    const { result, queries } = await countingQueries(() => findTokenPrincipal(t.db, user.tokenId));

    expect(result?.userId).toBe(user.userId);
    expect(queries).toBe(1);
  });

  it('holds the lookups asked for while a query is out, and sends them together when it returns', async () => {
    const [first, second, third] = users as [TestUser, TestUser, TestUser];

    // The first goes at once; the two asked for while it is out wait for it, then go as one query.
    const { result, queries } = await countingQueries(() =>
      Promise.all([first, second, third].map((user) => findTokenPrincipal(t.db, user.tokenId))),
    );

    expect(result.map((principal) => principal?.userId)).toEqual([first.userId, second.userId, third.userId]);
    expect(queries).toBe(2);
  });

  describe('the same list read asked at once (preparedListRead)', () => {
    // SQLite runs each read on its one connection as it comes; MySQL/MariaDB shares them.
    const shares = dialect === 'mysql';
    /** The employees from `first` on, ids only; `sleep` seconds per row on MySQL/MariaDB. */
    const page = (sleep = 0) =>
      `select \`e\`.\`id\`${shares && sleep > 0 ? `, sleep(${sleep}) as \`slept\`` : ''} from \`employees\` as \`e\` where \`e\`.\`id\` >= ? order by \`e\`.\`id\` asc limit ?`;
    const limit = (rows: number) => (shares ? String(rows) : rows);
    const ids = (rows: ReadonlyArray<Record<string, unknown>>) => rows.map((row) => Number(row.id));

    it('is sent once for the reads asked while it is out, each answered with every row', async () => {
      const first = users[0]!.employeeId as number;

      const { result, queries } = await countingQueries(() =>
        Promise.all([1, 2, 3, 4, 5].map(() => preparedListRead(t.db, page(), [first, limit(20)]))),
      );

      expect(ids(result[0]!)).toHaveLength(20);
      for (const rows of result) expect(rows).toEqual(result[0]);
      // The first goes at once; the four asked while it is out go together after it.
      expect(queries).toBe(shares ? 2 : 5);
    });

    it('is not shared between other values', async () => {
      const [first, second] = users.map((user) => user.employeeId as number);

      const { result, queries } = await countingQueries(() =>
        Promise.all([first, second].map((start) => preparedListRead(t.db, page(), [start, limit(1)]))),
      );

      expect(result.map(ids)).toEqual([[first], [second]]);
      expect(queries).toBe(2);
    });

    it('gives every request of the same page at once the whole page', async () => {
      const admin = await createUser(t, 'admin');
      const supervisor = await createEmployee(t, { first_name: 'Sue', last_name: 'Shared' });
      await createEmployee(t, { supervisor_id: supervisor });
      const list = () => request(t.app).get(t.api('/employees?limit=5')).auth(admin.token, { type: 'bearer' });
      const alone = await list();

      const together = await Promise.all([1, 2, 3, 4, 5, 6].map(() => list()));

      expect(alone.status).toBe(200);
      expect(alone.body.data).toHaveLength(5);
      for (const res of together) expect(res.body).toEqual(alone.body);
    });

    it('answers a read asked while the same one is out with rows read after it was asked', async () => {
      const last = await createEmployee(t);
      // The first read is out for 0.3 s a row on MySQL/MariaDB; an employee is added meanwhile.
      const earlier = preparedListRead(t.db, page(0.3), [last, limit(5)]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const added = await createEmployee(t);
      const later = preparedListRead(t.db, page(0.3), [last, limit(5)]);

      expect(ids(await earlier)).not.toContain(added);
      expect(ids(await later)).toContain(added);
    });
  });

  it('sees a revocation committed before the request, even while other lookups are under way', async () => {
    const [victim, ...others] = users.slice(0, 30) as [TestUser, ...TestUser[]];
    const me = (user: TestUser) => request(t.app).get(t.api('/employees/me')).auth(user.token, { type: 'bearer' });
    expect((await me(victim)).status).toBe(200);

    const background = Promise.all(others.map((user) => me(user)));
    await revokeToken(t.db, victim.tokenId, t.clock.now());
    const refused = await me(victim);

    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe('The token has been revoked');
    expect((await background).map((res) => res.status)).toEqual(others.map(() => 200));
  });
});
