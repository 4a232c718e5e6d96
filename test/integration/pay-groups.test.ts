import { asUser, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// Pay groups (CONTRACT 6.5, docs/pay-periods.md "Pay groups"): their API, group 1 as the
// pay-period settings, and every refusal with nothing written.

const DEFAULT_OVERTIME = { daily_after_hours: null, daily_double_after_hours: null, weekly_after_hours: 40, seventh_day: false };

describe.each(testDialects())('pay groups on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  beforeEach(() => setClock(t, '2026-12-05T12:00:00.000Z'));

  const groupRows = async () => (await t.db('pay_groups').count({ n: '*' }).first())!.n;
  const create = async (body: Record<string, unknown>) => asUser(t, org.admin).post('/pay-groups', body);

  it('makes a group from its name alone, every rule at its default, and answers it in the read shape', async () => {
    const name = unique('Hourly');
    const res = await create({ name });

    expect(res.status).toBe(201);
    expect(res.headers.location).toMatch(new RegExp(`/pay-groups/${res.body.id}$`));
    expect(Object.keys(res.body)).toEqual([
      'id',
      'name',
      'frequency',
      'anchor_date',
      'month_start_day',
      'workweek_start',
      'overtime',
      'exempt',
      'meal_break',
      'rounding',
      'export_profile',
      'created_at',
      'updated_at',
    ]);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9]+$/),
      name,
      frequency: 'monthly',
      anchor_date: '2024-01-01',
      month_start_day: 1,
      workweek_start: 'monday',
      overtime: DEFAULT_OVERTIME,
      exempt: false,
      meal_break: null,
      rounding: null,
      export_profile: null,
      created_at: '2026-12-05T12:00:00.000Z',
      updated_at: '2026-12-05T12:00:00.000Z',
    });
    expect((await asUser(t, org.manager).get(`/pay-groups/${res.body.id}`)).body).toEqual(res.body);
    const audit = await t
      .db('audit_log')
      .where({ entity_type: 'pay_group', entity_id: Number(res.body.id) })
      .first();
    expect(audit.action).toBe('pay_group.create');
  });

  it('stores every rule sent, and PATCH changes only what it sends (overtime key by key)', async () => {
    const created = await create({
      name: unique('Weekly'),
      frequency: 'weekly',
      anchor_date: '2026-01-05',
      overtime: { daily_after_hours: 8, daily_double_after_hours: 12 },
      exempt: true,
      meal_break: { after_hours: 6, minutes: 30 },
      rounding: { minutes: 15 },
      export_profile: 'gusto',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      frequency: 'weekly',
      anchor_date: '2026-01-05',
      overtime: { daily_after_hours: 8, daily_double_after_hours: 12, weekly_after_hours: 40, seventh_day: false },
      exempt: true,
      meal_break: { after_hours: 6, minutes: 30 },
      rounding: { minutes: 15 },
      export_profile: 'gusto',
    });

    setClock(t, '2026-12-06T08:00:00.000Z');
    const patched = await asUser(t, org.admin).patch(`/pay-groups/${created.body.id}`, {
      overtime: { weekly_after_hours: null },
      rounding: null,
      id: created.body.id,
      updated_at: 'ignored',
    });

    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({
      ...created.body,
      overtime: { daily_after_hours: 8, daily_double_after_hours: 12, weekly_after_hours: null, seventh_day: false },
      rounding: null,
      updated_at: '2026-12-06T08:00:00.000Z',
    });
    const audit = await t.db('audit_log').where({ entity_type: 'pay_group', action: 'pay_group.update' }).orderBy('id', 'desc').first();
    expect(JSON.parse(audit.fields)).toEqual(['overtime.weekly_after_hours', 'rounding']);
  });

  it('PUT replaces the whole group: omitted rules go back to their defaults', async () => {
    const created = await create({ name: unique('Put'), exempt: true, rounding: { minutes: 6 }, overtime: { seventh_day: true } });
    const name = unique('Put again');

    const res = await asUser(t, org.admin).put(`/pay-groups/${created.body.id}`, { name, meal_break: { after_hours: 5.5, minutes: 20 } });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name,
      exempt: false,
      rounding: null,
      overtime: DEFAULT_OVERTIME,
      meal_break: { after_hours: 5.5, minutes: 20 },
    });
  });

  it('names every invalid field at once (422) and writes nothing', async () => {
    const before = await groupRows();
    const res = await create({
      name: '',
      frequency: 'daily',
      anchor_date: '2026-02-30',
      month_start_day: 29,
      workweek_start: 'funday',
      overtime: { daily_after_hours: 0, weekly_after_hours: 1e-9, seventh_day: 'yes', extra: 1 },
      exempt: 'no',
      meal_break: { after_hours: 25, minutes: 0.5 },
      rounding: { minutes: 7 },
      export_profile: 'NOT A PROFILE',
      color: 'red',
    });

    const problem = expectProblem(res, 422, 'validation_failed');
    expect(problem.errors.map((error: { field: string }) => error.field).sort()).toEqual(
      [
        'anchor_date',
        'color',
        'exempt',
        'export_profile',
        'frequency',
        'meal_break.after_hours',
        'meal_break.minutes',
        'month_start_day',
        'name',
        'overtime.daily_after_hours',
        'overtime.extra',
        'overtime.seventh_day',
        'overtime.weekly_after_hours',
        'rounding.minutes',
        'workweek_start',
      ].sort(),
    );
    expect(await groupRows()).toBe(before);
  });

  it('refuses what only the database and other rows know: double time under daily, an unknown profile, a duplicate name', async () => {
    const name = unique('Taken');
    expect((await create({ name })).status).toBe(201);
    const before = await groupRows();

    const rules = await create({
      name: unique('Bad'),
      overtime: { daily_after_hours: 10, daily_double_after_hours: 8 },
      export_profile: '999999',
    });
    const problem = expectProblem(rules, 422, 'validation_failed');
    expect(problem.errors.map((error: { field: string }) => error.field)).toEqual(['overtime.daily_double_after_hours', 'export_profile']);
    expectProblem(await create({ name }), 409, 'duplicate');
    expectProblem(await create({}), 422, 'validation_failed');
    expect(await groupRows()).toBe(before);
  });

  it('keeps group 1: its name, and its row, which /pay-periods/settings reads and writes', async () => {
    const settings = await asUser(t, org.admin).put('/pay-periods/settings', { frequency: 'biweekly', overtime: { daily_after_hours: 9 } });
    expect(settings.status).toBe(200);
    try {
      const group = await asUser(t, org.admin).get('/pay-groups/1');
      expect(group.body).toMatchObject({
        id: '1',
        name: 'Default',
        frequency: 'biweekly',
        overtime: { ...DEFAULT_OVERTIME, daily_after_hours: 9 },
      });

      const patched = await asUser(t, org.admin).patch('/pay-groups/1', { workweek_start: 'sunday' });
      expect(patched.status).toBe(200);
      expect((await asUser(t, org.admin).get('/pay-periods/settings')).body).toMatchObject({
        frequency: 'biweekly',
        workweek_start: 'sunday',
      });

      expect(expectProblem(await asUser(t, org.admin).patch('/pay-groups/1', { name: 'Other' }), 422, 'validation_failed').errors).toEqual([
        { field: 'name', message: expect.any(String) },
      ]);
      expectProblem(await asUser(t, org.admin).delete('/pay-groups/1'), 409, 'conflict');
      expect(await t.db('pay_groups').where({ id: 1 }).first('name')).toEqual({ name: 'Default' });
    } finally {
      await t.db('pay_groups').where({ id: 1 }).update({ settings: null });
    }
  });

  it('deletes a group without employees; refuses one with employees (in_use) and one with a lock', async () => {
    const empty = await create({ name: unique('Empty') });
    const used = await create({ name: unique('Used') });
    const locked = await create({ name: unique('Locked') });
    const employee = await createEmployee(t);
    await t
      .db('employees')
      .where({ id: employee })
      .update({ pay_group_id: Number(used.body.id) });
    await t.db('pay_period_locks').insert({
      group_id: Number(locked.body.id),
      period_start: '2026-10-01',
      period_end: '2026-10-31',
      locked_at: '2026-11-02 00:00:00.000',
      state: 'locked',
    });

    const res = await asUser(t, org.admin).delete(`/pay-groups/${empty.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: empty.body.id });
    expectProblem(await asUser(t, org.admin).get(`/pay-groups/${empty.body.id}`), 404, 'not_found');

    expectProblem(await asUser(t, org.admin).delete(`/pay-groups/${used.body.id}`), 409, 'in_use');
    expectProblem(await asUser(t, org.admin).delete(`/pay-groups/${locked.body.id}`), 409, 'in_use');
    expect(
      await t
        .db('pay_groups')
        .whereIn('id', [Number(used.body.id), Number(locked.body.id)])
        .count({ n: '*' }),
    ).toEqual([{ n: 2 }]);
    await t.db('employees').where({ id: employee }).update({ pay_group_id: 1 });
  });

  it('lets admins write, admins and managers read, and nobody else (403); unknown ids 404', async () => {
    const group = await create({ name: unique('Access') });
    const before = await groupRows();

    expect((await asUser(t, org.manager).get('/pay-groups')).status).toBe(200);
    expectProblem(await asUser(t, org.report).get('/pay-groups'), 403, 'forbidden');
    expectProblem(await asUser(t, org.report).get(`/pay-groups/${group.body.id}`), 403, 'forbidden');
    expectProblem(await asUser(t, org.manager).post('/pay-groups', { name: unique('M') }), 403, 'forbidden');
    expectProblem(await asUser(t, org.manager).patch(`/pay-groups/${group.body.id}`, { exempt: true }), 403, 'forbidden');
    expectProblem(await asUser(t, org.manager).put(`/pay-groups/${group.body.id}`, { name: 'x' }), 403, 'forbidden');
    expectProblem(await asUser(t, org.manager).delete(`/pay-groups/${group.body.id}`), 403, 'forbidden');
    expectProblem(await asUser(t, org.admin).get('/pay-groups/999999'), 404, 'not_found');
    expectProblem(await asUser(t, org.admin).patch('/pay-groups/abc', { exempt: true }), 404, 'not_found');
    expectProblem(await asUser(t, org.admin).patch(`/pay-groups/${group.body.id}`, { id: '1' }), 422, 'validation_failed');
    expect(await groupRows()).toBe(before);
    expect(
      (
        await t
          .db('pay_groups')
          .where({ id: Number(group.body.id) })
          .first('exempt')
      ).exempt,
    ).toBeFalsy();
  });

  it('names an export profile; deleting a profile a group uses is 409 in_use, and allowed once no group does', async () => {
    const profile = await asUser(t, org.admin).post('/export-profiles', { template: 'gusto', name: unique('Gusto') });
    expect(profile.status).toBe(201);
    const group = await create({ name: unique('Exports'), export_profile: profile.body.id });
    expect(group.body.export_profile).toBe(profile.body.id);

    const refused = expectProblem(await asUser(t, org.admin).delete(`/export-profiles/${profile.body.id}`), 409, 'in_use');
    expect(refused.detail).toContain(group.body.name);
    expect((await asUser(t, org.admin).get(`/export-profiles/${profile.body.id}`)).status).toBe(200);

    expect((await asUser(t, org.admin).patch(`/pay-groups/${group.body.id}`, { export_profile: null })).status).toBe(200);
    expect((await asUser(t, org.admin).delete(`/export-profiles/${profile.body.id}`)).status).toBe(200);
  });

  it('lists the groups by id, paged', async () => {
    await create({ name: unique('List') });
    const total = Number(await groupRows());

    const res = await asUser(t, org.admin).get('/pay-groups?limit=1');

    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({ id: '1', name: 'Default' });
    expect(res.body.total).toBe(total);
    expectProblem(await asUser(t, org.admin).get('/pay-groups?limit=0'), 400, 'invalid_query');
  });
});
