import { createWebhook } from '../../src/webhooks/subscriptions';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser, type TestUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useTestApp } from '../helpers/test-app';

// Leave and holidays in locked pay periods (CONTRACT 6.3 "frozen at the lock", 6.5, 6.8;
// docs/leave.md "Locked periods"): the lock freezes each employee's leave and holiday hours with
// the worked ones, so later changes of holidays, leave types or leave settings move none of its
// numbers, its files or its ETag; leave writes on its dates stay refused. Monthly periods.

describe.each(testDialects())('leave in locked pay periods on %s', (dialect) => {
  const t = useTestApp(dialect);
  let admin: TestUser;
  let vacation: string;
  beforeAll(async () => {
    setClock(t, '2026-11-28T09:00:00Z');
    admin = await createUser(t, 'admin');
    await asUser(t, admin).put('/pay-periods/settings', {
      overtime: { daily_after_hours: 8, daily_double_after_hours: null, weekly_after_hours: null, seventh_day: false },
    });
    vacation = (await asUser(t, admin).post('/leave-types', { name: 'Vacation', code: 'VAC' })).body.id;
  });
  afterEach(async () => {
    await t.db('pay_period_locks').delete();
    await t.db('holidays').delete();
    setClock(t, '2026-11-28T09:00:00Z');
    await asUser(t, admin).put('/leave-settings', {
      work_week: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
      standard_day_hours: 8,
    });
    await asUser(t, admin).put(`/leave-types/${vacation}`, { name: 'Vacation', code: 'VAC' });
  });

  const codeOf = async (id: number) => String((await t.db('employees').where({ id }).first('employee_id')).employee_id);
  const leave = async (employee: number, start: string, end: string) => {
    const res = await asUser(t, admin).post('/leaves', {
      employee,
      leave_type: vacation,
      start_date: start,
      end_date: end,
      status: 'approved',
    });
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };
  const linesOf = (text: string, codes: string[]) =>
    text.split('\r\n').filter((line) => codes.some((code) => line.startsWith(`${code},`) || line.startsWith(`"${code}",`)));

  it('changing holidays, the leave settings or a leave type after the lock changes no timesheet, file or ETag', async () => {
    const ana = await createEmployee(t, { country_code: 'DE', first_name: 'Ana' });
    const ben = await createEmployee(t, { country_code: 'FR', first_name: 'Ben' });
    await leave(ana, '2026-12-07', '2026-12-08');
    await insertAttendanceRow(t, ana, { in: '2026-12-09T08:00:00Z', out: '2026-12-09T18:00:00Z' });
    const christmas = (await asUser(t, admin).post('/holidays', { date: '2026-12-25', name: 'Christmas', country: 'DE' })).body.id;
    await asUser(t, admin).post('/holidays', { date: '2026-12-24', name: 'Company afternoon', portion: 'half' });
    const wide = await asUser(t, admin).post('/export-profiles', {
      name: 'Wide, frozen',
      layout: 'wide',
      columns: [
        { header: 'Code', value: 'employee_id' },
        { header: 'Regular', value: 'hours:REG' },
        { header: 'Vacation', value: 'hours:VAC' },
        { header: 'Holiday', value: 'hours:HOL' },
        { header: 'Total', value: 'total_hours' },
      ],
    });
    expect(wide.status).toBe(201);

    setClock(t, '2027-01-05T09:00:00Z');
    expect((await asUser(t, admin).post('/pay-periods/2026-12-01/lock')).status).toBe(200);
    const read = async () => ({
      sheet: (await asUser(t, admin).get(`/employees/${ana}/timesheets/2026-12-01`)).body,
      list: (await asUser(t, admin).get('/timesheets?period=2026-12-01')).body,
      csv: await asUser(t, admin).get('/pay-periods/2026-12-01/export'),
      json: await asUser(t, admin).get('/pay-periods/2026-12-01/export?format=json'),
      wide: await asUser(t, admin).get(`/pay-periods/2026-12-01/export?profile=${wide.body.id}`),
    });
    const before = await read();
    expect(before.sheet.totals).toEqual({
      worked_hours: 10,
      regular_hours: 8,
      overtime_hours: 2,
      double_time_hours: 0,
      leave_hours: 16,
      holiday_hours: 12,
    });
    const [anaCode, benCode] = [await codeOf(ana), await codeOf(ben)];
    expect(linesOf(before.csv.text, [anaCode, benCode]).sort()).toEqual(
      [
        `${anaCode},${ana},2026-12-07,VAC,8.00,open`,
        `${anaCode},${ana},2026-12-08,VAC,8.00,open`,
        `${anaCode},${ana},2026-12-09,REG,8.00,open`,
        `${anaCode},${ana},2026-12-09,OT,2.00,open`,
        `${anaCode},${ana},2026-12-24,HOL,4.00,open`,
        `${anaCode},${ana},2026-12-25,HOL,8.00,open`,
        `${benCode},${ben},2026-12-24,HOL,4.00,open`,
      ].sort(),
    );
    expect(before.wide.text).toContain(`${anaCode},8.00,16.00,12.00,38.00\r\n`);

    // Every change that would move leave or holiday hours of December, none of them refused.
    expect((await asUser(t, admin).delete(`/holidays/${christmas}`)).status).toBe(200);
    expect((await asUser(t, admin).post('/holidays', { date: '2026-12-28', name: 'Closing day' })).status).toBe(201);
    expect((await asUser(t, admin).post('/holidays/import', { country: 'FR', year: 2026 })).status).toBe(200);
    expect((await asUser(t, admin).put('/leave-settings', { standard_day_hours: 6, work_week: ['monday', 'tuesday'] })).status).toBe(200);
    expect((await asUser(t, admin).put(`/leave-types/${vacation}`, { name: 'Vacation', code: 'HOLS' })).status).toBe(200);

    const after = await read();
    expect(after.sheet).toEqual(before.sheet);
    expect(after.list).toEqual(before.list);
    for (const file of ['csv', 'json', 'wide'] as const) {
      expect(after[file].status).toBe(200);
      expect(after[file].text).toBe(before[file].text);
      expect(after[file].headers.etag).toBe(before[file].headers.etag);
    }
    // Unlocked, the period reads them: 6-hour days on Mondays and Tuesdays, the 28th a holiday.
    expect((await asUser(t, admin).post('/pay-periods/2026-12-01/unlock')).status).toBe(200);
    const open = (await asUser(t, admin).get(`/employees/${ana}/timesheets/2026-12-01`)).body;
    expect(open.totals).toMatchObject({ leave_hours: 12, holiday_hours: 6 });
    expect(open.days.find((entry: { date: string }) => entry.date === '2026-12-07')).toMatchObject({ leave_hours: 6, code: 'HOLS' });
  });

  it('refuses every leave write on a date of the locked period with 409 period_locked, nothing written', async () => {
    const cleo = await createEmployee(t, { first_name: 'Cleo' });
    const held = await leave(cleo, '2026-12-14', '2026-12-14');
    setClock(t, '2027-01-05T09:00:00Z');
    expect((await asUser(t, admin).post('/pay-periods/2026-12-01/lock')).status).toBe(200);
    const rows = async () => ({
      leaves: await t.db('leaves').where({ employee_id: cleo }).select('id', 'status', 'version'),
      days: await t
        .db('leave_days')
        .whereIn('leave_id', t.db('leaves').where({ employee_id: cleo }).select('id'))
        .select(),
    });
    const stored = await rows();
    const body = { employee: cleo, leave_type: vacation, start_date: '2026-12-14', end_date: '2026-12-15' };
    expectProblem(await asUser(t, admin).put(`/leaves/${held.id}`, body), 409, 'period_locked');
    expectProblem(await asUser(t, admin).delete(`/leaves/${held.id}`), 409, 'period_locked');
    expectProblem(await asUser(t, admin).post(`/leaves/${held.id}/cancel`), 409, 'period_locked');
    expectProblem(await asUser(t, admin).post('/leaves', { ...body, start_date: '2026-12-15' }), 409, 'period_locked');
    expect(await rows()).toEqual(stored);
  });

  it("a locked period's files list the employees with leave and no record, also when no longer Active", async () => {
    const dora = await createEmployee(t, { first_name: 'Dora' });
    await leave(dora, '2026-12-03', '2026-12-03');
    await t.db('employees').where({ id: dora }).update({ status: 'Terminated' });
    setClock(t, '2027-01-05T09:00:00Z');
    expect((await asUser(t, admin).post('/pay-periods/2026-12-01/lock')).status).toBe(200);
    const code = await codeOf(dora);
    const csv = await asUser(t, admin).get('/pay-periods/2026-12-01/export');
    expect(linesOf(csv.text, [code])).toEqual([`${code},${dora},2026-12-03,VAC,8.00,open`]);
    const json = await asUser(t, admin).get('/pay-periods/2026-12-01/export?format=json');
    expect(json.body.rows.filter((row: { employee: string }) => row.employee === String(dora))).toEqual([
      { employee_id: code, employee: String(dora), date: '2026-12-03', code: 'VAC', hours: 8, timesheet_status: 'open' },
    ]);
    const wide = await asUser(t, admin).post('/export-profiles', {
      name: 'Wide, leave only',
      layout: 'wide',
      columns: [
        { header: 'Code', value: 'employee_id' },
        { header: 'Name', value: 'full_name' },
        { header: 'Vacation', value: 'hours:VAC' },
        { header: 'Total', value: 'total_hours' },
      ],
    });
    const file = await asUser(t, admin).get(`/pay-periods/2026-12-01/export?profile=${wide.body.id}`);
    expect(linesOf(file.text, [code])).toEqual([
      `${code},Dora ${(await t.db('employees').where({ id: dora }).first('last_name')).last_name},8.00,8.00`,
    ]);
    const sheet = await asUser(t, admin).get(`/employees/${dora}/timesheets/2026-12-01`);
    expect(sheet.body.totals).toMatchObject({ worked_hours: 0, leave_hours: 8 });
  });

  it('since_version answers the leave and holiday hours that changed between two locks', async () => {
    const eve = await createEmployee(t, { country_code: 'AT', first_name: 'Eve' });
    const finn = await createEmployee(t, { first_name: 'Finn' });
    await leave(finn, '2026-10-05', '2026-10-05');
    await t.db('employees').where({ id: finn }).update({ status: 'Terminated' });
    const day = (await asUser(t, admin).post('/holidays', { date: '2026-10-26', name: 'National Day', country: 'AT' })).body.id;
    expect((await asUser(t, admin).post('/pay-periods/2026-10-01/lock')).status).toBe(200);
    expect((await asUser(t, admin).post('/pay-periods/2026-10-01/unlock')).status).toBe(200);
    await asUser(t, admin).delete(`/holidays/${day}`);
    await asUser(t, admin).put('/leave-settings', { standard_day_hours: 7 });
    expect((await asUser(t, admin).post('/pay-periods/2026-10-01/lock')).status).toBe(200);

    const [eveCode, finnCode] = [await codeOf(eve), await codeOf(finn)];
    const full = await asUser(t, admin).get('/pay-periods/2026-10-01/export');
    expect(linesOf(full.text, [eveCode, finnCode])).toEqual([`${finnCode},${finn},2026-10-05,VAC,7.00,open`]);
    const delta = await asUser(t, admin).get('/pay-periods/2026-10-01/export?since_version=1');
    expect(delta.status).toBe(200);
    expect(linesOf(delta.text, [eveCode, finnCode]).sort()).toEqual(
      [`${eveCode},${eve},2026-10-26,HOL,-8.00,open`, `${finnCode},${finn},2026-10-05,VAC,-1.00,open`].sort(),
    );
    const json = await asUser(t, admin).get('/pay-periods/2026-10-01/export?since_version=1&format=json');
    const mine = json.body.rows.filter((row: { employee: string }) => [String(eve), String(finn)].includes(row.employee));
    expect(mine.map((row: { date: string; code: string; hours: number }) => [row.date, row.code, row.hours]).sort()).toEqual([
      ['2026-10-05', 'VAC', -1],
      ['2026-10-26', 'HOL', -8],
    ]);
  });
});

