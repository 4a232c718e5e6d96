import request from 'supertest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { runHrm } from '../helpers/cli';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// Pay periods: settings, periods, lock and unlock (docs/pay-periods.md).

describe.each(testDialects())('pay periods on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  beforeEach(() => setClock(t, '2026-12-05T12:00:00.000Z'));

  const settingsRow = async () => (await t.db('pay_groups').where({ id: 1 }).first('settings'))?.settings ?? undefined;
  const resetSettings = async () => {
    await t.db('pay_groups').where({ id: 1 }).update({ settings: null });
  };

  describe('settings', () => {
    afterEach(resetSettings);

    it('answers the defaults while nothing is stored', async () => {
      const res = await asUser(t, org.admin).get('/pay-periods/settings');

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        frequency: 'monthly',
        anchor_date: '2024-01-01',
        month_start_day: 1,
        workweek_start: 'monday',
        overtime: { daily_after_hours: null, daily_double_after_hours: null, weekly_after_hours: 40, seventh_day: false },
      });
    });

    it('changes the sent keys only, stores one JSON row and audits what changed', async () => {
      const res = await asUser(t, org.admin).put('/pay-periods/settings', {
        frequency: 'weekly',
        overtime: { daily_after_hours: 8, daily_double_after_hours: 12 },
      });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        frequency: 'weekly',
        anchor_date: '2024-01-01',
        month_start_day: 1,
        workweek_start: 'monday',
        overtime: { daily_after_hours: 8, daily_double_after_hours: 12, weekly_after_hours: 40, seventh_day: false },
      });
      expect(JSON.parse(await settingsRow())).toEqual(res.body);
      expect((await asUser(t, org.admin).get('/pay-periods/settings')).body).toEqual(res.body);
      const audit = await t
        .db('audit_log')
        .where({ entity_type: 'settings', action: 'pay_periods.settings' })
        .orderBy('id', 'desc')
        .first();
      expect(audit.actor_username).toBe(org.admin.username);
      expect(JSON.parse(audit.fields)).toEqual(['frequency', 'overtime.daily_after_hours', 'overtime.daily_double_after_hours']);
      expect(JSON.parse(audit.changes)).toEqual({
        frequency: { from: 'monthly', to: 'weekly' },
        'overtime.daily_after_hours': { from: null, to: 8 },
        'overtime.daily_double_after_hours': { from: null, to: 12 },
      });
    });

    it('writes nothing for a PUT that changes nothing', async () => {
      const audits = async () => (await t.db('audit_log').where({ entity_type: 'settings' }).count({ n: '*' }))[0]?.n;
      const before = await audits();

      const res = await asUser(t, org.admin).put('/pay-periods/settings', { frequency: 'monthly', overtime: { weekly_after_hours: 40 } });

      expect(res.status).toBe(200);
      expect(res.body.frequency).toBe('monthly');
      expect(await settingsRow()).toBeUndefined();
      expect(await audits()).toEqual(before);
    });

    it('refuses invalid keys with 422 naming each, and writes nothing', async () => {
      const res = await asUser(t, org.admin).put('/pay-periods/settings', {
        frequency: 'daily',
        anchor_date: '2026-02-30',
        month_start_day: 29,
        workweek_start: 'funday',
        overtime: { daily_after_hours: 8.125, weekly_after_hours: 0, seventh_day: 'yes', extra: 1 },
        color: 'red',
      });

      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors.map((error: { field: string }) => error.field).sort()).toEqual([
        'anchor_date',
        'color',
        'frequency',
        'month_start_day',
        'overtime.daily_after_hours',
        'overtime.extra',
        'overtime.seventh_day',
        'overtime.weekly_after_hours',
        'workweek_start',
      ]);
      expect(await settingsRow()).toBeUndefined();
    });

    it('refuses double time below the daily threshold (also against the stored value)', async () => {
      await asUser(t, org.admin).put('/pay-periods/settings', { overtime: { daily_after_hours: 8 } });

      const res = await asUser(t, org.admin).put('/pay-periods/settings', { overtime: { daily_double_after_hours: 7.5 } });

      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors).toEqual([{ field: 'overtime.daily_double_after_hours', message: 'must be at least daily_after_hours (8)' }]);
      expect(JSON.parse(await settingsRow()).overtime.daily_double_after_hours).toBeNull();
    });

    it('is for admins only (403), and needs a JSON object (400 for an array)', async () => {
      expectProblem(await asUser(t, org.manager).get('/pay-periods/settings'), 403, 'forbidden');
      expectProblem(await asUser(t, org.report).put('/pay-periods/settings', { frequency: 'weekly' }), 403, 'forbidden');
      expect((await asUser(t, org.admin).put('/pay-periods/settings', [])).status).toBe(400);
      expect(await settingsRow()).toBeUndefined();
    });
  });

  describe('periods', () => {
    afterEach(async () => {
      await t.db('pay_period_locks').delete();
      await resetSettings();
    });

    it('lists the periods of the default range, newest first, for admins and managers', async () => {
      const res = await asUser(t, org.manager).get('/pay-periods?limit=3');

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: [
          { start: '2026-12-01', end: '2026-12-31', status: 'open', locked_at: null, locked_by: null, lock_version: null },
          { start: '2026-11-01', end: '2026-11-30', status: 'open', locked_at: null, locked_by: null, lock_version: null },
          { start: '2026-10-01', end: '2026-10-31', status: 'open', locked_at: null, locked_by: null, lock_version: null },
        ],
        total: 13,
        nextPage: 2,
      });
      expectProblem(await asUser(t, org.report).get('/pay-periods'), 403, 'forbidden');
    });

    it('lists weekly periods of a range, and refuses a range that is too wide or reversed (400)', async () => {
      await asUser(t, org.admin).put('/pay-periods/settings', { frequency: 'biweekly', anchor_date: '2026-01-05' });

      const res = await asUser(t, org.admin).get('/pay-periods?from=2026-11-01&to=2026-11-30');

      expect(res.body.data.map((period: { start: string; end: string }) => `${period.start}..${period.end}`)).toEqual([
        '2026-11-23..2026-12-06',
        '2026-11-09..2026-11-22',
        '2026-10-26..2026-11-08',
      ]);
      expectProblem(await asUser(t, org.admin).get('/pay-periods?from=2000-01-01&to=2026-01-01'), 400, 'invalid_query');
      expectProblem(await asUser(t, org.admin).get('/pay-periods?from=2026-02-01&to=2026-01-01'), 400, 'invalid_query');
      expectProblem(await asUser(t, org.admin).get('/pay-periods?from=2026-02-30'), 400, 'invalid_query');
      expectProblem(await asUser(t, org.admin).get('/pay-periods?size=3'), 400, 'invalid_query');
    });

    it('answers one period by its start; 404 for a date that starts none', async () => {
      expect((await asUser(t, org.admin).get('/pay-periods/2026-11-01')).body).toEqual({
        start: '2026-11-01',
        end: '2026-11-30',
        status: 'open',
        locked_at: null,
        locked_by: null,
        lock_version: null,
      });
      expect((await asUser(t, org.manager).get('/pay-periods/2026-11-01')).status).toBe(200);
      expectProblem(await asUser(t, org.report).get('/pay-periods/2026-11-01'), 403, 'forbidden');
      expectProblem(await asUser(t, org.admin).get('/pay-periods/2026-11-02'), 404, 'not_found');
      expectProblem(await asUser(t, org.admin).get('/pay-periods/2026-13-01'), 404, 'not_found');
      expectProblem(await asUser(t, org.admin).get('/pay-periods/yesterday'), 404, 'not_found');
    });
  });

  describe('lock and unlock', () => {
    afterEach(async () => {
      await t.db('pay_period_snapshots').delete();
      await t.db('pay_period_locks').delete();
      await t.db('timesheet_approvals').delete();
      await t.db('attendance').delete();
      await resetSettings();
    });

    it('locks an ended period: bumps every attendance_version, freezes snapshots, audits; listed with its stored dates', async () => {
      const employee = await createEmployee(t, { employee_id: 'LOCK1' });
      await insertAttendanceRow(t, employee, { in: '2026-11-02T08:00:00Z', out: '2026-11-02T17:00:00Z' });
      const versions = async () => (await t.db('employees').sum({ v: 'attendance_version' }))[0]?.v;
      const before = Number(await versions());
      const employees = Number((await t.db('employees').count({ n: '*' }))[0]?.n);

      const res = await asUser(t, org.admin).post('/pay-periods/2026-11-01/lock');

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        start: '2026-11-01',
        end: '2026-11-30',
        status: 'locked',
        locked_at: '2026-12-05T12:00:00.000Z',
        locked_by: org.admin.username,
        lock_version: expect.any(Number),
      });
      expect(Number(await versions())).toBe(before + employees);
      const snapshot = await t.db('pay_period_snapshots').where({ employee_id: employee }).first();
      expect(snapshot).toMatchObject({ employee_code: 'LOCK1', timesheet_status: 'open', open_records: 0 });
      expect(JSON.parse(snapshot.days)).toEqual([['2026-11-02', 32400, 32400, 0, 0, 1]]);
      const audit = await t.db('audit_log').where({ entity_type: 'pay_period', entity_id: 20261101 }).orderBy('id', 'desc').first();
      expect(audit).toMatchObject({ action: 'pay_period.lock', actor_username: org.admin.username });

      // Settings changed since: the locked period keeps its dates.
      await asUser(t, org.admin).put('/pay-periods/settings', { frequency: 'weekly' });
      expect((await asUser(t, org.admin).get('/pay-periods/2026-11-01')).body).toMatchObject({ end: '2026-11-30', status: 'locked' });
      const listed = await asUser(t, org.admin).get('/pay-periods?from=2026-11-01&to=2026-11-30&limit=200');
      expect(listed.body.data).toContainEqual(res.body);
    });

    it('refuses a period that has not ended (409 period_not_ended), one already locked (409 period_locked), a date that starts none (404)', async () => {
      expectProblem(await asUser(t, org.admin).post('/pay-periods/2026-12-01/lock'), 409, 'period_not_ended');
      expect(await asUser(t, org.admin).post('/pay-periods/2026-11-01/lock')).toHaveProperty('status', 200);
      expectProblem(await asUser(t, org.admin).post('/pay-periods/2026-11-01/lock'), 409, 'period_locked');
      expectProblem(await asUser(t, org.admin).post('/pay-periods/2026-11-02/lock'), 404, 'not_found');
      expectProblem(await asUser(t, org.admin).post('/pay-periods/2026-11-01/lock?require_approved=maybe'), 400, 'invalid_query');
      expectProblem(await asUser(t, org.manager).post('/pay-periods/2026-10-01/lock'), 403, 'forbidden');
      expect(await t.db('pay_period_locks').pluck('period_start')).toHaveLength(1);
    });

    it('with require_approved, refuses while a timesheet with hours is not approved, naming the employee, and writes nothing', async () => {
      const employee = await createEmployee(t, { employee_id: 'UNAPPROVED1' });
      await insertAttendanceRow(t, employee, { in: '2026-11-03T08:00:00Z', out: '2026-11-03T12:00:00Z' });

      const res = await asUser(t, org.admin).post('/pay-periods/2026-11-01/lock?require_approved=true');

      expectProblem(res, 409, 'unapproved_timesheets');
      expect(res.body.errors).toEqual([{ field: 'employee', message: `${employee} (UNAPPROVED1) has hours and is not approved` }]);
      expect(await t.db('pay_period_locks').count({ n: '*' })).toEqual([{ n: 0 }]);
      expect(await t.db('pay_period_snapshots').count({ n: '*' })).toEqual([{ n: 0 }]);

      expect((await asUser(t, org.admin).post(`/employees/${employee}/timesheets/2026-11-01/approve`)).status).toBe(200);
      expect((await asUser(t, org.admin).post('/pay-periods/2026-11-01/lock?require_approved=true')).status).toBe(200);
    });

    it('a lock left half-taken (its first step only) refuses writes and approvals, shows open, and is finished by the next lock', async () => {
      const employee = await createEmployee(t);
      await insertAttendanceRow(t, employee, { in: '2026-11-03T08:00:00Z', out: '2026-11-03T12:00:00Z' });
      await t.db('pay_period_locks').insert({
        period_start: '2026-11-01',
        period_end: '2026-11-30',
        locked_at: '2026-12-01 08:00:00.000',
        locked_by_name: 'admin',
        state: 'locking',
      });

      expect((await asUser(t, org.admin).get('/pay-periods/2026-11-01')).body).toMatchObject({ status: 'open', locked_at: null });
      expectProblem(await asUser(t, org.admin).post(`/employees/${employee}/timesheets/2026-11-01/approve`), 409, 'period_locked');
      const write = await asUser(t, org.admin).post('/attendance', {
        employee: String(employee),
        in_time: '2026-11-04 08:00:00',
        out_time: '2026-11-04 12:00:00',
      });
      expectProblem(write, 409, 'period_locked');

      const locked = await asUser(t, org.admin).post('/pay-periods/2026-11-01/lock');

      expect(locked.status).toBe(200);
      expect(await t.db('pay_period_locks').select('period_start', 'state')).toEqual([
        { period_start: expect.stringMatching(/^2026-11-01/), state: 'locked' },
      ]);
      expect((await asUser(t, org.admin).get(`/employees/${employee}/timesheets/2026-11-01`)).body.totals.worked_hours).toBe(4);
    });

    it('refuses to lock, or approve in, a period of new settings whose dates overlap a locked one (409 period_locked)', async () => {
      const employee = await createEmployee(t);
      expect((await asUser(t, org.admin).post('/pay-periods/2026-11-01/lock')).status).toBe(200);
      await asUser(t, org.admin).put('/pay-periods/settings', { frequency: 'weekly', anchor_date: '2024-01-01' });

      const week = await asUser(t, org.admin).post('/pay-periods/2026-11-23/lock');

      expectProblem(week, 409, 'period_locked');
      expect(week.body.detail).toContain('2026-11-01');
      expectProblem(await asUser(t, org.admin).post(`/employees/${employee}/timesheets/2026-11-23/approve`), 409, 'period_locked');
      expect((await asUser(t, org.admin).get('/pay-periods/2026-11-23')).body.status).toBe('open');
      expect(await t.db('pay_period_locks').pluck('period_start')).toHaveLength(1);
    });

    it('unlocks (snapshots go), audited; 409 period_not_locked for an open period', async () => {
      await asUser(t, org.admin).post('/pay-periods/2026-11-01/lock');

      const res = await asUser(t, org.admin).post('/pay-periods/2026-11-01/unlock');

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        start: '2026-11-01',
        end: '2026-11-30',
        status: 'open',
        locked_at: null,
        locked_by: null,
        lock_version: null,
      });
      expect(await t.db('pay_period_snapshots').where({ period_start: '2026-11-01' }).count({ n: '*' })).toEqual([{ n: 0 }]);
      expect(
        await t.db('audit_log').where({ entity_type: 'pay_period', entity_id: 20261101, action: 'pay_period.unlock' }).count({ n: '*' }),
      ).toEqual([{ n: 1 }]);
      expectProblem(await asUser(t, org.admin).post('/pay-periods/2026-11-01/unlock'), 409, 'period_not_locked');
      expectProblem(await asUser(t, org.admin).post('/pay-periods/2026-11-02/unlock'), 404, 'not_found');
    });
  });

  describe('hrm pay-period', () => {
    afterEach(async () => {
      await t.db('pay_period_snapshots').delete();
      await t.db('pay_period_locks').delete();
      await t.db('attendance').delete();
    });

    it('lists, locks, exports and unlocks', async () => {
      const employee = await createEmployee(t, { employee_id: 'CLI1' });
      await insertAttendanceRow(t, employee, { in: '2026-10-05T08:00:00Z', out: '2026-10-05T16:30:00Z' });

      const locked = await runHrm(t, ['pay-period', 'lock', '--start', '2026-10-01']);
      expect(locked).toEqual({ code: 0, stdout: 'Locked the pay period 2026-10-01 to 2026-10-31.\n', stderr: '' });
      expect(await t.db('pay_period_locks').where({ period_start: '2026-10-01' }).first('locked_by', 'locked_by_name')).toEqual({
        locked_by: null,
        locked_by_name: 'cli',
      });

      const listed = await runHrm(t, ['pay-period', 'list', '--from', '2026-09-15', '--to', '2026-10-15']);
      expect(listed.code).toBe(0);
      expect(listed.stdout.split('\n').slice(0, 3)).toEqual([
        'START       END         STATUS  LOCKED AT                 LOCKED BY',
        '2026-10-01  2026-10-31  locked  2026-12-05T12:00:00.000Z  cli',
        '2026-09-01  2026-09-30  open',
      ]);

      const csv = await runHrm(t, ['pay-period', 'export', '--start', '2026-10-01']);
      expect(csv).toEqual({
        code: 0,
        stdout: `employee_id,employee,date,code,hours,timesheet_status\r\nCLI1,${employee},2026-10-05,REG,8.50,open\r\n`,
        stderr: '',
      });
      const directory = await mkdtemp(path.join(tmpdir(), 'hrm-export-'));
      try {
        const file = path.join(directory, 'october.json');
        const json = await runHrm(t, ['pay-period', 'export', '--start', '2026-10-01', '--format', 'json', '--out', file]);
        expect(json.code).toBe(0);
        expect(JSON.parse(await readFile(file, 'utf8')).rows).toEqual([
          { employee_id: 'CLI1', employee: String(employee), date: '2026-10-05', code: 'REG', hours: 8.5, timesheet_status: 'open' },
        ]);
      } finally {
        await rm(directory, { recursive: true, force: true });
      }

      expect(await runHrm(t, ['pay-period', 'lock', '--start', '2026-10-01'])).toMatchObject({ code: 1, stdout: '' });
      expect((await runHrm(t, ['pay-period', 'lock', '--start', '2026-10-01'])).stderr).toMatch(/^hrm: period_locked: /);
      expect(await runHrm(t, ['pay-period', 'unlock', '--start', '2026-10-01'])).toEqual({
        code: 0,
        stdout: 'Unlocked the pay period 2026-10-01 to 2026-10-31.\n',
        stderr: '',
      });
      expect(await t.db('pay_period_locks').count({ n: '*' })).toEqual([{ n: 0 }]);
    });

    it('refuses bad options with a one-line message', async () => {
      expect(await runHrm(t, ['pay-period', 'lock', '--start', '2026-02-30'])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'hrm: --start must be a date YYYY-MM-DD\n',
      });
      expect((await runHrm(t, ['pay-period', 'export', '--start', '2026-10-01', '--format', 'xml'])).stderr).toBe(
        'hrm: --format must be csv or json\n',
      );
      expect((await runHrm(t, ['pay-period', 'lock', '--start', '2026-12-01'])).stderr).toMatch(/^hrm: period_not_ended: /);
      expect((await runHrm(t, ['pay-period', 'unlock', '--start', '2026-10-02'])).stderr).toBe(
        'hrm: not_found: No pay period starts on that date\n',
      );
      expect((await runHrm(t, ['pay-period', 'lock'])).code).toBe(2);
    });
  });

  it('answers 405 for a wrong method and HEAD like GET', async () => {
    const res = await request(t.app).delete(t.api('/pay-periods/2026-11-01')).auth(org.admin.token, { type: 'bearer' });
    expect(res.status).toBe(405);
    expect((await request(t.app).head(t.api('/pay-periods/2026-11-01')).auth(org.admin.token, { type: 'bearer' })).status).toBe(200);
  });
});
