import { insertAttendanceRow, setClock } from '../helpers/attendance';
import { asUser } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg, createUser, type TestUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

describe.each(testDialects())('the deletion feeds and updated_since on GET /attendance on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  let day = 0;
  /** Each test starts on a day of its own, so that `since` that day sees only its own deletions. */
  let since: string;
  beforeEach(() => {
    day++;
    setClock(t, `2027-${String(1 + Math.floor(day / 28)).padStart(2, '0')}-${String(1 + (day % 28)).padStart(2, '0')}T09:00:00.000Z`);
    since = t.clock.now().toISOString();
  });
  const later = (ms = 1000) => t.clock.advance(ms);
  const ids = (body: { data: Array<{ id: string }> }) => body.data.map((item) => item.id);
  const deletedEmployees = (user: TestUser, query = `since=${since}`) => asUser(t, user).get(`/employees/deleted?${query}`);
  const deletedAttendance = (user: TestUser, query = `since=${since}`) => asUser(t, user).get(`/attendance/deleted?${query}`);
  const record = (employee: number | null, start = '2026-11-18T08:00:00Z') =>
    insertAttendanceRow(t, employee, { in: start, out: start.replace('T08', 'T16') });

  describe('GET /employees/deleted', () => {
    it('lists a deleted employee with its id, employee_id and deleted_at (a route of its own, not an id)', async () => {
      const id = await createEmployee(t, { employee_id: `DEL-${day}` });
      later(1500);
      const deletedAt = t.clock.now().toISOString();
      expect((await asUser(t, org.admin).delete(`/employees/${id}`)).status).toBe(200);

      const res = await deletedEmployees(org.admin);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: [{ id: String(id), employee_id: `DEL-${day}`, deleted_at: deletedAt }], total: 1, nextPage: null });
    });

    it('shows admins every deletion, managers their reports at the deletion, employees none of others', async () => {
      const mine = await createEmployee(t, { supervisor_id: org.manager.employeeId });
      const theirs = await createEmployee(t, { supervisor_id: org.otherManager.employeeId });
      const nobodys = await createEmployee(t);
      for (const id of [mine, theirs, nobodys]) {
        later();
        expect((await asUser(t, org.admin).delete(`/employees/${id}`)).status).toBe(200);
      }

      expect(ids((await deletedEmployees(org.admin)).body)).toEqual([String(mine), String(theirs), String(nobodys)]);
      expect(ids((await deletedEmployees(org.manager)).body)).toEqual([String(mine)]);
      expect(ids((await deletedEmployees(org.otherManager)).body)).toEqual([String(theirs)]);
      expect((await deletedEmployees(org.report)).body).toEqual({ data: [], total: 0, nextPage: null });
      expect((await deletedEmployees(await createUser(t, 'manager', { employee: null }))).body.total).toBe(0);
    });

    it('pages oldest first with limit and page, and leaves out what was deleted before since', async () => {
      const early = await createEmployee(t);
      await asUser(t, org.admin).delete(`/employees/${early}`);
      later(60_000);
      const from = t.clock.now().toISOString();
      const deleted: string[] = [];
      for (let i = 0; i < 5; i++) {
        const id = await createEmployee(t);
        // The same instant twice: ties keep the order of deletion.
        if (i !== 3) later();
        await asUser(t, org.admin).delete(`/employees/${id}`);
        deleted.push(String(id));
      }

      const pages = [];
      for (const page of [1, 2, 3, 4]) pages.push((await deletedEmployees(org.admin, `since=${from}&limit=2&page=${page}`)).body);

      expect(pages.map((page) => [ids(page), page.total, page.nextPage])).toEqual([
        [deleted.slice(0, 2), 5, 2],
        [deleted.slice(2, 4), 5, 3],
        [deleted.slice(4), 5, null],
        [[], 5, null],
      ]);
      const all = (await deletedEmployees(org.admin, `since=${since}&limit=200`)).body;
      expect(ids(all)).toEqual([String(early), ...deleted]);
      // since is inclusive: the first deletion's own instant still lists it.
      expect(ids((await deletedEmployees(org.admin, `since=${all.data[1].deleted_at}`)).body)[0]).toBe(deleted[0]);
    });

    it.each([
      ['no since', ''],
      ['a since that is no instant', 'since=yesterday'],
      ['an impossible date', 'since=2026-02-30T00:00:00Z'],
      ['a since without a zone', 'since=2026-02-01T00:00:00'],
      ['an unknown parameter', `since=2026-02-01T00:00:00Z&deleted_by=1`],
      ['a limit out of range', `since=2026-02-01T00:00:00Z&limit=0`],
    ])('answers 400 invalid_query for %s', async (_case, query) => {
      expectProblem(await deletedEmployees(org.admin, query), 400, 'invalid_query');
      expectProblem(await deletedAttendance(org.admin, query), 400, 'invalid_query');
    });
  });

  describe('GET /attendance/deleted', () => {
    it('lists a deleted record to admins, the employee and their manager, and to no one else', async () => {
      const id = await record(org.report.employeeId);
      later(1500);
      const deletedAt = t.clock.now().toISOString();
      expect((await asUser(t, org.admin).delete(`/attendance/${id}`)).status).toBe(200);

      const expected = { data: [{ id: String(id), deleted_at: deletedAt }], total: 1, nextPage: null };
      expect((await deletedAttendance(org.admin)).body).toEqual(expected);
      expect((await deletedAttendance(org.report)).body).toEqual(expected);
      expect((await deletedAttendance(org.manager)).body).toEqual(expected);
      expect((await deletedAttendance(org.otherManager)).body.total).toBe(0);
      expect((await deletedAttendance(org.outsider)).body.total).toBe(0);
    });

    it("lists every record an employee's deletion took with them, visible to their manager at the deletion", async () => {
      const employee = await createEmployee(t, { supervisor_id: org.manager.employeeId });
      const records = [await record(employee, '2026-11-16T08:00:00Z'), await record(employee, '2026-11-17T08:00:00Z')];
      const other = await record(org.report.employeeId, '2026-11-15T08:00:00Z');
      later();

      expect((await asUser(t, org.admin).delete(`/employees/${employee}`)).status).toBe(200);

      const feed = (await deletedAttendance(org.admin)).body;
      expect(ids(feed).sort()).toEqual(records.map(String).sort());
      expect(new Set(feed.data.map((item: { deleted_at: string }) => item.deleted_at))).toEqual(new Set([t.clock.now().toISOString()]));
      expect(ids((await deletedAttendance(org.manager)).body).sort()).toEqual(records.map(String).sort());
      expect((await deletedAttendance(org.otherManager)).body.total).toBe(0);
      expect(await t.db('attendance').where({ id: other }).first()).toBeDefined();
      expect(await t.db('attendance').whereIn('id', records)).toEqual([]);
    });

    it('pages oldest first and keeps since', async () => {
      const records = [];
      for (let i = 0; i < 3; i++) records.push(await record(org.outsider.employeeId, `2026-10-0${i + 1}T08:00:00Z`));
      for (const id of records) {
        later();
        await asUser(t, org.admin).delete(`/attendance/${id}`);
      }

      const first = (await deletedAttendance(org.admin, `since=${since}&limit=2`)).body;
      const second = (await deletedAttendance(org.admin, `since=${since}&limit=2&page=2`)).body;
      const lastOnly = (await deletedAttendance(org.admin, `since=${second.data[0].deleted_at}`)).body;

      expect([ids(first), first.total, first.nextPage]).toEqual([records.slice(0, 2).map(String), 3, 2]);
      expect([ids(second), second.total, second.nextPage]).toEqual([[String(records[2])], 3, null]);
      expect(ids(lastOnly)).toEqual([String(records[2])]);
      expect(ids((await deletedAttendance(org.outsider)).body)).toEqual(records.map(String));
    });
  });

  describe('updated_since on GET /attendance', () => {
    it('keeps the records created or corrected at or after it, so that corrections show up in a delta sync', async () => {
      const employee = await createEmployee(t);
      const untouched = await record(employee, '2026-09-01T08:00:00Z');
      const corrected = await record(employee, '2026-09-02T08:00:00Z');
      later(60_000);
      const lastSync = t.clock.now().toISOString();
      later();
      expect((await asUser(t, org.admin).patch(`/attendance/${corrected}`, { note: 'fixed' })).status).toBe(200);
      const added = await asUser(t, org.admin).post('/attendance', {
        employee: String(employee),
        in_time: '2026-09-03 08:00:00',
        out_time: '2026-09-03 16:00:00',
      });

      const delta = await asUser(t, org.admin).get(`/attendance?employee=${employee}&updated_since=${lastSync}`);
      const everything = await asUser(t, org.admin).get(`/attendance?employee=${employee}&updated_since=${since}`);
      const later_ = await asUser(t, org.admin).get(`/attendance?employee=${employee}&updated_since=2030-01-01T00:00:00Z`);

      expect(delta.status).toBe(200);
      expect(ids(delta.body)).toEqual([added.body.id, String(corrected)]);
      expect(delta.body.total).toBe(2);
      expect(delta.body.data[1].note).toBe('fixed');
      expect(ids(everything.body)).toEqual([added.body.id, String(corrected), String(untouched)]);
      expect(later_.body).toEqual({ data: [], total: 0, nextPage: null });
    });

    it('keeps the visibility of the list: a manager sees their reports’ corrections only', async () => {
      const mine = await record(org.report.employeeId, '2026-08-01T08:00:00Z');
      const theirs = await record(org.otherReport.employeeId, '2026-08-01T08:00:00Z');
      later();
      const from = t.clock.now().toISOString();
      for (const id of [mine, theirs]) expect((await asUser(t, org.admin).patch(`/attendance/${id}`, { note: 'x' })).status).toBe(200);

      const res = await asUser(t, org.manager).get(`/attendance?updated_since=${from}`);

      expect(ids(res.body)).toEqual([String(mine)]);
    });

    it('answers 400 invalid_query for an updated_since that is no instant', async () => {
      expectProblem(await asUser(t, org.admin).get('/attendance?updated_since=last-week'), 400, 'invalid_query');
      expectProblem(await asUser(t, org.admin).get('/attendance?updated_since=2026-13-01T00:00:00Z'), 400, 'invalid_query');
    });
  });
});
