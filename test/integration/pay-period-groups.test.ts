import { createWebhook } from '../../src/webhooks/subscriptions';
import { asUser, attendanceRowsOf, insertAttendanceRow, setClock } from '../helpers/attendance';
import { runHrm } from '../helpers/cli';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// Pay periods per pay group (CONTRACT 6.5; docs/pay-periods.md, "Groups"): every pay-period path
// takes ?group= (default 1); group 1 keeps its monthly periods while a weekly group draws weeks;
// a group's lock refuses the writes of its own employees only; its export and /timesheets list
// its employees; a timesheet is of its employee's group.

describe.each(testDialects())('pay periods per pay group on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  useFixture(async () => ({
    webhook: await createWebhook(t.db, { url: 'https://93.184.215.14/hooks', events: ['*'] }, t.clock.now()),
  }));
  beforeEach(() => setClock(t, '2026-11-20T12:00:00.000Z'));
  afterEach(async () => {
    await t.db('pay_period_snapshots').delete();
    await t.db('pay_period_locks').delete();
    await t.db('timesheet_approvals').delete();
    await t.db('attendance').delete();
  });

  const admin = () => asUser(t, org.admin);
  const count = async (table: string) => Number(((await t.db(table).count({ n: '*' }).first()) as { n: number | string }).n);
  const WEEK = { start: '2026-11-02', end: '2026-11-08' };

  /** A weekly group (weeks from Monday 2026-11-02), an employee in it and one in group 1, each with 8 hours on 2026-11-03. */
  const setUp = async (timezones: { weekly?: string } = {}) => {
    const created = await admin().post('/pay-groups', { name: unique('Weekly'), frequency: 'weekly', anchor_date: WEEK.start });
    expect(created.status).toBe(201);
    const group = Number(created.body.id);
    const weekly = await createEmployee(t, timezones.weekly ? { timezone: timezones.weekly } : {});
    const monthly = await createEmployee(t);
    expect((await admin().patch(`/employees/${weekly}`, { pay_group: String(group) })).status).toBe(200);
    for (const employee of [weekly, monthly])
      await insertAttendanceRow(t, employee, { in: '2026-11-03T08:00:00Z', out: '2026-11-03T16:00:00Z' });
    return { group, weekly, monthly };
  };
  const starts = (res: { body: { data: Array<{ start: string }> } }) => res.body.data.map((period) => period.start);
  const expectGroupRefused = (res: { status: number; headers: Record<string, any>; text: string }) => {
    const body = expectProblem(res, 400, 'invalid_query');
    expect(body.errors).toEqual([
      { field: 'group', message: expect.stringMatching(/^(names no pay group|must be the id of a pay group)/) },
    ]);
  };

  describe('GET /pay-periods and /pay-periods/{start}', () => {
    it("lists each group's own periods: group 1's months by default, the weekly group's weeks with ?group=", async () => {
      const { group } = await setUp();

      const monthly = await admin().get('/pay-periods?from=2026-11-01&to=2026-11-15');
      const weekly = await admin().get(`/pay-periods?from=2026-11-01&to=2026-11-15&group=${group}`);

      expect(monthly.status).toBe(200);
      expect(starts(monthly)).toEqual(['2026-11-01']);
      expect(weekly.status).toBe(200);
      expect(weekly.body).toEqual({
        data: [
          { start: '2026-11-09', end: '2026-11-15', status: 'open', locked_at: null, locked_by: null, lock_version: null },
          { start: '2026-11-02', end: '2026-11-08', status: 'open', locked_at: null, locked_by: null, lock_version: null },
          { start: '2026-10-26', end: '2026-11-01', status: 'open', locked_at: null, locked_by: null, lock_version: null },
        ],
        total: 3,
        nextPage: null,
      });
    });

    it("names a period by a start of that group's layout: 404 for a start of another group's", async () => {
      const { group } = await setUp();

      expect((await admin().get(`/pay-periods/2026-11-02?group=${group}`)).body).toEqual({
        start: '2026-11-02',
        end: '2026-11-08',
        status: 'open',
        locked_at: null,
        locked_by: null,
        lock_version: null,
      });
      expectProblem(await admin().get('/pay-periods/2026-11-02'), 404, 'not_found');
      expectProblem(await admin().get(`/pay-periods/2026-11-01?group=${group}`), 404, 'not_found');
      expect((await admin().get('/pay-periods/2026-11-01?group=1')).body).toMatchObject({ start: '2026-11-01', end: '2026-11-30' });
    });

    it('refuses a group no pay group has, or that is no id, with 400 naming group, on every path, writing nothing', async () => {
      const { weekly } = await setUp();
      const before = { locks: await count('pay_period_locks'), audit: await count('audit_log'), events: await count('webhook_events') };

      for (const group of ['99999', 'abc', '0']) {
        expectGroupRefused(await admin().get(`/pay-periods?group=${group}`));
        expectGroupRefused(await admin().get(`/pay-periods/2026-11-01?group=${group}`));
        expectGroupRefused(await admin().post(`/pay-periods/2026-11-01/lock?group=${group}`));
        expectGroupRefused(await admin().post(`/pay-periods/2026-11-01/unlock?group=${group}`));
        expectGroupRefused(await admin().get(`/pay-periods/2026-11-01/export?group=${group}`));
        expectGroupRefused(await admin().get(`/timesheets?period=2026-11-01&group=${group}`));
      }

      expect({ locks: await count('pay_period_locks'), audit: await count('audit_log'), events: await count('webhook_events') }).toEqual(
        before,
      );
      expect(await attendanceRowsOf(t, weekly)).toHaveLength(1);
    });
  });

  describe('locks per group', () => {
    it("locks the weekly group's week: its employee's writes on it are refused, group 1's employee's are not", async () => {
      const { group, weekly, monthly } = await setUp();

      const locked = await admin().post(`/pay-periods/${WEEK.start}/lock?group=${group}`);

      expect(locked.status).toBe(200);
      expect(locked.body).toMatchObject({ ...WEEK, status: 'locked', lock_version: 1 });
      expect(await t.db('pay_period_locks').select('group_id', 'period_start')).toEqual([{ group_id: group, period_start: WEEK.start }]);
      // Its snapshot holds the group's employees only.
      expect(await t.db('pay_period_snapshots').pluck('employee_id')).toEqual([weekly]);
      // Group 1's November, which holds the same date, stays open.
      expect((await admin().get('/pay-periods/2026-11-01')).body).toMatchObject({ status: 'open', lock_version: null });

      const detail =
        'The pay period 2026-11-02 to 2026-11-08 is locked: attendance that counts on 2026-11-04 cannot change until the period is unlocked';
      const before = await attendanceRowsOf(t, weekly);
      const record = { in_time: '2026-11-04 08:00:00', out_time: '2026-11-04 12:00:00' };
      expect(expectProblem(await admin().post('/attendance', { employee: String(weekly), ...record }), 409, 'period_locked').detail).toBe(
        detail,
      );
      expectProblem(
        await admin().post('/attendance/punch-in', { employee: String(weekly), in_time: '2026-11-04T08:00:00Z' }),
        409,
        'period_locked',
      );
      const [stored] = before;
      expectProblem(await admin().patch(`/attendance/${stored!.id}`, { note: 'x', out_time: '2026-11-03 17:00:00' }), 409, 'period_locked');
      expectProblem(await admin().delete(`/attendance/${stored!.id}`), 409, 'period_locked');
      expect(await attendanceRowsOf(t, weekly)).toEqual(before);

      expect((await admin().post('/attendance', { employee: String(monthly), ...record })).status).toBe(201);
      expect((await admin().delete(`/attendance/${(await attendanceRowsOf(t, monthly))[0]!.id}`)).status).toBe(200);
    });

    it("refuses a terminal's entries of the locked group's employee only; the rest of the batch applies", async () => {
      const { group, weekly, monthly } = await setUp();
      expect((await admin().post(`/pay-periods/${WEEK.start}/lock?group=${group}`)).status).toBe(200);

      const res = await admin().post('/attendance/punch-logs', {
        entries: [
          { log_id: `w-in-${weekly}`, employee: weekly, time: '2026-11-05T08:00:00Z', direction: 'in' },
          { log_id: `m-in-${monthly}`, employee: monthly, time: '2026-11-05T08:00:00Z', direction: 'in' },
        ],
      });

      expect(res.status).toBe(200);
      expect(res.body.results.map((result: { result: string; code?: string }) => [result.result, result.code])).toEqual([
        ['rejected', 'period_locked'],
        ['created', undefined],
      ]);
      expect(await attendanceRowsOf(t, weekly)).toHaveLength(1);
      expect(await attendanceRowsOf(t, monthly)).toHaveLength(2);
    });

    it("locks group 1's October without touching the weekly group's employee", async () => {
      const { group, weekly, monthly } = await setUp();

      expect((await admin().post('/pay-periods/2026-10-01/lock')).status).toBe(200);

      const record = { in_time: '2026-10-20 08:00:00', out_time: '2026-10-20 16:00:00' };
      expectProblem(await admin().post('/attendance', { employee: String(monthly), ...record }), 409, 'period_locked');
      expect((await admin().post('/attendance', { employee: String(weekly), ...record })).status).toBe(201);
      expect((await admin().get(`/pay-periods/2026-10-19?group=${group}`)).body).toMatchObject({ status: 'open' });
      expect(await t.db('pay_period_snapshots').where('employee_id', weekly).count({ n: '*' }).first()).toEqual({ n: 0 });
    });

    it("reads the period end on the group's employees' wall clocks, and require_approved asks its employees only", async () => {
      const { group, weekly } = await setUp({ weekly: 'America/Los_Angeles' });
      // 03:00 UTC on Monday 2026-11-09: Sunday 2026-11-08 still in Los Angeles, Monday already in UTC.
      setClock(t, '2026-11-09T03:00:00.000Z');

      const early = await admin().post(`/pay-periods/${WEEK.start}/lock?group=${group}`);
      expect(expectProblem(early, 409, 'period_not_ended').detail).toMatch(/it is 2026-11-08 in America\/Los_Angeles\)$/);
      expect(await count('pay_period_locks')).toBe(0);

      setClock(t, '2026-11-09T08:00:01.000Z');
      const unapproved = await admin().post(`/pay-periods/${WEEK.start}/lock?group=${group}&require_approved=true`);
      expect(expectProblem(unapproved, 409, 'unapproved_timesheets').errors).toEqual([
        { field: 'employee', message: expect.stringMatching(new RegExp(`^${weekly} `)) },
      ]);
      // Group 1's employee has unapproved hours on the same dates: not this group's concern.
      expect((await admin().post(`/employees/${weekly}/timesheets/${WEEK.start}/approve`)).status).toBe(200);
      expect((await admin().post(`/pay-periods/${WEEK.start}/lock?group=${group}&require_approved=true`)).status).toBe(200);
    });

    it("asks about the group's open records only: another group's open record neither refuses the lock nor becomes a missed punch-out", async () => {
      const { group, weekly, monthly } = await setUp();
      const open = await insertAttendanceRow(t, monthly, { in: '2026-11-04T08:00:00Z', out: null });

      const locked = await admin().post(`/pay-periods/${WEEK.start}/lock?group=${group}`);

      expect(locked.status).toBe(200);
      expect(locked.body.open_records).toBeUndefined();
      const row = await t.db('attendance').where({ id: open }).first('missed_punch_out', 'out_time_utc');
      expect([Boolean(row.missed_punch_out), row.out_time_utc]).toEqual([false, null]);
      // The weekly group's own open record refuses its next week's lock.
      const weeklyOpen = await insertAttendanceRow(t, weekly, { in: '2026-11-10T08:00:00Z', out: null });
      const refused = await admin().post(`/pay-periods/2026-11-09/lock?group=${group}`);
      expect(expectProblem(refused, 409, 'open_records').open_records).toEqual([
        { employee: String(weekly), attendance: String(weeklyOpen), in_time: '2026-11-10 08:00:00' },
      ]);
    });

    it('unlocks per group, and the lock and unlock events name the group', async () => {
      const { group } = await setUp();
      const before = Number((await t.db('webhook_events').max({ id: 'id' }).first())?.id ?? 0);
      expect((await admin().post(`/pay-periods/${WEEK.start}/lock?group=${group}`)).status).toBe(200);

      expectProblem(await admin().post(`/pay-periods/${WEEK.start}/unlock`), 404, 'not_found');
      const unlocked = await admin().post(`/pay-periods/${WEEK.start}/unlock?group=${group}`);

      expect(unlocked.status).toBe(200);
      expect(unlocked.body).toEqual({ ...WEEK, status: 'open', locked_at: null, locked_by: null, lock_version: null });
      expect(await count('pay_period_locks')).toBe(0);
      const events = await t
        .db('webhook_events')
        .where('id', '>', before)
        .whereIn('type', ['pay_period.locked', 'pay_period.unlocked'])
        .orderBy('id');
      expect(events.map((event) => [event.type, JSON.parse(event.payload).data.group])).toEqual([
        ['pay_period.locked', String(group)],
        ['pay_period.unlocked', String(group)],
      ]);
    });
  });

  describe("the group's employees", () => {
    it('exports and lists the timesheets of the group’s employees only, open and locked', async () => {
      const { group, weekly, monthly } = await setUp();
      const exportedEmployees = async (path: string) => [
        ...new Set(((await admin().get(path)).body.rows as Array<{ employee: string }>).map((row) => row.employee)),
      ];
      const listed = async (path: string) =>
        ((await admin().get(path)).body.data as Array<{ employee: { id: string } }>).map((sheet) => sheet.employee.id);

      expect(await exportedEmployees(`/pay-periods/${WEEK.start}/export?format=json&group=${group}`)).toEqual([String(weekly)]);
      expect(await exportedEmployees('/pay-periods/2026-11-01/export?format=json')).toEqual([String(monthly)]);
      expect(await listed(`/timesheets?period=${WEEK.start}&group=${group}`)).toEqual([String(weekly)]);
      const groupOne = await listed('/timesheets?period=2026-11-01&limit=200');
      expect(groupOne).toContain(String(monthly));
      expect(groupOne).not.toContain(String(weekly));

      setClock(t, '2026-12-05T12:00:00.000Z');
      expect((await admin().post(`/pay-periods/${WEEK.start}/lock?group=${group}`)).status).toBe(200);
      expect((await admin().post('/pay-periods/2026-11-01/lock')).status).toBe(200);
      expect(await exportedEmployees(`/pay-periods/${WEEK.start}/export?format=json&group=${group}`)).toEqual([String(weekly)]);
      expect(await exportedEmployees('/pay-periods/2026-11-01/export?format=json')).toEqual([String(monthly)]);
      expect(await listed(`/timesheets?period=${WEEK.start}&group=${group}`)).toEqual([String(weekly)]);
      expect(await listed('/timesheets?period=2026-11-01&limit=200')).not.toContain(String(weekly));
      const csv = await admin().get(`/pay-periods/${WEEK.start}/export?group=${group}`);
      expect(csv.text).toBe(
        `employee_id,employee,date,code,hours,timesheet_status\r\n${await codeOf(weekly)},${weekly},2026-11-03,REG,8.00,open\r\n`,
      );
    });

    it("answers a timesheet of the employee's group's period, 404 for another group's start", async () => {
      const { group, weekly, monthly } = await setUp();

      const sheet = await admin().get(`/employees/${weekly}/timesheets/${WEEK.start}`);
      expect(sheet.status).toBe(200);
      expect(sheet.body).toMatchObject({ period: { ...WEEK, status: 'open' }, totals: { worked_hours: 8 } });
      expect(sheet.body.days).toHaveLength(7);
      expectProblem(await admin().get(`/employees/${weekly}/timesheets/2026-11-01`), 404, 'not_found');
      expectProblem(await admin().get(`/employees/${monthly}/timesheets/${WEEK.start}`), 404, 'not_found');
      expectProblem(await admin().post(`/employees/${weekly}/timesheets/2026-11-01/approve`), 404, 'not_found');
      expect(await count('timesheet_approvals')).toBe(0);

      expect((await admin().post(`/employees/${weekly}/timesheets/${WEEK.start}/approve`)).status).toBe(200);
      expect(await t.db('timesheet_approvals').select('employee_id', 'group_id', 'period_start')).toEqual([
        { employee_id: weekly, group_id: group, period_start: WEEK.start },
      ]);
      expect((await admin().post(`/pay-periods/${WEEK.start}/lock?group=${group}`)).status).toBe(200);
      expect((await admin().get(`/employees/${weekly}/timesheets/${WEEK.start}`)).body).toMatchObject({
        period: { status: 'locked' },
        status: 'approved',
      });
      expect((await admin().get(`/employees/${monthly}/timesheets/2026-11-01`)).body).toMatchObject({ period: { status: 'open' } });
    });
  });

  describe("a group's workweek", () => {
    it("keeps an approval a same-length correction leaves as it was, counting weeks from the group's workweek_start", async () => {
      // Weeks from Sunday: 10 hours on Sunday 2026-11-01 and 4 x 8 hours make 42 in that workweek (2 overtime on
      // Thursday); counted from Monday, as group 1's, Sunday would be another week and nothing overtime.
      const created = await admin().post('/pay-groups', {
        name: unique('Sundays'),
        frequency: 'weekly',
        anchor_date: '2026-11-01',
        workweek_start: 'sunday',
        overtime: { weekly_after_hours: 40 },
      });
      expect(created.status).toBe(201);
      const employee = await createEmployee(t);
      expect((await admin().patch(`/employees/${employee}`, { pay_group: String(created.body.id) })).status).toBe(200);
      await insertAttendanceRow(t, employee, { in: '2026-11-01T06:00:00Z', out: '2026-11-01T16:00:00Z' });
      for (const day of ['02', '03', '04'])
        await insertAttendanceRow(t, employee, { in: `2026-11-${day}T08:00:00Z`, out: `2026-11-${day}T16:00:00Z` });
      const thursday = await insertAttendanceRow(t, employee, { in: '2026-11-05T08:00:00Z', out: '2026-11-05T16:00:00Z' });
      const approved = await admin().post(`/employees/${employee}/timesheets/2026-11-01/approve`);
      expect(approved.status).toBe(200);
      expect(approved.body.totals).toMatchObject({ worked_hours: 42, regular_hours: 40, overtime_hours: 2 });

      const moved = await admin().patch(`/attendance/${thursday}`, { in_time: '2026-11-05 09:00:00', out_time: '2026-11-05 17:00:00' });

      expect(moved.status).toBe(200);
      expect((await admin().get(`/employees/${employee}/timesheets/2026-11-01`)).body).toMatchObject({
        status: 'approved',
        totals: { overtime_hours: 2 },
      });
    });
  });

  describe('hrm pay-period --group', () => {
    it("lists, locks, exports and unlocks the group's periods", async () => {
      const { group, weekly } = await setUp();

      const list = await runHrm(t, ['pay-period', 'list', '--from', '2026-11-01', '--to', '2026-11-15', '--group', String(group)]);
      expect(list.code).toBe(0);
      expect(list.stdout.match(/^\d{4}-\d{2}-\d{2}/gm)).toEqual(['2026-11-09', '2026-11-02', '2026-10-26']);

      const lock = await runHrm(t, ['pay-period', 'lock', '--start', WEEK.start, '--group', String(group)]);
      expect(lock).toMatchObject({ code: 0, stdout: 'Locked the pay period 2026-11-02 to 2026-11-08.\n' });
      expect(await t.db('pay_period_locks').select('group_id', 'period_start', 'locked_by_name')).toEqual([
        { group_id: group, period_start: WEEK.start, locked_by_name: 'cli' },
      ]);

      const exported = await runHrm(t, ['pay-period', 'export', '--start', WEEK.start, '--group', String(group), '--format', 'json']);
      expect(exported.code).toBe(0);
      expect(JSON.parse(exported.stdout).rows).toEqual([
        {
          employee_id: await codeOf(weekly),
          employee: String(weekly),
          date: '2026-11-03',
          code: 'REG',
          hours: 8,
          timesheet_status: 'open',
        },
      ]);

      const unlock = await runHrm(t, ['pay-period', 'unlock', '--start', WEEK.start, '--group', String(group)]);
      expect(unlock).toMatchObject({ code: 0, stdout: 'Unlocked the pay period 2026-11-02 to 2026-11-08.\n' });
      expect(await count('pay_period_locks')).toBe(0);
    });

    it('defaults to group 1, and refuses a --group that is no id or no group, locking nothing', async () => {
      await setUp();

      expect((await runHrm(t, ['pay-period', 'lock', '--start', WEEK.start])).stderr).toMatch(/^hrm: not_found: /);
      const notAnId = await runHrm(t, ['pay-period', 'lock', '--start', WEEK.start, '--group', 'abc']);
      expect(notAnId.code).not.toBe(0);
      expect(notAnId.stderr).toBe('hrm: --group must be the id of a pay group\n');
      const unknown = await runHrm(t, ['pay-period', 'export', '--start', WEEK.start, '--group', '99999']);
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toMatch(/^hrm: invalid_query: group names no pay group: 99999/);
      expect((await runHrm(t, ['pay-period', 'lock', '--start', WEEK.start, '--group', '99999'])).stderr).toMatch(/names no pay group/);
      expect(await count('pay_period_locks')).toBe(0);
    });
  });

  async function codeOf(employee: number): Promise<string> {
    return String((await t.db('employees').where({ id: employee }).first('employee_id')).employee_id);
  }
});
