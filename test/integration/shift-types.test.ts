import { asUser } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createOrg } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// Shift types (CONTRACT 6.7, docs/schedules.md): admins write, everyone reads, defaults as listed.

describe.each(testDialects())('/shift-types on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  const admin = () => asUser(t, org.admin);
  const countTypes = async () => Number(((await t.db('shift_types').count({ n: '*' }).first()) as { n: number | string }).n);

  it('creates a shift type with the documented defaults and answers it to every role', async () => {
    const res = await admin().post('/shift-types', { name: 'Early', start_time: '06:00', end_time: '14:00' });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name: 'Early',
      start_time: '06:00',
      end_time: '14:00',
      unpaid_break_minutes: 0,
      late_grace_minutes: 0,
      early_exit_grace_minutes: 0,
      check_in_window_minutes: 60,
      check_out_window_minutes: 60,
      half_day_below_hours: null,
      absent_below_hours: null,
    });
    expect(res.headers.location).toBe(t.api(`/shift-types/${res.body.id}`));
    const read = await asUser(t, org.report).get(`/shift-types/${res.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    const list = await asUser(t, org.manager).get('/shift-types');
    expect(list.status).toBe(200);
    expect(list.body.data).toContainEqual(res.body);
  });

  it('keeps every field sent, thresholds with decimals included', async () => {
    const body = {
      name: 'Night',
      start_time: '22:00',
      end_time: '06:00',
      unpaid_break_minutes: 30,
      late_grace_minutes: 5,
      early_exit_grace_minutes: 10,
      check_in_window_minutes: 90,
      check_out_window_minutes: 120,
      half_day_below_hours: 4.5,
      absent_below_hours: 1.25,
    };
    const res = await admin().post('/shift-types', body);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), ...body });
  });

  it('changes only the sent fields with PATCH, and resets omitted ones to their defaults with PUT', async () => {
    const created = await admin().post('/shift-types', { name: 'Late', start_time: '14:00', end_time: '22:00', late_grace_minutes: 5 });
    const patched = await admin().patch(`/shift-types/${created.body.id}`, { unpaid_break_minutes: 30 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Late', late_grace_minutes: 5, unpaid_break_minutes: 30 });

    const replaced = await admin().put(`/shift-types/${created.body.id}`, { name: 'Late', start_time: '15:00', end_time: '23:00' });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ start_time: '15:00', late_grace_minutes: 0, unpaid_break_minutes: 0 });
  });

  it('refuses invalid fields with 422 naming each, and writes nothing', async () => {
    const before = await countTypes();
    const res = await admin().post('/shift-types', {
      name: '',
      start_time: '24:00',
      end_time: '8:00',
      late_grace_minutes: -1,
      check_in_window_minutes: 1.5,
      colour: 'red',
    });
    const problem = expectProblem(res, 422, 'validation_failed');
    expect(problem.errors.map((error: { field: string }) => error.field).sort()).toEqual(
      ['check_in_window_minutes', 'colour', 'end_time', 'late_grace_minutes', 'name', 'start_time'].sort(),
    );
    const thresholds = await admin().post('/shift-types', {
      name: 'Odd',
      start_time: '08:00',
      end_time: '16:00',
      half_day_below_hours: 2,
      absent_below_hours: 3,
    });
    expect(expectProblem(thresholds, 422, 'validation_failed').errors).toEqual([
      { field: 'absent_below_hours', message: 'must not be above half_day_below_hours' },
    ]);
    const missing = await admin().post('/shift-types', { name: 'No times' });
    expect(
      expectProblem(missing, 422, 'validation_failed')
        .errors.map((error: { field: string }) => error.field)
        .sort(),
    ).toEqual(['end_time', 'start_time']);
    expect(await countTypes()).toBe(before);
  });

  it('answers 409 duplicate for a name in use', async () => {
    await admin().post('/shift-types', { name: 'Twice', start_time: '08:00', end_time: '16:00' });
    const res = await admin().post('/shift-types', { name: 'Twice', start_time: '09:00', end_time: '17:00' });
    expect(expectProblem(res, 409, 'duplicate').errors).toEqual([{ field: 'name', message: 'is already in use' }]);
  });

  it('lets only admins write: managers and employees get 403 and nothing changes', async () => {
    const created = await admin().post('/shift-types', { name: 'Guarded', start_time: '08:00', end_time: '16:00' });
    const before = await countTypes();
    expectProblem(
      await asUser(t, org.manager).post('/shift-types', { name: 'X', start_time: '08:00', end_time: '16:00' }),
      403,
      'forbidden',
    );
    expectProblem(await asUser(t, org.report).patch(`/shift-types/${created.body.id}`, { name: 'Y' }), 403, 'forbidden');
    expectProblem(await asUser(t, org.report).delete(`/shift-types/${created.body.id}`), 403, 'forbidden');
    expect(await countTypes()).toBe(before);
    expect((await admin().get(`/shift-types/${created.body.id}`)).body.name).toBe('Guarded');
  });

  it('deletes a shift type, then answers 404 for it', async () => {
    const created = await admin().post('/shift-types', { name: 'Gone', start_time: '08:00', end_time: '16:00' });
    const res = await admin().delete(`/shift-types/${created.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.body.id });
    expectProblem(await admin().get(`/shift-types/${created.body.id}`), 404, 'not_found');
    expectProblem(await admin().delete(`/shift-types/${created.body.id}`), 404, 'not_found');
  });
});
