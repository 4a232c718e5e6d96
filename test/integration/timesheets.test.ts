import request from 'supertest';
import { createWebhook } from '../../src/webhooks/subscriptions';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// Timesheets, their approval, and the payroll export (docs/pay-periods.md). The worked week of
// docs/pay-periods.md is the fixture: California-style daily rules (8 and 12) and a 40-hour week.

const OVERTIME = { daily_after_hours: 8, daily_double_after_hours: 12, weekly_after_hours: 40, seventh_day: false };

const zero = (date: string) => ({
  date,
  worked_hours: 0,
  regular_hours: 0,
  overtime_hours: 0,
  double_time_hours: 0,
  // A meal break (docs/pay-periods.md, "A group's rules in the classification"): none in group 1 here.
  break_deducted_hours: 0,
  records: 0,
  // Leave and holidays (docs/leave.md): none in these periods.
  leave_hours: 0,
  holiday_hours: 0,
  code: null,
});

describe.each(testDialects())('timesheets and the export on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(async () => {
    const created = await createOrg(t);
    await createWebhook(t.db, { url: 'https://example.com/hook', events: ['*'] }, t.clock.now());
    await asUser(t, created.admin).put('/pay-periods/settings', { overtime: OVERTIME });
    return created;
  });
  beforeEach(() => setClock(t, '2026-12-05T12:00:00.000Z'));

  /** The worked week: an employee with records from the workweek before the period to its second week. */
  const week = useFixture(async () => {
    const worker = await createEmployee(t, {
      employee_id: 'A-100',
      first_name: 'Ana',
      last_name: 'Worker',
      supervisor_id: org.manager.employeeId,
    });
    const shifts: Array<[string, string]> = [
      ['2026-10-29T08:00:00Z', '2026-10-29T18:00:00Z'],
      ['2026-10-30T08:00:00Z', '2026-10-30T18:00:00Z'],
      ['2026-11-01T10:00:00Z', '2026-11-01T12:00:00Z'],
      ['2026-11-02T07:00:00Z', '2026-11-02T21:00:00Z'],
      ['2026-11-03T09:00:00Z', '2026-11-03T12:00:00Z'],
      ['2026-11-03T13:00:00Z', '2026-11-03T18:00:00Z'],
      ['2026-11-04T09:00:00Z', '2026-11-04T17:00:00Z'],
      ['2026-11-05T09:00:00Z', '2026-11-05T17:00:00Z'],
      ['2026-11-06T09:00:00Z', '2026-11-06T19:00:00Z'],
      ['2026-11-07T09:00:00Z', '2026-11-07T13:00:00Z'],
      ['2026-11-09T09:00:00Z', '2026-11-09T09:20:00Z'],
    ];
    for (const [from, to] of shifts) await insertAttendanceRow(t, worker, { in: from, out: to });
    const quoted = await createEmployee(t, { employee_id: 'B,"2"', first_name: 'Bo', last_name: 'Quote' });
    await insertAttendanceRow(t, quoted, { in: '2026-11-02T09:00:00Z', out: '2026-11-02T17:30:00Z' });
    const lower = await createEmployee(t, { employee_id: 'a-050', first_name: 'Al', last_name: 'Lower' });
    // 23:30 in Paris on 2 November is 22:30 UTC: it counts on the 2nd, its own wall clock's date.
    await insertAttendanceRow(t, lower, { in: '2026-11-02T22:30:00Z', out: '2026-11-02T23:30:00Z', timezone: 'Europe/Paris' });
    return { worker, quoted, lower };
  });

  const days = (overrides: Record<string, object>) => {
    const all = [];
    for (let day = 1; day <= 30; day++) {
      const date = `2026-11-${String(day).padStart(2, '0')}`;
      all.push({ ...zero(date), ...overrides[date] });
    }
    return all;
  };
  const hoursOf = (worked: number, regular: number, overtime = 0, double = 0, records = 1) => ({
    worked_hours: worked,
    regular_hours: regular,
    overtime_hours: overtime,
    double_time_hours: double,
    records,
  });
  const WORKED_DAYS = {
    '2026-11-01': hoursOf(2, 2),
    '2026-11-02': hoursOf(14, 8, 4, 2),
    '2026-11-03': hoursOf(8, 8, 0, 0, 2),
    '2026-11-04': hoursOf(8, 8),
    '2026-11-05': hoursOf(8, 8),
    '2026-11-06': hoursOf(10, 8, 2),
    '2026-11-07': hoursOf(4, 0, 4),
    '2026-11-09': hoursOf(0.33, 0.33),
  };

  describe('GET /employees/{id}/timesheets/{start}', () => {
    it('classifies every date of the period (daily 8/12, the weekly 40 counting the workweek before the period)', async () => {
      const res = await asUser(t, org.admin).get(`/employees/${week.worker}/timesheets/2026-11-01`);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        employee: { type: 'Employee', id: String(week.worker), display: 'Ana Worker' },
        period: { start: '2026-11-01', end: '2026-11-30', status: 'open' },
        status: 'open',
        approved_at: null,
        approved_by: null,
        reopened_reason: null,
        days: days(WORKED_DAYS),
        totals: { worked_hours: 54.33, regular_hours: 42.33, overtime_hours: 10, double_time_hours: 2, leave_hours: 0, holiday_hours: 0 },
        open_records: 0,
      });
    });

    it('shows it to the employee themself and their manager; 404 for others, as for a missing employee', async () => {
      expect((await asUser(t, org.manager).get(`/employees/${week.worker}/timesheets/2026-11-01`)).status).toBe(200);
      expect((await asUser(t, org.manager).get(`/employees/${org.manager.employeeId}/timesheets/2026-11-01`)).status).toBe(200);
      expect((await asUser(t, org.report).get(`/employees/${org.report.employeeId}/timesheets/2026-11-01`)).status).toBe(200);
      expectProblem(await asUser(t, org.report).get(`/employees/${week.worker}/timesheets/2026-11-01`), 404, 'not_found');
      expectProblem(await asUser(t, org.otherManager).get(`/employees/${week.worker}/timesheets/2026-11-01`), 404, 'not_found');
      expectProblem(await asUser(t, org.admin).get('/employees/999999/timesheets/2026-11-01'), 404, 'not_found');
      expectProblem(await asUser(t, org.admin).get(`/employees/${week.worker}/timesheets/2026-11-02`), 404, 'not_found');
    });
  });

  describe('GET /timesheets', () => {
    it('lists a timesheet per visible employee (Active, or with a record), without days, paged', async () => {
      const terminatedIdle = await createEmployee(t, { status: 'Terminated', supervisor_id: org.manager.employeeId });
      const terminatedWorked = await createEmployee(t, { status: 'Terminated', supervisor_id: org.manager.employeeId });
      await insertAttendanceRow(t, terminatedWorked, { in: '2026-11-10T09:00:00Z', out: '2026-11-10T10:00:00Z' });

      const res = await asUser(t, org.manager).get('/timesheets?period=2026-11-01&limit=200');
      const page = await asUser(t, org.manager).get('/timesheets?period=2026-11-01&limit=2&page=2');
      await t.db('attendance').where({ employee_id: terminatedWorked }).delete();

      expect(res.status).toBe(200);
      const ids = res.body.data.map((sheet: { employee: { id: string } }) => Number(sheet.employee.id));
      expect(ids).toEqual(
        [org.manager.employeeId, org.report.employeeId, org.reportWithoutUser, week.worker, terminatedWorked].sort(
          (a, b) => Number(a) - Number(b),
        ),
      );
      expect(ids).not.toContain(terminatedIdle);
      expect(res.body.total).toBe(5);
      const worker = res.body.data.find((sheet: { employee: { id: string } }) => sheet.employee.id === String(week.worker));
      expect(worker).toEqual({
        employee: { type: 'Employee', id: String(week.worker), display: 'Ana Worker' },
        period: { start: '2026-11-01', end: '2026-11-30', status: 'open' },
        status: 'open',
        approved_at: null,
        approved_by: null,
        reopened_reason: null,
        totals: { worked_hours: 54.33, regular_hours: 42.33, overtime_hours: 10, double_time_hours: 2, leave_hours: 0, holiday_hours: 0 },
        open_records: 0,
      });

      expect(page.body).toMatchObject({ total: 5, nextPage: 3 });
      expect(page.body.data.map((sheet: { employee: { id: string } }) => Number(sheet.employee.id))).toEqual(ids.slice(2, 4));
      const own = await asUser(t, org.report).get('/timesheets?period=2026-11-01');
      expect(own.body.data.map((sheet: { employee: { id: string } }) => Number(sheet.employee.id))).toEqual([org.report.employeeId]);
    });

    it('filters by employee, department and status', async () => {
      const department = (await t.db('departments').first('id')) as { id: number } | undefined;
      const [departmentId] = department ? [department.id] : await t.db('departments').insert({ name: 'Payroll test' });
      const inDepartment = await createEmployee(t, { department_id: Number(departmentId) });

      const byEmployee = await asUser(t, org.admin).get(`/timesheets?period=2026-11-01&employee=${week.worker}`);
      expect(byEmployee.body.data.map((sheet: { employee: { id: string } }) => sheet.employee.id)).toEqual([String(week.worker)]);
      const byDepartment = await asUser(t, org.admin).get(`/timesheets?period=2026-11-01&department=${departmentId}&limit=200`);
      expect(byDepartment.body.data.map((sheet: { employee: { id: string } }) => sheet.employee.id)).toContain(String(inDepartment));
      expect(byDepartment.body.data.map((sheet: { employee: { id: string } }) => sheet.employee.id)).not.toContain(String(week.worker));
      const approved = await asUser(t, org.admin).get('/timesheets?period=2026-11-01&status=approved');
      expect(approved.body).toEqual({ data: [], total: 0, nextPage: null });
    });

    it('refuses a bad query (400) and a date that starts no period (404)', async () => {
      expectProblem(await asUser(t, org.admin).get('/timesheets'), 400, 'invalid_query');
      expectProblem(await asUser(t, org.admin).get('/timesheets?period=2026-11-01&status=paid'), 400, 'invalid_query');
      expectProblem(await asUser(t, org.admin).get('/timesheets?period=2026-11-01&employee=x'), 400, 'invalid_query');
      expectProblem(await asUser(t, org.admin).get('/timesheets?period=2026-11-01&sort=id'), 400, 'invalid_query');
      expectProblem(await asUser(t, org.admin).get('/timesheets?period=2026-11-05'), 404, 'not_found');
    });
  });

  describe('approving and reopening', () => {
    const eventsOf = async (type: string) =>
      (await t.db('webhook_events').where({ type }).orderBy('id')).map((event) => ({
        key: event.resource_key,
        ...JSON.parse(event.payload).data,
      }));

    it("is refused while a record of the period is open (409 open_records), for an employee's own (403) and for others (404)", async () => {
      const employee = await createEmployee(t, { supervisor_id: org.manager.employeeId });
      await insertAttendanceRow(t, employee, { in: '2026-09-10T09:00:00Z', out: null });

      expectProblem(await asUser(t, org.manager).post(`/employees/${employee}/timesheets/2026-09-01/approve`), 409, 'open_records');
      expect((await asUser(t, org.admin).get(`/employees/${employee}/timesheets/2026-09-01`)).body.open_records).toBe(1);
      expectProblem(
        await asUser(t, org.manager).post(`/employees/${org.manager.employeeId}/timesheets/2026-09-01/approve`),
        403,
        'forbidden',
      );
      expectProblem(
        await asUser(t, org.report).post(`/employees/${org.report.employeeId}/timesheets/2026-09-01/approve`),
        403,
        'forbidden',
      );
      expectProblem(await asUser(t, org.otherManager).post(`/employees/${employee}/timesheets/2026-09-01/approve`), 404, 'not_found');
      expectProblem(await asUser(t, org.admin).post(`/employees/${employee}/timesheets/2026-09-02/approve`), 404, 'not_found');
      expect(await t.db('timesheet_approvals').where({ employee_id: employee })).toEqual([]);
    });

    it('approves (manager of a direct report), audited, event timesheet.approved; reopened by the approver, event timesheet.reopened', async () => {
      const employee = await createEmployee(t, { supervisor_id: org.manager.employeeId });
      await insertAttendanceRow(t, employee, { in: '2026-09-10T09:00:00Z', out: '2026-09-10T17:00:00Z' });

      const approved = await asUser(t, org.manager).post(`/employees/${employee}/timesheets/2026-09-01/approve`);

      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({
        status: 'approved',
        approved_at: '2026-12-05T12:00:00.000Z',
        approved_by: org.manager.username,
        totals: { worked_hours: 8, regular_hours: 8, overtime_hours: 0, double_time_hours: 0, leave_hours: 0, holiday_hours: 0 },
      });
      expect(await t.db('timesheet_approvals').where({ employee_id: employee }).first()).toMatchObject({
        status: 'approved',
        approved_by: org.manager.userId,
        approved_by_employee: org.manager.employeeId,
      });
      expect((await eventsOf('timesheet.approved')).filter((event) => event.employee === String(employee))).toEqual([
        {
          key: `timesheet:${employee}`,
          employee: String(employee),
          period_start: '2026-09-01',
          period_end: '2026-09-30',
          status: 'approved',
          approved_at: '2026-12-05T12:00:00.000Z',
          approved_by: org.manager.username,
        },
      ]);
      // Approving again changes nothing.
      expect((await asUser(t, org.admin).post(`/employees/${employee}/timesheets/2026-09-01/approve`)).body.approved_by).toBe(
        org.manager.username,
      );
      expectProblem(await asUser(t, org.otherManager).post(`/employees/${employee}/timesheets/2026-09-01/reopen`), 404, 'not_found');

      const reopened = await asUser(t, org.manager).post(`/employees/${employee}/timesheets/2026-09-01/reopen`);

      expect(reopened.status).toBe(200);
      expect(reopened.body).toMatchObject({ status: 'open', approved_at: null, approved_by: null });
      expect((await eventsOf('timesheet.reopened')).filter((event) => event.employee === String(employee))).toEqual([
        {
          key: `timesheet:${employee}`,
          employee: String(employee),
          period_start: '2026-09-01',
          period_end: '2026-09-30',
          status: 'open',
          reason: 'reopened',
        },
      ]);
      const audit = await t
        .db('audit_log')
        .where({ entity_type: 'timesheet', entity_id: employee })
        .orderBy('id')
        .select('action', 'actor_username');
      expect(audit).toEqual([
        { action: 'timesheet.approve', actor_username: org.manager.username },
        { action: 'timesheet.reopen', actor_username: org.manager.username },
      ]);
    });

    it('lets only admins and the approving manager reopen', async () => {
      const employee = await createEmployee(t, { supervisor_id: org.manager.employeeId });
      await asUser(t, org.admin).post(`/employees/${employee}/timesheets/2026-09-01/approve`);

      expectProblem(await asUser(t, org.manager).post(`/employees/${employee}/timesheets/2026-09-01/reopen`), 403, 'forbidden');
      expect((await asUser(t, org.admin).post(`/employees/${employee}/timesheets/2026-09-01/reopen`)).body.status).toBe('open');
    });
  });

  describe('the export', () => {
    afterAll(async () => {
      await t.db('pay_period_snapshots').delete();
      await t.db('pay_period_locks').delete();
    });
    const exportOf = (path: string, etag?: string) => {
      const test = request(t.app).get(t.api(path)).auth(org.admin.token, { type: 'bearer' });
      return (etag ? test.set('If-None-Match', etag) : test).buffer(true).parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks).toString('utf8')));
      });
    };
    const EXPECTED_CSV = [
      'employee_id,employee,date,code,hours,timesheet_status',
      'A-100,{worker},2026-11-01,REG,2.00,approved',
      'A-100,{worker},2026-11-02,REG,8.00,approved',
      'A-100,{worker},2026-11-02,OT,4.00,approved',
      'A-100,{worker},2026-11-02,DT,2.00,approved',
      'A-100,{worker},2026-11-03,REG,8.00,approved',
      'A-100,{worker},2026-11-04,REG,8.00,approved',
      'A-100,{worker},2026-11-05,REG,8.00,approved',
      'A-100,{worker},2026-11-06,REG,8.00,approved',
      'A-100,{worker},2026-11-06,OT,2.00,approved',
      'A-100,{worker},2026-11-07,OT,4.00,approved',
      'A-100,{worker},2026-11-09,REG,0.33,approved',
      '"B,""2""",{quoted},2026-11-02,REG,8.00,open',
      '"B,""2""",{quoted},2026-11-02,OT,0.50,open',
      'a-050,{lower},2026-11-02,REG,1.00,open',
      '',
    ].join('\r\n');
    const expectedCsv = () =>
      EXPECTED_CSV.replace(/\{worker\}/g, String(week.worker))
        .replace(/\{quoted\}/g, String(week.quoted))
        .replace(/\{lower\}/g, String(week.lower));

    it('answers the CSV exactly: ordered by code bytes, date, REG/OT/DT; RFC 4180 quoting; its headers', async () => {
      expect((await asUser(t, org.admin).post(`/employees/${week.worker}/timesheets/2026-11-01/approve`)).status).toBe(200);

      const res = await exportOf('/pay-periods/2026-11-01/export');

      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
      expect(res.headers['content-disposition']).toBe('attachment; filename="pay-period-2026-11-01.csv"');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
      expect(res.body).toBe(expectedCsv());
    });

    it('answers the same rows as JSON', async () => {
      const res = await asUser(t, org.admin).get('/pay-periods/2026-11-01/export?format=json');

      expect(res.status).toBe(200);
      expect(res.headers['content-disposition']).toBe('attachment; filename="pay-period-2026-11-01.json"');
      expect(res.body.period).toEqual({ start: '2026-11-01', end: '2026-11-30', status: 'open', locked_at: null, locked_by: null });
      expect(res.body.rows.slice(0, 2)).toEqual([
        { employee_id: 'A-100', employee: String(week.worker), date: '2026-11-01', code: 'REG', hours: 2, timesheet_status: 'approved' },
        { employee_id: 'A-100', employee: String(week.worker), date: '2026-11-02', code: 'REG', hours: 8, timesheet_status: 'approved' },
      ]);
      const csvLines = expectedCsv().split('\r\n').slice(1, -1);
      expect(res.body.rows).toHaveLength(csvLines.length);
      expect(res.body.rows[12]).toEqual({
        employee_id: 'B,"2"',
        employee: String(week.quoted),
        date: '2026-11-02',
        code: 'OT',
        hours: 0.5,
        timesheet_status: 'open',
      });
    });

    it('answers 304 to its ETag; the ETag changes with a record, an approval or the settings', async () => {
      const first = await exportOf('/pay-periods/2026-11-01/export');
      const etag = String(first.headers.etag);

      const again = await exportOf('/pay-periods/2026-11-01/export', etag);
      expect(again.status).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
      expect((await exportOf('/pay-periods/2026-11-01/export?format=json', etag)).status).toBe(200);

      const record = await insertAttendanceRow(t, week.lower, { in: '2026-11-20T09:00:00Z', out: '2026-11-20T10:00:00Z' });
      const changed = await exportOf('/pay-periods/2026-11-01/export', etag);
      expect(changed.status).toBe(200);
      expect((await asUser(t, org.admin).delete(`/attendance/${record}`)).status).toBe(200);
      // The same records as before: the same output under a new ETag (the tag counts writes, it
      // does not read every record: issue 41), and 304 to that one.
      const restored = await exportOf('/pay-periods/2026-11-01/export', etag);
      expect(restored.status).toBe(200);
      expect(restored.body).toBe(first.body);
      expect((await exportOf('/pay-periods/2026-11-01/export', String(restored.headers.etag))).status).toBe(304);

      await asUser(t, org.admin).post(`/employees/${week.lower}/timesheets/2026-11-01/approve`);
      const approved = await exportOf('/pay-periods/2026-11-01/export', etag);
      expect(approved.status).toBe(200);
      expect(approved.body).toContain(`a-050,${week.lower},2026-11-02,REG,1.00,approved`);
      await asUser(t, org.admin).post(`/employees/${week.lower}/timesheets/2026-11-01/reopen`);

      const before = String((await exportOf('/pay-periods/2026-11-01/export')).headers.etag);
      await asUser(t, org.admin).put('/pay-periods/settings', { overtime: { weekly_after_hours: 39 } });
      const settingsChanged = await exportOf('/pay-periods/2026-11-01/export', before);
      expect(settingsChanged.status).toBe(200);
      expect(settingsChanged.body).toContain(`A-100,${week.worker},2026-11-06,OT,3.00`);
      // The new rule changed the approved numbers: Ana's timesheet is open again (CONTRACT 6.5).
      expect(settingsChanged.body).toContain(`A-100,${week.worker},2026-11-06,OT,3.00,open`);
      await asUser(t, org.admin).put('/pay-periods/settings', { overtime: OVERTIME });
      expect((await asUser(t, org.admin).post(`/employees/${week.worker}/timesheets/2026-11-01/approve`)).status).toBe(200);
    });

    it('answers HEAD with the headers and no body', async () => {
      const res = await request(t.app).head(t.api('/pay-periods/2026-11-01/export')).auth(org.admin.token, { type: 'bearer' });

      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
      expect(res.headers.etag).toBe((await exportOf('/pay-periods/2026-11-01/export')).headers.etag);
      expect(res.text ?? '').toBe('');
    });

    it('of a period without hours is the header alone', async () => {
      const res = await exportOf('/pay-periods/2026-08-01/export');
      expect(res.body).toBe('employee_id,employee,date,code,hours,timesheet_status\r\n');
      const json = await asUser(t, org.admin).get('/pay-periods/2026-08-01/export?format=json');
      expect(json.body).toEqual({
        period: { start: '2026-08-01', end: '2026-08-31', status: 'open', locked_at: null, locked_by: null },
        rows: [],
      });
    });

    it('is for admins only; a bad format is 400', async () => {
      expectProblem(await asUser(t, org.manager).get('/pay-periods/2026-11-01/export'), 403, 'forbidden');
      expectProblem(await asUser(t, org.admin).get('/pay-periods/2026-11-01/export?format=xml'), 400, 'invalid_query');
      expectProblem(await asUser(t, org.admin).get('/pay-periods/2026-11-02/export'), 404, 'not_found');
    });

    it('of a locked period is byte-identical on every call, after the settings and an employee time zone changed', async () => {
      expect((await asUser(t, org.admin).post('/pay-periods/2026-11-01/lock')).status).toBe(200);
      const locked = await exportOf('/pay-periods/2026-11-01/export');
      expect(locked.body).toBe(expectedCsv());

      await asUser(t, org.admin).put('/pay-periods/settings', { workweek_start: 'sunday', overtime: { daily_after_hours: 4 } });
      await t.db('employees').where({ id: week.lower }).update({ timezone: 'Asia/Tokyo', employee_id: 'Z-050' });
      await t.db('timesheet_approvals').where({ employee_id: week.worker }).update({ status: 'open' });

      const later = await exportOf('/pay-periods/2026-11-01/export');
      expect(later.body).toBe(locked.body);
      expect(later.headers.etag).toBe(locked.headers.etag);
      expect((await exportOf('/pay-periods/2026-11-01/export', String(locked.headers.etag))).status).toBe(304);
      const json = await asUser(t, org.admin).get('/pay-periods/2026-11-01/export?format=json');
      expect(json.body.period).toMatchObject({ status: 'locked', locked_by: org.admin.username });
      const sheet = await asUser(t, org.admin).get(`/employees/${week.worker}/timesheets/2026-11-01`);
      expect(sheet.body).toMatchObject({ period: { status: 'locked' }, status: 'approved', days: days(WORKED_DAYS) });
      const list = await asUser(t, org.admin).get(`/timesheets?period=2026-11-01&employee=${week.worker}`);
      expect(list.body.data[0].totals).toEqual({
        worked_hours: 54.33,
        regular_hours: 42.33,
        overtime_hours: 10,
        double_time_hours: 2,
        leave_hours: 0,
        holiday_hours: 0,
      });

      expectProblem(await asUser(t, org.admin).post(`/employees/${week.worker}/timesheets/2026-11-01/reopen`), 409, 'period_locked');
      expectProblem(await asUser(t, org.admin).post(`/employees/${week.lower}/timesheets/2026-11-01/approve`), 409, 'period_locked');
      await asUser(t, org.admin).put('/pay-periods/settings', { workweek_start: 'monday', overtime: OVERTIME });
      await t.db('employees').where({ id: week.lower }).update({ timezone: 'UTC', employee_id: 'a-050' });
    });

    it('records pay_period.locked and pay_period.unlocked in the outbox', async () => {
      expect((await asUser(t, org.admin).post('/pay-periods/2026-11-01/unlock')).status).toBe(200);
      const events = (await t.db('webhook_events').whereIn('type', ['pay_period.locked', 'pay_period.unlocked']).orderBy('id')).map(
        (event) => ({
          type: event.type,
          key: event.resource_key,
          data: JSON.parse(event.payload).data,
        }),
      );
      expect(events).toEqual([
        {
          type: 'pay_period.locked',
          key: 'pay_period:20261101',
          data: {
            start: '2026-11-01',
            end: '2026-11-30',
            status: 'locked',
            locked_at: '2026-12-05T12:00:00.000Z',
            locked_by: org.admin.username,
            lock_version: expect.any(Number),
            group: '1',
          },
        },
        {
          type: 'pay_period.unlocked',
          key: 'pay_period:20261101',
          data: {
            start: '2026-11-01',
            end: '2026-11-30',
            status: 'open',
            locked_at: null,
            locked_by: null,
            lock_version: null,
            group: '1',
          },
        },
      ]);
    });
  });
});
