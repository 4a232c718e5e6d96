import request from 'supertest';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { runHrm } from '../helpers/cli';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// CONTRACT 6.5, "Adjustments after a re-lock" (docs/pay-periods.md): every lock of a period has a
// lock_version, the snapshots of each are kept, and ?since_version=N answers only what changed.

describe.each(testDialects())('pay-period lock versions and adjustments on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  const staff = useFixture(async () => {
    const a = await createEmployee(t, { employee_id: 'ADJ-A', first_name: 'Ada', last_name: 'Adj' });
    const b = await createEmployee(t, { employee_id: 'ADJ-B', first_name: 'Bo', last_name: 'Adj' });
    const c = await createEmployee(t, { employee_id: 'ADJ-C', first_name: 'Cy', last_name: 'Adj' });
    return { a, b, c };
  });
  beforeEach(() => setClock(t, '2026-12-05T12:00:00.000Z'));
  afterEach(async () => {
    await t.db('pay_period_snapshots').delete();
    await t.db('pay_period_locks').delete();
    await t.db('pay_period_version_snapshots').delete();
    await t.db('pay_period_lock_versions').delete();
    await t.db('attendance').delete();
  });

  const admin = () => asUser(t, org.admin);
  const csv = async (path: string, etag?: string) => {
    const req = request(t.app)
      .get(t.api(path))
      .auth(org.admin.token, { type: 'bearer' })
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => done(null, text));
      });
    return etag ? req.set('If-None-Match', etag) : req;
  };
  const HEADER = 'employee_id,employee,date,code,hours,timesheet_status\r\n';

  /**
   * Version 1: Ada 8 h on 2 and 3 November, Bo 4 h on the 2nd. Unlocked, corrected (Ada's 3rd
   * down to 2 h, 5 h more on the 5th; Bo's record deleted; Cy 3 h on the 6th), locked again: 2.
   */
  async function lockTwice(): Promise<void> {
    const { a, b, c } = staff;
    await insertAttendanceRow(t, a, { in: '2026-11-02T08:00:00Z', out: '2026-11-02T16:00:00Z' });
    const third = await insertAttendanceRow(t, a, { in: '2026-11-03T08:00:00Z', out: '2026-11-03T16:00:00Z' });
    const bos = await insertAttendanceRow(t, b, { in: '2026-11-02T08:00:00Z', out: '2026-11-02T12:00:00Z' });
    const first = await admin().post('/pay-periods/2026-11-01/lock');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'locked', lock_version: 1 });

    const unlocked = await admin().post('/pay-periods/2026-11-01/unlock');
    expect(unlocked.body).toMatchObject({ status: 'open', lock_version: null });
    expect((await admin().put(`/attendance/${third}`, { out_time: '2026-11-03T10:00:00Z' })).status).toBe(200);
    expect(
      (await admin().post('/attendance', { employee: String(a), in_time: '2026-11-05T08:00:00Z', out_time: '2026-11-05T13:00:00Z' }))
        .status,
    ).toBe(201);
    expect((await admin().delete(`/attendance/${bos}`)).status).toBe(200);
    expect(
      (await admin().post('/attendance', { employee: String(c), in_time: '2026-11-06T08:00:00Z', out_time: '2026-11-06T11:00:00Z' }))
        .status,
    ).toBe(201);

    const second = await admin().post('/pay-periods/2026-11-01/lock');
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: 'locked', lock_version: 2 });
  }

  it('numbers each lock of a period, in the period and the lock answer, and keeps the snapshots of every version', async () => {
    await insertAttendanceRow(t, staff.a, { in: '2026-11-02T08:00:00Z', out: '2026-11-02T16:00:00Z' });
    expect((await admin().get('/pay-periods/2026-11-01')).body.lock_version).toBeNull();
    expect((await admin().post('/pay-periods/2026-11-01/lock')).body.lock_version).toBe(1);
    expect((await admin().get('/pay-periods/2026-11-01')).body).toMatchObject({ status: 'locked', lock_version: 1 });
    const listed = (await admin().get('/pay-periods?from=2026-11-01&to=2026-11-30')).body.data;
    expect(listed).toEqual([expect.objectContaining({ start: '2026-11-01', lock_version: 1 })]);
    const frozen = await t.db('pay_period_snapshots').where({ period_start: '2026-11-01' }).count({ n: '*' }).first();

    await admin().post('/pay-periods/2026-11-01/unlock');
    const kept = await t.db('pay_period_version_snapshots').where({ group_id: 1, lock_version: 1 }).count({ n: '*' }).first();
    expect(Number(kept?.n)).toBe(Number(frozen?.n));
    expect(Number(kept?.n)).toBeGreaterThan(0);
    expect(JSON.parse(String((await t.db('pay_period_version_snapshots').where({ employee_id: staff.a }).first('days')).days))).toEqual([
      ['2026-11-02', 28800, 28800, 0, 0, 1],
    ]);

    expect((await admin().post('/pay-periods/2026-11-01/lock')).body.lock_version).toBe(2);
    await admin().post('/pay-periods/2026-11-01/unlock');
    expect((await admin().post('/pay-periods/2026-11-01/lock')).body.lock_version).toBe(3);
    expect(await t.db('pay_period_lock_versions').orderBy('lock_version').pluck('lock_version')).toEqual([1, 2, 3]);
    const versions = await t.db('pay_period_version_snapshots').distinct('lock_version').orderBy('lock_version').pluck('lock_version');
    expect(versions.map(Number)).toEqual([1, 2]);
  });

  it('answers the difference since a version: one row per employee, date and code that changed, hours signed', async () => {
    await lockTwice();
    const { a, b, c } = staff;

    const res = await csv('/pay-periods/2026-11-01/export?since_version=1');
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="pay-period-2026-11-01-since-v1.csv"');
    expect(res.body).toBe(
      HEADER +
        [
          `ADJ-A,${a},2026-11-03,REG,-6.00,open`,
          `ADJ-A,${a},2026-11-05,REG,5.00,open`,
          `ADJ-B,${b},2026-11-02,REG,-4.00,open`,
          `ADJ-C,${c},2026-11-06,REG,3.00,open`,
          '',
        ].join('\r\n'),
    );

    const json = await admin().get('/pay-periods/2026-11-01/export?since_version=1&format=json');
    expect(json.status).toBe(200);
    expect(json.headers['content-disposition']).toBe('attachment; filename="pay-period-2026-11-01-since-v1.json"');
    expect(json.body).toEqual({
      period: {
        start: '2026-11-01',
        end: '2026-11-30',
        status: 'locked',
        locked_at: '2026-12-05T12:00:00.000Z',
        locked_by: org.admin.username,
      },
      since_version: 1,
      lock_version: 2,
      rows: [
        { employee_id: 'ADJ-A', employee: String(a), date: '2026-11-03', code: 'REG', hours: -6, timesheet_status: 'open' },
        { employee_id: 'ADJ-A', employee: String(a), date: '2026-11-05', code: 'REG', hours: 5, timesheet_status: 'open' },
        { employee_id: 'ADJ-B', employee: String(b), date: '2026-11-02', code: 'REG', hours: -4, timesheet_status: 'open' },
        { employee_id: 'ADJ-C', employee: String(c), date: '2026-11-06', code: 'REG', hours: 3, timesheet_status: 'open' },
      ],
    });

    // Since the current version: nothing changed.
    expect((await csv('/pay-periods/2026-11-01/export?since_version=2')).body).toBe(HEADER);
    expect((await admin().get('/pay-periods/2026-11-01/export?since_version=2&format=json')).body.rows).toEqual([]);
  });

  it('writes the adjustment in a wide profile as the period totals per employee that changed', async () => {
    await lockTwice();
    const res = await csv('/pay-periods/2026-11-01/export?since_version=1&profile=gusto');
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="gusto-hours-2026-11-01-since-v1.csv"');
    expect(res.body).toBe(
      [
        'first_name,last_name,gusto_employee_id,title,regular_hours,overtime_hours,double_overtime_hours',
        'Ada,Adj,,,-1.00,0.00,0.00',
        'Bo,Adj,,,-4.00,0.00,0.00',
        'Cy,Adj,,,3.00,0.00,0.00',
        '',
      ].join('\r\n'),
    );
  });

  it('keeps the full export of the current lock as it is, with its own ETag per version', async () => {
    await insertAttendanceRow(t, staff.c, { in: '2026-11-06T08:00:00Z', out: '2026-11-06T09:00:00Z' });
    await admin().post('/pay-periods/2026-11-01/lock');
    const firstLock = String((await csv('/pay-periods/2026-11-01/export')).headers.etag);
    await admin().post('/pay-periods/2026-11-01/unlock');
    await t.db('attendance').delete();
    await t.db('pay_period_version_snapshots').delete();
    await t.db('pay_period_lock_versions').delete();
    await lockTwice();
    // The same instant, the same admin, another lock: not the same file, so not the same tag.
    expect((await csv('/pay-periods/2026-11-01/export', firstLock)).status).toBe(200);
    const { a, c } = staff;
    const full = await csv('/pay-periods/2026-11-01/export');
    expect(full.body).toBe(
      HEADER +
        [
          `ADJ-A,${a},2026-11-02,REG,8.00,open`,
          `ADJ-A,${a},2026-11-03,REG,2.00,open`,
          `ADJ-A,${a},2026-11-05,REG,5.00,open`,
          `ADJ-C,${c},2026-11-06,REG,3.00,open`,
          '',
        ].join('\r\n'),
    );
    expect((await csv('/pay-periods/2026-11-01/export')).body).toBe(full.body);
    const since1 = await csv('/pay-periods/2026-11-01/export?since_version=1');
    const since2 = await csv('/pay-periods/2026-11-01/export?since_version=2');
    const tags = [full.headers.etag, since1.headers.etag, since2.headers.etag];
    expect(new Set(tags).size).toBe(3);
    expect((await csv('/pay-periods/2026-11-01/export?since_version=1', String(since1.headers.etag))).status).toBe(304);
    expect((await csv('/pay-periods/2026-11-01/export?since_version=2', String(since1.headers.etag))).status).toBe(200);
    expect((await csv('/pay-periods/2026-11-01/export', String(since1.headers.etag))).status).toBe(200);
  });

  it('refuses a version the period never had (404), one that is not a whole number from 1 (400), and an open period (409)', async () => {
    await lockTwice();
    expectProblem(await admin().get('/pay-periods/2026-11-01/export?since_version=3'), 404, 'not_found');
    for (const bad of ['0', '-1', '1.5', 'abc', '1e2', ''])
      expect(expectProblem(await admin().get(`/pay-periods/2026-11-01/export?since_version=${bad}`), 400, 'invalid_query').errors).toEqual([
        { field: 'since_version', message: 'must be a whole number from 1 (a lock version of the period)' },
      ]);
    await admin().post('/pay-periods/2026-11-01/unlock');
    expectProblem(await admin().get('/pay-periods/2026-11-01/export?since_version=1'), 409, 'period_not_locked');
    expectProblem(await admin().get('/pay-periods/2026-10-01/export?since_version=1'), 409, 'period_not_locked');
    expectProblem(await asUser(t, org.manager).get('/pay-periods/2026-11-01/export?since_version=1'), 403, 'forbidden');
  });

  it('hrm pay-period export --since-version writes the same bytes; a bad or unknown version is a one-line refusal', async () => {
    await lockTwice();
    const api = await csv('/pay-periods/2026-11-01/export?since_version=1');
    expect(await runHrm(t, ['pay-period', 'export', '--start', '2026-11-01', '--since-version', '1'])).toEqual({
      code: 0,
      stdout: api.body,
      stderr: '',
    });
    expect(await runHrm(t, ['pay-period', 'export', '--start', '2026-11-01', '--since-version', 'x'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'hrm: --since-version must be a whole number from 1\n',
    });
    const unknown = await runHrm(t, ['pay-period', 'export', '--start', '2026-11-01', '--since-version', '7']);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/^hrm: not_found: The pay period 2026-11-01 has no lock version 7/);
  });
});
