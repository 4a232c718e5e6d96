import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// An employee's pay group (CONTRACT 6.5, docs/pay-periods.md "Pay groups"): read as pay_grade
// is, written by admins only, and never moved while a locked period of either group holds one of
// their records.

describe.each(testDialects())('the pay_group of employees on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  beforeEach(() => setClock(t, '2026-12-05T12:00:00.000Z'));

  const newGroup = async (name = unique('Group')) => {
    const res = await asUser(t, org.admin).post('/pay-groups', { name, frequency: 'weekly', anchor_date: '2026-11-02' });
    expect(res.status).toBe(201);
    return { id: Number(res.body.id), name };
  };
  const groupOf = async (employee: number) => Number((await t.db('employees').where({ id: employee }).first('pay_group_id')).pay_group_id);
  const lock = (groupId: number, start: string, end: string) =>
    t
      .db('pay_period_locks')
      .insert({ group_id: groupId, period_start: start, period_end: end, locked_at: '2026-11-20 12:00:00.000', state: 'locked' });

  it('reads as a reference with the group name, and moves with an id or a reference object', async () => {
    const group = await newGroup();
    const employee = await createEmployee(t);

    const before = await asUser(t, org.admin).get(`/employees/${employee}`);
    expect(before.body.pay_group).toEqual({ type: 'PayGroup', id: '1', display: 'Default' });

    const moved = await asUser(t, org.admin).patch(`/employees/${employee}`, { pay_group: String(group.id) });
    expect(moved.status).toBe(200);
    expect(moved.body.pay_group).toEqual({ type: 'PayGroup', id: String(group.id), display: group.name });
    expect(await groupOf(employee)).toBe(group.id);

    const listed = await asUser(t, org.admin).get(
      `/employees?filters=${encodeURIComponent(JSON.stringify({ pay_group: String(group.id) }))}`,
    );
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((row: { id: string }) => row.id)).toEqual([String(employee)]);

    const back = await asUser(t, org.admin).patch(`/employees/${employee}`, {
      pay_group: { type: 'PayGroup', id: '1', display: 'Default' },
    });
    expect(back.status).toBe(200);
    expect(await groupOf(employee)).toBe(1);
    const audit = await t.db('audit_log').where({ entity_type: 'employee', entity_id: employee }).orderBy('id', 'desc').first();
    expect(JSON.parse(audit.fields)).toEqual(['pay_group']);
  });

  it('shows a renamed group under its new name, and creates an employee in a group', async () => {
    const group = await newGroup();
    const created = await asUser(t, org.admin).post('/employees', {
      employee_id: unique('PG'),
      first_name: 'Pay',
      last_name: 'Group',
      pay_group: group.id,
    });
    expect(created.status).toBe(201);
    expect(created.body.pay_group).toEqual({ type: 'PayGroup', id: String(group.id), display: group.name });

    const renamed = unique('Renamed');
    expect((await asUser(t, org.admin).patch(`/pay-groups/${group.id}`, { name: renamed })).status).toBe(200);
    expect((await asUser(t, org.admin).get(`/employees/${created.body.id}`)).body.pay_group.display).toBe(renamed);
  });

  it('refuses an unknown group and null (422 naming pay_group), writing nothing', async () => {
    const employee = await createEmployee(t);
    for (const pay_group of [999999, null, 'x']) {
      const problem = expectProblem(await asUser(t, org.admin).patch(`/employees/${employee}`, { pay_group }), 422, 'validation_failed');
      expect(problem.errors.map((error: { field: string }) => error.field)).toEqual(['pay_group']);
    }
    const created = await asUser(t, org.admin).post('/employees', {
      employee_id: unique('PGX'),
      first_name: 'A',
      last_name: 'B',
      pay_group: 999999,
    });
    expectProblem(created, 422, 'validation_failed');
    expect(await groupOf(employee)).toBe(1);
    expect(await t.db('employees').where({ first_name: 'A', last_name: 'B' }).first()).toBeUndefined();
  });

  it('lets only admins change it (403 naming the field), though managers read it', async () => {
    const group = await newGroup();
    const read = await asUser(t, org.manager).get(`/employees/${org.report.employeeId}`);
    expect(read.body.pay_group).toEqual({ type: 'PayGroup', id: '1', display: 'Default' });

    const byManager = expectProblem(
      await asUser(t, org.manager).patch(`/employees/${org.report.employeeId}`, { pay_group: group.id }),
      403,
      'field_not_writable',
    );
    expect(byManager.errors).toEqual([{ field: 'pay_group', message: expect.any(String) }]);
    expectProblem(
      await asUser(t, org.report).patch(`/employees/${org.report.employeeId}`, { pay_group: group.id }),
      403,
      'field_not_writable',
    );
    // Sent back as read, it is no change: a read-modify-write round trip works for everyone.
    expect((await asUser(t, org.manager).patch(`/employees/${org.report.employeeId}`, { pay_group: read.body.pay_group })).status).toBe(
      200,
    );
    expect(await groupOf(org.report.employeeId!)).toBe(1);
  });

  it('refuses a move (409 period_locked) while a locked period of the old or the new group holds a record', async () => {
    const weekly = await newGroup();
    const employee = await createEmployee(t);
    await insertAttendanceRow(t, employee, { in: '2026-11-03T08:00:00Z', out: '2026-11-03T16:00:00Z' });

    // A lock of the new group over the record's date.
    await lock(weekly.id, '2026-11-02', '2026-11-08');
    const intoLocked = expectProblem(
      await asUser(t, org.admin).patch(`/employees/${employee}`, { pay_group: weekly.id }),
      409,
      'period_locked',
    );
    expect(intoLocked.detail).toContain('2026-11-02 to 2026-11-08');
    expect(await groupOf(employee)).toBe(1);

    // A lock of the old group (group 1, monthly) over it.
    await t.db('pay_period_locks').where({ group_id: weekly.id }).delete();
    await lock(1, '2026-11-01', '2026-11-30');
    try {
      expectProblem(await asUser(t, org.admin).patch(`/employees/${employee}`, { pay_group: weekly.id }), 409, 'period_locked');
      expect(await groupOf(employee)).toBe(1);
    } finally {
      await t.db('pay_period_locks').where({ group_id: 1, period_start: '2026-11-01' }).delete();
    }

    // A lock of another group, or one without the employee's records, does not stop it.
    const other = await newGroup();
    await lock(other.id, '2026-11-01', '2026-11-30');
    await lock(weekly.id, '2026-10-05', '2026-10-11');
    expect((await asUser(t, org.admin).patch(`/employees/${employee}`, { pay_group: weekly.id })).status).toBe(200);
    expect(await groupOf(employee)).toBe(weekly.id);
  });
});