// Approval is of numbers (CONTRACT 6.5): holidays, the leave settings and leave types that move an
// approved timesheet's leave or holiday hours send it back to open, once; a locked period's stay.
describe.each(testDialects())('approved timesheets when holidays, leave settings or leave types change on %s', (dialect) => {
  const t = useTestApp(dialect);
  let admin: TestUser;
  let vacation: string;
  let ana: number;
  let ben: number;
  let cara: number;
  beforeAll(async () => {
    setClock(t, '2026-11-28T09:00:00Z');
    admin = await createUser(t, 'admin');
    await createWebhook(t.db, { url: 'https://93.184.215.14/hooks', events: ['*'] }, t.clock.now());
    vacation = (await asUser(t, admin).post('/leave-types', { name: 'Vacation', code: 'VAC' })).body.id;
    ana = await createEmployee(t, { country_code: 'DE', first_name: 'Ana' });
    ben = await createEmployee(t, { country_code: 'FR', first_name: 'Ben' });
    cara = await createEmployee(t, { country_code: 'DE', first_name: 'Cara' });
    // Ana's Monday 2 November off: 8 hours of VAC in November's timesheet.
    const res = await asUser(t, admin).post('/leaves', {
      employee: ana,
      leave_type: vacation,
      start_date: '2026-11-02',
      end_date: '2026-11-02',
      status: 'approved',
    });
    expect(res.status).toBe(201);
  });
  afterEach(async () => {
    await asUser(t, admin).put('/leave-settings', {
      work_week: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
      standard_day_hours: 8,
    });
    await asUser(t, admin).put(`/leave-types/${vacation}`, { name: 'Vacation', code: 'VAC' });
    await t.db('pay_period_locks').delete();
    await t.db('holidays').delete();
    await t.db('timesheet_approvals').delete();
    await t.db('webhook_events').delete();
  });

  const approve = async (employee: number, start: string) =>
    expect((await asUser(t, admin).post(`/employees/${employee}/timesheets/${start}/approve`)).status).toBe(200);
  const statusOf = async (employee: number, start: string) =>
    (await t.db('timesheet_approvals').where({ employee_id: employee, period_start: start }).first('status', 'reopened_reason')) as {
      status: string;
      reopened_reason: string | null;
    };
  const reopenedEvents = async () =>
    (await t.db('webhook_events').where({ type: 'timesheet.reopened' }).orderBy('id')).map((row) => JSON.parse(row.payload).data);
  const reopened = (employee: number, reason: string) => ({
    employee: String(employee),
    period_start: '2026-11-01',
    period_end: '2026-11-30',
    status: 'open',
    reason,
  });

  it('a holiday added, deleted or imported reopens the open timesheets whose hours it moves, once (holidays_changed)', async () => {
    await approve(ana, '2026-11-01');
    await approve(ben, '2026-11-01');
    await approve(cara, '2026-10-01');
    expect((await asUser(t, admin).post('/pay-periods/2026-10-01/lock')).status).toBe(200);

    // A Saturday moves no hours; a German Wednesday moves Ana's (not Ben's, in France); October is locked.
    expect((await asUser(t, admin).post('/holidays', { date: '2026-11-14', name: 'Saturday fair' })).status).toBe(201);
    expect(await reopenedEvents()).toEqual([]);
    const local = await asUser(t, admin).post('/holidays', { date: '2026-11-11', name: 'Local day', country: 'DE' });
    expect(local.status).toBe(201);
    expect((await asUser(t, admin).post('/holidays', { date: '2026-10-14', name: 'Local day', country: 'DE' })).status).toBe(201);
    expect(await statusOf(ana, '2026-11-01')).toEqual({ status: 'open', reopened_reason: 'holidays_changed' });
    expect(await statusOf(ben, '2026-11-01')).toEqual({ status: 'approved', reopened_reason: null });
    expect(await statusOf(cara, '2026-10-01')).toEqual({ status: 'approved', reopened_reason: null });
    expect(await reopenedEvents()).toEqual([reopened(ana, 'holidays_changed')]);
    const audits = await t.db('audit_log').where({ entity_type: 'timesheet', entity_id: ana, action: 'timesheet.reopen' });
    expect(audits).toHaveLength(1);

    await approve(ana, '2026-11-01');
    expect((await asUser(t, admin).delete(`/holidays/${local.body.id}`)).status).toBe(200);
    expect(await statusOf(ana, '2026-11-01')).toEqual({ status: 'open', reopened_reason: 'holidays_changed' });

    // France's 11 November (Armistice, a Wednesday) moves Ben's hours; Germany's import none of November's.
    await approve(ana, '2026-11-01');
    expect((await asUser(t, admin).post('/holidays/import', { country: 'DE', year: 2026 })).status).toBe(200);
    expect((await asUser(t, admin).post('/holidays/import', { country: 'FR', year: 2026 })).status).toBe(200);
    expect(await statusOf(ana, '2026-11-01')).toEqual({ status: 'approved', reopened_reason: null });
    expect(await statusOf(ben, '2026-11-01')).toEqual({ status: 'open', reopened_reason: 'holidays_changed' });
    expect((await reopenedEvents()).slice(2)).toEqual([reopened(ben, 'holidays_changed')]);
  });

  it('PUT /leave-settings reopens those whose hours move (leave_settings_changed); a refused body changes nothing', async () => {
    await approve(ana, '2026-11-01');
    await approve(ben, '2026-11-01');
    const bad = expectProblem(await asUser(t, admin).put('/leave-settings', { standard_day_hours: 30 }), 422, 'validation_failed');
    expect(bad.errors).toEqual([{ field: 'standard_day_hours', message: 'must be a number of hours from 0.25 to 24' }]);
    expect((await asUser(t, admin).get('/leave-settings')).body.standard_day_hours).toBe(8);

    // Saturday as a working day moves no hours of theirs; a 7-hour day moves Ana's day off.
    expect(
      (await asUser(t, admin).put('/leave-settings', { work_week: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] }))
        .status,
    ).toBe(200);
    expect(await reopenedEvents()).toEqual([]);
    expect((await asUser(t, admin).put('/leave-settings', { standard_day_hours: 7 })).status).toBe(200);
    expect(await statusOf(ana, '2026-11-01')).toEqual({ status: 'open', reopened_reason: 'leave_settings_changed' });
    expect(await statusOf(ben, '2026-11-01')).toEqual({ status: 'approved', reopened_reason: null });
    expect(await reopenedEvents()).toEqual([reopened(ana, 'leave_settings_changed')]);
    const sheet = await asUser(t, admin).get(`/employees/${ana}/timesheets/2026-11-01`);
    expect(sheet.body).toMatchObject({ status: 'open', reopened_reason: 'leave_settings_changed', totals: { leave_hours: 7 } });
  });

  it("a leave type's new code reopens the approved timesheets holding its leave (leave_changed)", async () => {
    await approve(ana, '2026-11-01');
    await approve(ben, '2026-11-01');
    expect((await asUser(t, admin).put(`/leave-types/${vacation}`, { name: 'Vacation', code: 'VAC' })).status).toBe(200);
    expect(await reopenedEvents()).toEqual([]);
    expect((await asUser(t, admin).put(`/leave-types/${vacation}`, { name: 'Vacation', code: 'HOLS' })).status).toBe(200);
    expect(await statusOf(ana, '2026-11-01')).toEqual({ status: 'open', reopened_reason: 'leave_changed' });
    expect(await statusOf(ben, '2026-11-01')).toEqual({ status: 'approved', reopened_reason: null });
    expect(await reopenedEvents()).toEqual([reopened(ana, 'leave_changed')]);
  });
});
