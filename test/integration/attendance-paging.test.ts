import request from 'supertest';
import { toSqlDateTime } from '../../src/db/sql-time';
import { asUser, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser, type TestUser } from '../helpers/factories';
import { useTestApp } from '../helpers/test-app';

describe.each(testDialects())('deep pages of attendance on %s', (dialect) => {
  const t = useTestApp(dialect);
  let admin: TestUser;
  let employeeId: number;
  /** Every record of the employee, newest first (in_time_utc, then id, both descending). */
  let newestFirst: number[];
  beforeAll(async () => {
    admin = await createUser(t, 'admin');
    employeeId = await createEmployee(t);
    // 1,300 closed records, one an hour, every fifth sharing its in_time with the one before (a tie).
    const now = toSqlDateTime(new Date('2026-11-20T12:00:00Z'));
    const rows = Array.from({ length: 1300 }, (_unused, n) => {
      const hour = n - (n % 5 === 4 ? 1 : 0);
      const start = new Date(Date.UTC(2026, 0, 1) + hour * 3_600_000);
      const end = new Date(start.getTime() + 1_800_000);
      const sql = (date: Date) => date.toISOString().slice(0, 19).replace('T', ' ');
      return {
        employee_id: employeeId,
        in_time_utc: sql(start),
        in_time_local: sql(start),
        out_time_utc: sql(end),
        out_time_local: sql(end),
        timezone: 'UTC',
        created_at: now,
        updated_at: now,
      };
    });
    for (let n = 0; n < rows.length; n += 200) await t.db('attendance').insert(rows.slice(n, n + 200));
    const stored: Array<{ id: number }> = await t
      .db('attendance')
      .where({ employee_id: employeeId })
      .orderBy([
        { column: 'in_time_utc', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .select('id');
    newestFirst = stored.map((row) => Number(row.id));
  });
  beforeEach(() => setClock(t, '2026-11-20T12:00:00.000Z'));

  const idsOf = (res: request.Response) => (res.body.data as Array<{ id: string }>).map((record) => Number(record.id));
  /** The SQL the app sends while `action` runs. */
  async function sqlOf<T>(action: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
    const sql: string[] = [];
    const listener = (query: { sql: string }) => sql.push(query.sql);
    t.db.on('query', listener);
    try {
      return { result: await action(), sql };
    } finally {
      t.db.off('query', listener);
    }
  }

  it.each(['/attendance', '/employees/{id}/attendance', '/employee/{id}/attendance'])(
    'serves %s page after page exactly as the records are ordered, deep pages from their first record (no OFFSET)',
    async (path) => {
      const list = (page: number) =>
        asUser(t, admin).get(
          `${path.replace('{id}', String(employeeId))}?limit=200&page=${page}${path === '/attendance' ? `&employee=${employeeId}` : ''}`,
        );
      const served: number[] = [];
      const deepSql: string[] = [];
      for (let page = 1; page <= 7; page++) {
        const { result: res, sql } = await sqlOf(() => list(page));
        expect(res.status).toBe(200);
        expect(res.body.total).toBe(1300);
        expect(res.body.nextPage).toBe(page < 7 ? page + 1 : null);
        served.push(...idsOf(res));
        if (page >= 6) deepSql.push(...sql.filter((text) => /from `attendance`/i.test(text)));
      }

      expect(served).toEqual(newestFirst);
      // Pages 6 and 7 (1,000 rows in and more) start at the first record the page before named.
      expect(deepSql.filter((text) => /as [`"]page[`"]/i.test(text))).toHaveLength(2);
      for (const text of deepSql) expect(text).not.toMatch(/offset/i);
    },
  );

  it('answers a deep page asked first (no page before it) the same, and the same again after a write', async () => {
    const path = `/employees/${employeeId}/attendance?limit=100&page=12`;
    const { result: first, sql } = await sqlOf(() => asUser(t, admin).get(path));
    expect(idsOf(first)).toEqual(newestFirst.slice(1100, 1200));
    expect(sql.some((text) => /offset/i.test(text))).toBe(true);

    // A record newer than all: every record moves one place down, and this process forgets where pages began.
    const punch = await asUser(t, admin).post('/attendance', {
      employee: String(employeeId),
      in_time: '2026-11-19 08:00:00',
      out_time: '2026-11-19 09:00:00',
    });
    expect(punch.status).toBe(201);
    const again = await asUser(t, admin).get(path);

    expect(idsOf(again)).toEqual(newestFirst.slice(1099, 1199));
    expect(again.body.total).toBe(1301);
    await t
      .db('attendance')
      .where({ id: Number(punch.body.id) })
      .delete();
  });

  it("reads each employee's own records through the page query prepared for their shape", async () => {
    // One employee's records are read by a prepared statement per shape (dates given or not, page
    // size, a known start): the second employee asked the same way must get theirs, not the first's.
    const other = await createEmployee(t);
    const now = toSqlDateTime(new Date('2026-11-20T12:00:00Z'));
    const record = (inTime: string) => ({
      employee_id: other,
      in_time_utc: inTime,
      in_time_local: inTime,
      out_time_utc: inTime.replace(' 08:', ' 09:'),
      out_time_local: inTime.replace(' 08:', ' 09:'),
      timezone: 'UTC',
      created_at: now,
      updated_at: now,
    });
    await t
      .db('attendance')
      .insert(['2026-01-02 08:00:00', '2026-01-03 08:00:00', '2026-01-04 08:00:00', '2026-03-01 08:00:00'].map(record));
    const otherIds: number[] = (await t.db('attendance').where({ employee_id: other }).orderBy('in_time_utc', 'desc').select('id')).map(
      (row: { id: number }) => Number(row.id),
    );
    const month = (id: number, query = '') => asUser(t, admin).get(`/employees/${id}/attendance?from=2026-01-01&to=2026-01-31${query}`);
    try {
      const first = await month(employeeId, '&limit=2');
      const mine = await month(other, '&limit=2');
      const mineNext = await month(other, '&limit=2&page=2');
      const all = await month(other);
      const outside = await asUser(t, admin).get(`/employees/${other}/attendance?from=2026-02-01&to=2026-02-28`);

      const january: Array<{ id: number }> = await t
        .db('attendance')
        .where({ employee_id: employeeId })
        .andWhere('in_time_local', '<', '2026-02-01 00:00:00')
        .orderBy([
          { column: 'in_time_utc', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(2)
        .select('id');
      expect(idsOf(first)).toEqual(january.map((row) => Number(row.id)));
      expect(first.body.nextPage).toBe(2);
      expect(idsOf(mine)).toEqual(otherIds.slice(1, 3));
      expect(mine.body).toMatchObject({ total: 3, nextPage: 2 });
      expect(idsOf(mineNext)).toEqual(otherIds.slice(3));
      expect(mineNext.body).toMatchObject({ total: 3, nextPage: null });
      expect(idsOf(all)).toEqual(otherIds.slice(1));
      expect(outside.body).toEqual({ data: [], total: 0, nextPage: null });
    } finally {
      await t.db('attendance').where({ employee_id: other }).delete();
    }
  });

  it.each(['a device', 'an admin'])(
    'forgets where deep pages start when a terminal batch uploaded with %s token adds a record',
    async (uploader) => {
      const page = (n: number) => asUser(t, admin).get(`/employees/${employeeId}/attendance?limit=200&page=${n}`);
      // Page 5 teaches the server where page 6 starts; page 6 is then read from that record.
      await page(5);
      expect(idsOf(await page(6))).toEqual(newestFirst.slice(1000, 1200));
      const token =
        uploader === 'a device'
          ? (await asUser(t, admin).post('/attendance/devices', { name: 'Paging door', timezone: 'UTC' })).body.token
          : admin.token;
      const entry = {
        log_id: `paging-${uploader.replace(' ', '-')}`,
        employee: String(employeeId),
        time: '2026-11-20T11:00:00Z',
        direction: 'in',
      };
      try {
        const upload = await request(t.app)
          .post(t.api('/attendance/punch-logs'))
          .auth(token, { type: 'bearer' })
          .send({ entries: [entry] });
        expect(upload.status).toBe(200);
        expect(upload.body.results).toEqual([
          { log_id: entry.log_id, result: 'created', attendance: expect.any(String), action: 'opened' },
        ]);

        // The new record is the newest: every page moves by one, page 6 included.
        const after = await page(6);
        expect(after.status).toBe(200);
        expect(after.body.total).toBe(1301);
        expect(idsOf(after)).toEqual([Number(upload.body.results[0].attendance), ...newestFirst].slice(1000, 1200));
      } finally {
        await t.db('attendance_punch_logs').where({ log_id: entry.log_id }).delete();
        await t.db('attendance').where({ employee_id: employeeId }).whereNull('out_time_utc').delete();
      }
    },
  );

  it('answers an empty page past the end, with the total', async () => {
    const res = await asUser(t, admin).get(`/employees/${employeeId}/attendance?limit=200&page=8`);

    expect(res.body).toEqual({ data: [], total: 1300, nextPage: null });
  });
});
