import { createWebhook } from '../../src/webhooks/subscriptions';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// CONTRACT 6.5, "Approval is of numbers": an approval keeps the numbers it approved, and the
// timesheet stays approved exactly while its numbers equal them (docs/pay-periods.md, "Approving").

const DEFAULT_OVERTIME = { daily_after_hours: null, daily_double_after_hours: null, weekly_after_hours: 40, seventh_day: false };

describe.each(testDialects())('approval of numbers on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  useFixture(async () => ({
    webhook: await createWebhook(t.db, { url: 'https://93.184.215.14/hooks', events: ['*'] }, t.clock.now()),
  }));
  beforeEach(() => setClock(t, '2026-12-05T12:00:00.000Z'));
  afterEach(async () => {
    await t.db('pay_period_snapshots').delete();
    await t.db('pay_period_locks').delete();
    await t.db('timesheet_approvals').delete();
    await asUser(t, org.admin).put('/pay-periods/settings', { overtime: DEFAULT_OVERTIME });
  });

  const admin = () => asUser(t, org.admin);
  const reopenedEvents = async (employeeId: number) =>
    (
      await t
        .db('webhook_events')
        .where({ type: 'timesheet.reopened', resource_key: `timesheet:${employeeId}` })
        .orderBy('id')
    ).map((row) => JSON.parse(row.payload).data);
  const sheet = async (employeeId: number) => (await admin().get(`/employees/${employeeId}/timesheets/2026-11-01`)).body;
  const approve = async (employeeId: number) => {
    const res = await admin().post(`/employees/${employeeId}/timesheets/2026-11-01/approve`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'approved', reopened_reason: null });
  };
  const NOVEMBER_REOPENED = (employeeId: number, reason: string) => ({
    employee: String(employeeId),
    period_start: '2026-11-01',
    period_end: '2026-11-30',
    status: 'open',
    reason,
  });

  it('keeps the approved numbers with the approval', async () => {
    const employee = await createEmployee(t);
    await insertAttendanceRow(t, employee, { in: '2026-11-10T09:00:00Z', out: '2026-11-10T17:30:00Z' });
    await approve(employee);
    const row = await t.db('timesheet_approvals').where({ employee_id: employee }).first('approved_days', 'reopened_reason');
    expect(JSON.parse(String(row.approved_days))).toEqual([['2026-11-10', 30600, 30600, 0, 0]]);
    expect(row.reopened_reason).toBeNull();
  });

  it('stays approved for a correction that moves a record within its day, its length kept; reopens once when the length changes', async () => {
    const employee = await createEmployee(t);
    const record = await insertAttendanceRow(t, employee, { in: '2026-11-10T09:00:00Z', out: '2026-11-10T17:00:00Z' });
    await approve(employee);

    const moved = await admin().put(`/attendance/${record}`, { in_time: '2026-11-10T10:00:00Z', out_time: '2026-11-10T18:00:00Z' });
    expect(moved.status).toBe(200);
    expect(await sheet(employee)).toMatchObject({ status: 'approved', reopened_reason: null });
    expect(await reopenedEvents(employee)).toEqual([]);

    const longer = await admin().put(`/attendance/${record}`, { out_time: '2026-11-10T19:00:00Z' });
    expect(longer.status).toBe(200);
    expect(await sheet(employee)).toMatchObject({ status: 'open', reopened_reason: 'attendance_changed', approved_at: null });
    expect(await reopenedEvents(employee)).toEqual([NOVEMBER_REOPENED(employee, 'attendance_changed')]);

    // Open already: a further change sends no second event.
    expect((await admin().put(`/attendance/${record}`, { out_time: '2026-11-10T20:00:00Z' })).status).toBe(200);
    expect(await reopenedEvents(employee)).toHaveLength(1);
  });

  it('reopens through a shared workweek only when the write changes the numbers', async () => {
    // Sunday 1 November is in the workweek of Monday 26 October (weekly rule: 40 hours).
    const employee = await createEmployee(t);
    await insertAttendanceRow(t, employee, { in: '2026-11-01T08:00:00Z', out: '2026-11-01T16:00:00Z' });
    await approve(employee);
    const add = (date: string, hours: number) =>
      admin().post('/attendance', {
        employee: String(employee),
        in_time: `${date}T06:00:00Z`,
        out_time: `${date}T${String(6 + hours).padStart(2, '0')}:00:00Z`,
      });

    // 8 + 10 + 10 hours before Sunday: with Sunday's 8 the week has 36, no overtime yet.
    for (const [date, hours] of [
      ['2026-10-27', 8],
      ['2026-10-28', 10],
      ['2026-10-29', 10],
    ] as const) {
      expect((await add(date, hours)).status).toBe(201);
      expect(await sheet(employee)).toMatchObject({ status: 'approved' });
    }
    expect(await reopenedEvents(employee)).toEqual([]);

    // 10 more on Friday: 38 before Sunday, so 6 of Sunday's 8 hours become overtime.
    expect((await add('2026-10-30', 10)).status).toBe(201);
    const reopened = await sheet(employee);
    expect(reopened).toMatchObject({ status: 'open', reopened_reason: 'attendance_changed' });
    expect(reopened.totals).toMatchObject({ regular_hours: 2, overtime_hours: 6 });
    expect(await reopenedEvents(employee)).toEqual([NOVEMBER_REOPENED(employee, 'attendance_changed')]);
  });

  it('reopens on a change of the rules that changes the numbers (rules_changed), once; not on one that does not', async () => {
    const employee = await createEmployee(t);
    await insertAttendanceRow(t, employee, { in: '2026-11-10T08:00:00Z', out: '2026-11-10T18:00:00Z' });
    await approve(employee);

    // No seven days in a row: the seventh-day rule changes none of its numbers.
    expect((await admin().put('/pay-periods/settings', { overtime: { seventh_day: true } })).status).toBe(200);
    expect(await sheet(employee)).toMatchObject({ status: 'approved' });
    // Refused: nothing changes.
    expectProblem(await admin().put('/pay-periods/settings', { overtime: { daily_after_hours: -1 } }), 422, 'validation_failed');
    expect(await sheet(employee)).toMatchObject({ status: 'approved' });
    expect(await reopenedEvents(employee)).toEqual([]);

    // A daily rule of 8 hours makes 2 of the 10 overtime.
    expect((await admin().put('/pay-periods/settings', { overtime: { daily_after_hours: 8 } })).status).toBe(200);
    expect(await sheet(employee)).toMatchObject({ status: 'open', reopened_reason: 'rules_changed', totals: { overtime_hours: 2 } });
    expect(await reopenedEvents(employee)).toEqual([NOVEMBER_REOPENED(employee, 'rules_changed')]);
    const audits = await t.db('audit_log').where({ entity_type: 'timesheet', entity_id: employee, action: 'timesheet.reopen' });
    expect(audits).toHaveLength(1);

    // The rule back: the numbers equal the approved ones again, but reopened is reopened.
    expect((await admin().put('/pay-periods/settings', { overtime: { daily_after_hours: null } })).status).toBe(200);
    expect(await sheet(employee)).toMatchObject({ status: 'open' });
    expect(await reopenedEvents(employee)).toHaveLength(1);
  });

  it('leaves the approvals of a locked period as they were locked when the rules change', async () => {
    const employee = await createEmployee(t);
    await insertAttendanceRow(t, employee, { in: '2026-11-10T08:00:00Z', out: '2026-11-10T18:00:00Z' });
    await approve(employee);
    expect((await admin().post('/pay-periods/2026-11-01/lock')).status).toBe(200);

    expect((await admin().put('/pay-periods/settings', { overtime: { daily_after_hours: 8 } })).status).toBe(200);
    expect(await t.db('timesheet_approvals').where({ employee_id: employee }).first('status', 'reopened_reason')).toEqual({
      status: 'approved',
      reopened_reason: null,
    });
    expect(await reopenedEvents(employee)).toEqual([]);
  });

  it('reopens an approval from before approvals kept numbers at any write; approving it again keeps its numbers from then on', async () => {
    const employee = await createEmployee(t);
    const record = await insertAttendanceRow(t, employee, { in: '2026-11-10T09:00:00Z', out: '2026-11-10T17:00:00Z' });
    // As migration 0028 leaves an approval given before it: no numbers.
    const legacy = {
      employee_id: employee,
      period_start: '2026-11-01',
      period_end: '2026-11-30',
      status: 'approved',
      approved_at: '2026-12-01 12:00:00.000',
      updated_at: '2026-12-01 12:00:00.000',
    };
    await t.db('timesheet_approvals').insert(legacy);
    // A rule change leaves it alone; a write reopens it, even one that keeps the numbers.
    expect((await admin().put('/pay-periods/settings', { overtime: { daily_after_hours: 6 } })).status).toBe(200);
    expect(await sheet(employee)).toMatchObject({ status: 'approved' });
    await admin().put('/pay-periods/settings', { overtime: { daily_after_hours: null } });
    expect((await admin().put(`/attendance/${record}`, { in_time: '2026-11-10T10:00:00Z', out_time: '2026-11-10T18:00:00Z' })).status).toBe(
      200,
    );
    expect(await sheet(employee)).toMatchObject({ status: 'open', reopened_reason: 'attendance_changed' });

    // Approved again while approved (the legacy row back): the numbers are stored, no event.
    await t
      .db('timesheet_approvals')
      .where({ employee_id: employee })
      .update({ status: 'approved', approved_days: null, reopened_reason: null });
    const events = (await reopenedEvents(employee)).length;
    expect((await admin().post(`/employees/${employee}/timesheets/2026-11-01/approve`)).status).toBe(200);
    expect(
      JSON.parse(String((await t.db('timesheet_approvals').where({ employee_id: employee }).first('approved_days')).approved_days)),
    ).toEqual([['2026-11-10', 28800, 28800, 0, 0]]);
    expect(await t.db('webhook_events').where({ type: 'timesheet.approved', resource_key: `timesheet:${employee}` })).toEqual([]);
    expect((await admin().put(`/attendance/${record}`, { in_time: '2026-11-10T09:00:00Z', out_time: '2026-11-10T17:00:00Z' })).status).toBe(
      200,
    );
    expect(await sheet(employee)).toMatchObject({ status: 'approved' });
    expect(await reopenedEvents(employee)).toHaveLength(events);
  });

  it('names a reopening by hand `reopened`; approving again clears it', async () => {
    const employee = await createEmployee(t);
    await insertAttendanceRow(t, employee, { in: '2026-11-10T08:00:00Z', out: '2026-11-10T12:00:00Z' });
    await approve(employee);
    const reopened = await admin().post(`/employees/${employee}/timesheets/2026-11-01/reopen`);
    expect(reopened.body).toMatchObject({ status: 'open', reopened_reason: 'reopened' });
    expect((await admin().get(`/timesheets?period=2026-11-01&employee=${employee}`)).body.data[0]).toMatchObject({
      status: 'open',
      reopened_reason: 'reopened',
    });
    await approve(employee);
  });
});
