import { createWebhook } from '../../src/webhooks/subscriptions';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// A change of a pay group's rules (PUT|PATCH /pay-groups/{id}) changes the open periods of its
// employees only (docs/pay-periods.md, "Each employee's rules"): a locked period keeps its
// snapshot, and an approved timesheet of that group whose numbers change reopens with
// `rules_changed`; the other groups' approvals stay.

describe.each(testDialects())('a change of a pay group’s rules on %s', (dialect) => {
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
    await t.db('attendance').delete();
  });

  const admin = () => asUser(t, org.admin);
  const sheet = async (employee: number, start: string) => (await admin().get(`/employees/${employee}/timesheets/${start}`)).body;
  const approve = async (employee: number, start: string) =>
    expect((await admin().post(`/employees/${employee}/timesheets/${start}/approve`)).status).toBe(200);
  const reopenedEvents = async (employee: number) =>
    (await t.db('webhook_events').where({ type: 'timesheet.reopened', resource_key: `timesheet:${employee}` })).map(
      (row) => JSON.parse(row.payload).data,
    );
  /** A group without 6.5 rules, an employee in it, and one in group 1, each with a 9-hour day in October and in November. */
  const setUp = async () => {
    const created = await admin().post('/pay-groups', { name: unique('Site') });
    expect(created.status).toBe(201);
    const group = Number(created.body.id);
    const inGroup = await createEmployee(t);
    const inDefault = await createEmployee(t);
    expect((await admin().patch(`/employees/${inGroup}`, { pay_group: String(group) })).status).toBe(200);
    for (const employee of [inGroup, inDefault]) {
      await insertAttendanceRow(t, employee, { in: '2026-10-13T08:00:00Z', out: '2026-10-13T17:00:00Z' });
      await insertAttendanceRow(t, employee, { in: '2026-11-10T08:00:00Z', out: '2026-11-10T17:00:00Z' });
      await approve(employee, '2026-10-01');
      await approve(employee, '2026-11-01');
    }
    // Locks are per group (CONTRACT 6.5): October is locked for both.
    expect((await admin().post('/pay-periods/2026-10-01/lock')).status).toBe(200);
    expect((await admin().post(`/pay-periods/2026-10-01/lock?group=${group}`)).status).toBe(200);
    return { group, inGroup, inDefault };
  };

  it('reopens the open period’s approvals of that group whose numbers change; a locked period keeps its snapshot', async () => {
    const { group, inGroup, inDefault } = await setUp();

    const patched = await admin().patch(`/pay-groups/${group}`, { meal_break: { after_hours: 6, minutes: 30 } });
    expect(patched.status).toBe(200);

    const november = await sheet(inGroup, '2026-11-01');
    expect(november).toMatchObject({ status: 'open', reopened_reason: 'rules_changed', totals: { worked_hours: 8.5, regular_hours: 8.5 } });
    expect(november.days[9]).toMatchObject({ date: '2026-11-10', worked_hours: 8.5, break_deducted_hours: 0.5 });
    expect(await reopenedEvents(inGroup)).toEqual([
      { employee: String(inGroup), period_start: '2026-11-01', period_end: '2026-11-30', status: 'open', reason: 'rules_changed' },
    ]);
    // The locked October keeps the numbers of its lock, and its approval.
    const october = await sheet(inGroup, '2026-10-01');
    expect(october).toMatchObject({ status: 'approved', period: { status: 'locked' }, totals: { worked_hours: 9 } });
    expect(october.days[12]).toMatchObject({ date: '2026-10-13', worked_hours: 9, break_deducted_hours: 0 });
    // Group 1's employee: other rules, nothing changed.
    expect(await sheet(inDefault, '2026-11-01')).toMatchObject({ status: 'approved', totals: { worked_hours: 9 } });
    expect(await reopenedEvents(inDefault)).toEqual([]);
  });

  it('freezes the group’s rules into a lock’s snapshot, deducted break included', async () => {
    const { group, inGroup } = await setUp();
    expect((await admin().patch(`/pay-groups/${group}`, { meal_break: { after_hours: 6, minutes: 30 } })).status).toBe(200);
    await approve(inGroup, '2026-11-01');
    expect((await admin().post(`/pay-periods/2026-11-01/lock?group=${group}`)).status).toBe(200);

    expect((await admin().patch(`/pay-groups/${group}`, { meal_break: null, exempt: true })).status).toBe(200);

    const november = await sheet(inGroup, '2026-11-01');
    expect(november).toMatchObject({ status: 'approved', period: { status: 'locked' }, totals: { worked_hours: 8.5 } });
    expect(november.days[9]).toMatchObject({ date: '2026-11-10', worked_hours: 8.5, regular_hours: 8.5, break_deducted_hours: 0.5 });
    const exported = await admin().get(`/pay-periods/2026-11-01/export?format=json&group=${group}`);
    expect(exported.body.rows.filter((row: { employee: string }) => row.employee === String(inGroup))).toMatchObject([
      { date: '2026-11-10', code: 'REG', hours: 8.5 },
    ]);
  });

  it('reopens on PUT too, and not for a change that changes no number (a name, or rounding of whole hours)', async () => {
    const { group, inGroup } = await setUp();

    const renamed = await admin().patch(`/pay-groups/${group}`, { name: unique('Renamed'), rounding: { minutes: 15 } });
    expect(renamed.status).toBe(200);
    expect(await sheet(inGroup, '2026-11-01')).toMatchObject({ status: 'approved', reopened_reason: null });

    const replaced = await admin().put(`/pay-groups/${group}`, {
      name: unique('Exempt'),
      exempt: true,
      overtime: { daily_after_hours: 8 },
    });
    expect(replaced.status).toBe(200);
    // Exempt: the daily rule is ignored, 9 hours stay regular; the PUT dropped nothing that changed them.
    expect(await sheet(inGroup, '2026-11-01')).toMatchObject({ status: 'approved', totals: { regular_hours: 9, overtime_hours: 0 } });

    expect((await admin().put(`/pay-groups/${group}`, { name: unique('Daily'), overtime: { daily_after_hours: 8 } })).status).toBe(200);
    expect(await sheet(inGroup, '2026-11-01')).toMatchObject({
      status: 'open',
      reopened_reason: 'rules_changed',
      totals: { regular_hours: 8, overtime_hours: 1 },
    });
    expect(await reopenedEvents(inGroup)).toHaveLength(1);
  });

  it('reopens the approvals a move to another group changes; a move between groups of the same rules keeps them', async () => {
    const { group, inGroup, inDefault } = await setUp();
    const breaks = await admin().post('/pay-groups', { name: unique('Breaks'), meal_break: { after_hours: 6, minutes: 30 } });
    expect(breaks.status).toBe(201);
    // October is locked and holds their records: a move is refused there (period_locked), so unlock it first.
    expect((await admin().post('/pay-periods/2026-10-01/unlock')).status).toBe(200);
    expect((await admin().post(`/pay-periods/2026-10-01/unlock?group=${group}`)).status).toBe(200);

    // group 1 to the plain group: the same rules (weekly 40), the same numbers.
    expect((await admin().patch(`/employees/${inDefault}`, { pay_group: String(group) })).status).toBe(200);
    expect(await sheet(inDefault, '2026-11-01')).toMatchObject({ status: 'approved', totals: { worked_hours: 9 } });

    expect((await admin().patch(`/employees/${inGroup}`, { pay_group: String(breaks.body.id) })).status).toBe(200);
    expect(await sheet(inGroup, '2026-11-01')).toMatchObject({
      status: 'open',
      reopened_reason: 'rules_changed',
      totals: { worked_hours: 8.5 },
    });
    expect((await reopenedEvents(inGroup)).map((event) => [event.period_start, event.reason])).toEqual([
      ['2026-10-01', 'rules_changed'],
      ['2026-11-01', 'rules_changed'],
    ]);
    expect(await reopenedEvents(inDefault)).toEqual([]);
  });

  it('refuses a bad rule with a 422 naming it, and changes nothing', async () => {
    const { group, inGroup } = await setUp();
    const before = await t.db('pay_groups').where({ id: group }).first();

    const res = await admin().patch(`/pay-groups/${group}`, { meal_break: { after_hours: 6, minutes: 0 } });
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors.map((error: { field: string }) => error.field)).toEqual(['meal_break.minutes']);
    expect(await t.db('pay_groups').where({ id: group }).first()).toEqual(before);
    expect(await sheet(inGroup, '2026-11-01')).toMatchObject({ status: 'approved', totals: { worked_hours: 9 } });
    expect(await reopenedEvents(inGroup)).toEqual([]);
  });
});
