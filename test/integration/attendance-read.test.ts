import request from 'supertest';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser, type TestUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

describe.each(testDialects())('reading attendance on %s', (dialect) => {
  const t = useTestApp(dialect);
  const admin = useFixture(() => createUser(t, 'admin'));
  beforeEach(() => setClock(t, '2026-11-20T12:00:00.000Z'));

  const idsOf = (res: request.Response) => (res.body.data as Array<{ id: string }>).map((record) => Number(record.id));

  /** A manager with two reports (one a user) and someone outside, each with records. */
  async function team() {
    const manager = await createUser(t, 'manager');
    const report = await createUser(t, 'employee', { employee: { supervisor_id: manager.employeeId } });
    const otherReport = await createEmployee(t, { supervisor_id: manager.employeeId });
    const outsider = await createEmployee(t);
    const records = {
      manager: await insertAttendanceRow(t, manager.employeeId, { in: '2026-11-16T09:00:00Z', out: '2026-11-16T17:00:00Z' }),
      reportOld: await insertAttendanceRow(t, report.employeeId, { in: '2026-11-10T09:00:00Z', out: '2026-11-10T17:00:00Z' }),
      reportOpen: await insertAttendanceRow(t, report.employeeId, { in: '2026-11-20T08:00:00Z', out: null }),
      otherReport: await insertAttendanceRow(t, otherReport, { in: '2026-11-18T09:00:00Z', out: '2026-11-18T17:00:00Z' }),
      outsider: await insertAttendanceRow(t, outsider, { in: '2026-11-19T09:00:00Z', out: '2026-11-19T17:00:00Z' }),
    };
    return { manager, report, otherReport, outsider, records };
  }

  describe('GET /attendance', () => {
    it('lists exactly the records the caller may read, newest first', async () => {
      const { manager, report, records } = await team();
      const unlinked = await createUser(t, 'manager', { employee: null });

      const asManager = await asUser(t, manager).get('/attendance');
      const asReport = await asUser(t, report).get('/attendance');
      const asUnlinked = await asUser(t, unlinked).get('/attendance');

      expect(asManager.status).toBe(200);
      expect(idsOf(asManager)).toEqual([records.reportOpen, records.otherReport, records.manager, records.reportOld]);
      expect(asManager.body).toMatchObject({ total: 4, nextPage: null });
      expect(idsOf(asReport)).toEqual([records.reportOpen, records.reportOld]);
      expect(asUnlinked.body).toEqual({ data: [], total: 0, nextPage: null });
    });

    it('filters by employee, date range and open, and pages with total and nextPage', async () => {
      const { manager, report, outsider, records } = await team();
      const list = (query: string, user: TestUser = admin) => asUser(t, user).get(`/attendance?${query}`);

      const ofReport = await list(`employee=${report.employeeId}`);
      const open = await list(`employee=${report.employeeId}&open=true`);
      const closed = await list(`employee=${report.employeeId}&open=false`);
      const inRange = await list(`from=2026-11-16&to=2026-11-18`, manager);
      const firstPage = await list('limit=2', manager);
      const secondPage = await list('limit=2&page=2', manager);
      const pastTheEnd = await list('limit=2&page=3', manager);
      const invisible = await list(`employee=${outsider}`, manager);

      expect(idsOf(ofReport)).toEqual([records.reportOpen, records.reportOld]);
      expect(idsOf(open)).toEqual([records.reportOpen]);
      expect(idsOf(closed)).toEqual([records.reportOld]);
      expect(idsOf(inRange)).toEqual([records.otherReport, records.manager]);
      expect(firstPage.body).toMatchObject({ total: 4, nextPage: 2 });
      expect(idsOf(firstPage)).toEqual([records.reportOpen, records.otherReport]);
      expect(secondPage.body).toMatchObject({ total: 4, nextPage: null });
      expect(idsOf(secondPage)).toEqual([records.manager, records.reportOld]);
      expect(pastTheEnd.body).toEqual({ data: [], total: 4, nextPage: null });
      expect(invisible.body).toEqual({ data: [], total: 0, nextPage: null });
    });

    it("includes the records of `to`'s last second, also on 9999-12-31, which has no next day", async () => {
      const employee = await createEmployee(t);
      const lastDay = await insertAttendanceRow(t, employee, { in: '9999-12-31T23:59:59Z', out: '9999-12-31T23:59:59Z' });
      const evening = await insertAttendanceRow(t, employee, { in: '2026-11-18T23:59:59Z', out: '2026-11-19T00:30:00Z' });
      const nextMorning = await insertAttendanceRow(t, employee, { in: '2026-11-19T00:00:00Z', out: '2026-11-19T00:30:00Z' });
      const list = (query: string) => asUser(t, admin).get(`/attendance?employee=${employee}&${query}`);

      const toTheEnd = await list('from=9999-12-31&to=9999-12-31');
      const all = await list('to=9999-12-31');
      const toEvening = await list('to=2026-11-18');

      expect(idsOf(toTheEnd)).toEqual([lastDay]);
      expect(idsOf(all)).toEqual([lastDay, nextMorning, evening]);
      expect(all.body).toMatchObject({ total: 3 });
      expect(idsOf(toEvening)).toEqual([evening]);
    });

    it.each([
      ['unknown=1', 'unknown', 'is not a known field'],
      ['from=2026-02-30', 'from', 'must be a real date YYYY-MM-DD'],
      ['from=2026-11-02&to=2026-11-01', 'to', 'must not be before from'],
      ['open=yes', 'open', 'must be true or false'],
      ['employee=abc', 'employee', 'must be the id of an employee'],
      ['limit=0', 'limit', 'must be a whole number from 1 to 200'],
      ['limit=201', 'limit', 'must be a whole number from 1 to 200'],
      ['page=0', 'page', 'must be a whole number from 1'],
    ])('answers 400 for ?%s', async (query, field, message) => {
      const res = await asUser(t, admin).get(`/attendance?${query}`);

      expect(expectProblem(res, 400, 'invalid_query').errors).toEqual([{ field, message }]);
    });
  });

  describe('GET /attendance/{id}', () => {
    it('answers a record to whoever may read it, and 404 exactly as for a missing one to anyone else', async () => {
      const { manager, report, records } = await team();

      const byManager = await asUser(t, manager).get(`/attendance/${records.reportOld}`);
      const byReport = await asUser(t, report).get(`/attendance/${records.reportOld}`);
      const byReportOfColleague = await asUser(t, report).get(`/attendance/${records.otherReport}`);
      const outsiderByManager = await asUser(t, manager).get(`/attendance/${records.outsider}`);
      const missing = await asUser(t, manager).get('/attendance/999999');

      expect(byManager.status).toBe(200);
      expect(byManager.body).toMatchObject({ id: String(records.reportOld), employee: { id: String(report.employeeId) }, hours: 8 });
      expect(byReport.body).toEqual(byManager.body);
      for (const res of [byReportOfColleague, outsiderByManager, missing]) expectProblem(res, 404, 'not_found');
      expect(outsiderByManager.body.detail).toBe(missing.body.detail);
      expectProblem(await asUser(t, admin).get('/attendance/0x1'), 404, 'not_found');
    });

    it('works for HEAD like GET', async () => {
      const { records } = await team();

      const res = await request(t.app)
        .head(t.api(`/attendance/${records.manager}`))
        .auth(admin.token, { type: 'bearer' });

      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
    });
  });

  describe('GET /employees/{id}/attendance and /employee/{id}/attendance', () => {
    it('answer the same list of one employee, newest first, with from/to and paging', async () => {
      const employeeId = await createEmployee(t);
      const ids: number[] = [];
      for (let day = 2; day <= 6; day++) {
        ids.push(await insertAttendanceRow(t, employeeId, { in: `2026-11-0${day}T09:00:00Z`, out: `2026-11-0${day}T17:00:00Z` }));
      }

      const plural = await asUser(t, admin).get(`/employees/${employeeId}/attendance`);
      const icehrm = await asUser(t, admin).get(`/employee/${employeeId}/attendance`);
      const range = await asUser(t, admin).get(`/employees/${employeeId}/attendance?from=2026-11-03&to=2026-11-05`);
      const page2 = await asUser(t, admin).get(`/employee/${employeeId}/attendance?limit=2&page=2`);

      expect(plural.status).toBe(200);
      expect(idsOf(plural)).toEqual([...ids].reverse());
      expect(icehrm.body).toEqual(plural.body);
      expect(idsOf(range)).toEqual([ids[3], ids[2], ids[1]]);
      expect(range.body).toMatchObject({ total: 3, nextPage: null });
      expect(idsOf(page2)).toEqual([ids[2], ids[1]]);
      expect(page2.body).toMatchObject({ total: 5, nextPage: 3 });
    });

    it('answer 404 for an employee the caller may not see, and 400 for bad query parameters', async () => {
      const { manager, report, outsider } = await team();

      expect((await asUser(t, manager).get(`/employees/${report.employeeId}/attendance`)).status).toBe(200);
      expect((await asUser(t, report).get(`/employee/${report.employeeId}/attendance`)).status).toBe(200);
      expectProblem(await asUser(t, manager).get(`/employees/${outsider}/attendance`), 404, 'not_found');
      expectProblem(await asUser(t, report).get(`/employee/${manager.employeeId}/attendance`), 404, 'not_found');
      expectProblem(await asUser(t, admin).get('/employees/999999/attendance'), 404, 'not_found');
      expectProblem(await asUser(t, admin).get(`/employees/${outsider}/attendance?open=true`), 400, 'invalid_query');
      expectProblem(await asUser(t, admin).get(`/employees/${outsider}/attendance?to=2026-13-01`), 400, 'invalid_query');
    });
  });

  describe('GET /employees/{id}/attendance/summary', () => {
    /**
     * 8 h 30 min on 30 October, 8 h 20 min on 2 November, and 8 h 20 min from 22:00 on 3
     * November to 06:20 on the 4th; a record opened today counts as a record, without hours.
     * Exact total 25 h 10 min = 25.1667 h (rounding each first would give 8.5 + 8.33 + 8.33 = 25.16).
     */
    async function employeeWithRecords(timezone = 'UTC') {
      const employeeId = await createEmployee(t, { timezone });
      await insertAttendanceRow(t, employeeId, { in: '2026-10-30T09:00:00Z', out: '2026-10-30T17:30:00Z', timezone });
      await insertAttendanceRow(t, employeeId, { in: '2026-11-02T08:00:00Z', out: '2026-11-02T16:20:00Z', timezone });
      await insertAttendanceRow(t, employeeId, { in: '2026-11-03T22:00:00Z', out: '2026-11-04T06:20:00Z', timezone });
      await insertAttendanceRow(t, employeeId, { in: '2026-11-20T08:00:00Z', out: null, timezone });
      return employeeId;
    }
    const summary = (id: number, query = '', user: TestUser = admin) => asUser(t, user).get(`/employees/${id}/attendance/summary${query}`);

    it("counts records as IceHrm does, open ones included, and sums the closed ones' exact lengths", async () => {
      const employeeId = await employeeWithRecords();

      const all = await summary(employeeId);

      expect(all.status).toBe(200);
      // 4 records, 3 closed with 25 h 10 min; 3 records began in November, the closed two with
      // 16 h 40 min; avgHours = 25.1667 / 4 = 6.2917 (IceHrm divides by every record).
      expect(all.body).toEqual({ total: 4, totalHours: 25.17, thisMonth: 3, avgHours: 6.29, closed: 3, thisMonthHours: 16.67 });
    });

    it('counts the records that began within from..to, while thisMonth stays the current month', async () => {
      const employeeId = await employeeWithRecords();

      const early = await summary(employeeId, '?from=2026-11-01&to=2026-11-03');
      const late = await summary(employeeId, '?from=2026-11-04&to=2026-11-30');
      const none = await summary(employeeId, '?from=2026-12-01&to=2026-12-31');

      // The night shift began on the 3rd: it belongs to the first range only; the open record to the second.
      expect(early.body).toEqual({ total: 2, totalHours: 16.67, thisMonth: 3, avgHours: 8.33, closed: 2, thisMonthHours: 16.67 });
      expect(late.body).toEqual({ total: 1, totalHours: 0, thisMonth: 3, avgHours: 0, closed: 0, thisMonthHours: 16.67 });
      expect(none.body).toEqual({ total: 0, totalHours: 0, thisMonth: 3, avgHours: 0, closed: 0, thisMonthHours: 16.67 });
    });

    it("takes this month in the employee's zone", async () => {
      // 02:00 on 1 December in Kiritimati (UTC+14) while it is still 30 November in UTC.
      setClock(t, '2026-11-30T12:00:00Z');
      const employeeId = await employeeWithRecords('Pacific/Kiritimati');
      // 00:00 to 01:30 on 1 December there.
      await insertAttendanceRow(t, employeeId, { in: '2026-11-30T10:00:00Z', out: '2026-11-30T11:30:00Z', timezone: 'Pacific/Kiritimati' });

      const res = await summary(employeeId);

      // In UTC four records began in November; in Kiritimati only this one began in December.
      expect(res.body).toMatchObject({ total: 5, thisMonth: 1, thisMonthHours: 1.5 });
    });

    it('answers whoever may read the employee, 404 to others, 400 for bad query parameters', async () => {
      const { manager, report, outsider } = await team();

      expect((await summary(report.employeeId ?? 0, '', manager)).body).toEqual({
        total: 2,
        totalHours: 8,
        thisMonth: 2,
        avgHours: 4,
        closed: 1,
        thisMonthHours: 8,
      });
      expect((await summary(report.employeeId ?? 0, '', report)).status).toBe(200);
      expectProblem(await summary(outsider, '', manager), 404, 'not_found');
      expectProblem(await summary(outsider, '?limit=5'), 400, 'invalid_query');
      expectProblem(await summary(outsider, '?from=2026-11-05&to=2026-11-01'), 400, 'invalid_query');
    });
  });

  describe('GET /employee/{id}/open-punch-in/{date}', () => {
    it("answers the open record begun on or before the date, with the employee's wall-clock time", async () => {
      const employeeId = await createEmployee(t, { timezone: 'Asia/Kolkata' });
      // 22:00 on the 19th in Kolkata: a night shift still open at 17:30 on the 20th.
      const id = await insertAttendanceRow(t, employeeId, { in: '2026-11-19T16:30:00Z', out: null, timezone: 'Asia/Kolkata' });
      const openOn = (date: string) => asUser(t, admin).get(`/employee/${employeeId}/open-punch-in/${date}`);

      const today = await openOn('today');
      const startDay = await openOn('2026-11-19');
      const dayBefore = await openOn('2026-11-18');

      expect(today.status).toBe(200);
      expect(today.body).toEqual({ attendance: (await asUser(t, admin).get(`/attendance/${id}`)).body, time: '2026-11-20 17:30:00' });
      expect(today.body.attendance).toMatchObject({ in_time: '2026-11-19 22:00:00', out_time: null });
      expect(startDay.body.attendance.id).toBe(String(id));
      expect(dayBefore.body).toEqual({ attendance: null, time: '2026-11-20 17:30:00' });
    });

    it('answers attendance null when nothing is open, and 404 for an invisible employee', async () => {
      const { manager, outsider, otherReport } = await team();

      const none = await asUser(t, manager).get(`/employee/${otherReport}/open-punch-in/today`);

      expect(none.body).toEqual({ attendance: null, time: '2026-11-20 12:00:00' });
      expectProblem(await asUser(t, manager).get(`/employee/${outsider}/open-punch-in/today`), 404, 'not_found');
    });

    it.each(['2026-02-30', '2026-13-01', 'yesterday', '20261120'])('answers 400 invalid_query for the impossible date %s', async (date) => {
      const { outsider } = await team();

      const res = await asUser(t, admin).get(`/employee/${outsider}/open-punch-in/${date}`);

      expect(expectProblem(res, 400, 'invalid_query').errors).toEqual([{ field: 'date', message: 'must be a date YYYY-MM-DD or today' }]);
    });
  });
});
