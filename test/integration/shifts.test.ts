import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createWebhook } from '../../src/webhooks/subscriptions';
import { asUser, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg } from '../helpers/factories';
import { lockPeriod } from '../helpers/pay-periods';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// Shifts (CONTRACT 6.7, docs/schedules.md): local times in a zone with derived instants, the
// daylight-saving rules, roles, overlaps (also under concurrency), locked periods, batches,
// publishing, open shifts, conditional requests and the deletion feed.

describe.each(testDialects())('/shifts on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  const admin = () => asUser(t, org.admin);
  const shiftCount = async () => Number(((await t.db('shifts').count({ n: '*' }).first()) as { n: number | string }).n);
  const berliner = () => createEmployee(t, { timezone: 'Europe/Berlin' });
  const fields = (problem: Record<string, any>) => (problem.errors as Array<{ field: string }>).map((error) => error.field).sort();

  beforeEach(() => setClock(t, '2026-03-01T12:00:00.000Z'));

  it("creates a shift in the employee's zone with its instants, planned hours, ETag and Location", async () => {
    const employee = await berliner();
    const res = await admin().post('/shifts', {
      employee,
      start_local: '2026-03-10T08:00',
      end_local: '2026-03-10T16:30',
      unpaid_break_minutes: 30,
      notes: 'Front desk',
    });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      employee: { type: 'Employee', id: String(employee), display: expect.any(String) },
      shift_type: null,
      date: '2026-03-10',
      start_local: '2026-03-10T08:00',
      end_local: '2026-03-10T16:30',
      timezone: 'Europe/Berlin',
      start: '2026-03-10T07:00:00.000Z',
      end: '2026-03-10T15:30:00.000Z',
      planned_hours: 8,
      unpaid_break_minutes: 30,
      late_grace_minutes: 0,
      early_exit_grace_minutes: 0,
      check_in_window_minutes: 60,
      check_out_window_minutes: 60,
      half_day_below_hours: null,
      absent_below_hours: null,
      status: 'draft',
      rotation: null,
      notes: 'Front desk',
      created_at: '2026-03-01T12:00:00.000Z',
      updated_at: '2026-03-01T12:00:00.000Z',
    });
    expect(res.headers.location).toBe(t.api(`/shifts/${res.body.id}`));
    const read = await admin().get(`/shifts/${res.body.id}`);
    expect(read.body).toEqual(res.body);
    expect(read.headers.etag).toBe(res.headers.etag);
    const again = await admin()
      .get(`/shifts/${res.body.id}`)
      .set('If-None-Match', res.headers.etag as string);
    expect(again.status).toBe(304);
  });

  it('copies a shift type into the shift; a later change of the type changes no shift', async () => {
    const type = await admin().post('/shift-types', {
      name: 'Night copy',
      start_time: '22:00',
      end_time: '06:00',
      unpaid_break_minutes: 30,
      late_grace_minutes: 5,
      half_day_below_hours: 4,
    });
    const res = await admin().post('/shifts', { employee: await berliner(), shift_type: type.body.id, date: '2026-03-12' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      shift_type: { type: 'ShiftType', id: type.body.id, display: 'Night copy' },
      start_local: '2026-03-12T22:00',
      end_local: '2026-03-13T06:00',
      planned_hours: 7.5,
      late_grace_minutes: 5,
      half_day_below_hours: 4,
    });
    await admin().patch(`/shift-types/${type.body.id}`, { late_grace_minutes: 15, start_time: '21:00' });
    const read = await admin().get(`/shifts/${res.body.id}`);
    expect(read.body).toMatchObject({ start_local: '2026-03-12T22:00', late_grace_minutes: 5 });
  });

  it('moves a start in the spring-forward gap forward by the gap, and takes the first 02:30 of the fall-back night', async () => {
    const employee = await berliner();
    const spring = await admin().post('/shifts', { employee, start_local: '2026-03-29T02:30', end_local: '2026-03-29T10:30' });
    expect(spring.status).toBe(201);
    // 02:30 does not exist on 29 March in Berlin: it is 03:30 CEST, 01:30Z; the shift lasts 7 hours.
    expect(spring.body).toMatchObject({ start: '2026-03-29T01:30:00.000Z', end: '2026-03-29T08:30:00.000Z', planned_hours: 7 });

    const night = await admin().post('/shifts', { employee, start_local: '2026-10-24T22:00', end_local: '2026-10-25T06:00' });
    expect(night.body).toMatchObject({ start: '2026-10-24T20:00:00.000Z', end: '2026-10-25T05:00:00.000Z', planned_hours: 9 });

    const ambiguous = await admin().post('/shifts', { employee, start_local: '2026-10-25T02:30', end_local: '2026-10-25T09:00' });
    expect(ambiguous.body).toMatchObject({ start: '2026-10-25T00:30:00.000Z', planned_hours: 7.5 });
  });

  it('refuses a length of 0 or over 24 hours, an unknown zone and bad fields with 422 naming each, writing nothing', async () => {
    const employee = await berliner();
    const before = await shiftCount();
    const zero = await admin().post('/shifts', { employee, start_local: '2026-03-10T08:00', end_local: '2026-03-10T08:00' });
    expect(expectProblem(zero, 422, 'validation_failed').errors).toEqual([
      { field: 'end_local', message: 'must be after start_local (a shift lasts more than 0 hours)' },
    ]);
    const long = await admin().post('/shifts', { employee, start_local: '2026-03-10T08:00', end_local: '2026-03-11T08:01' });
    expect(expectProblem(long, 422, 'validation_failed').errors).toEqual([
      { field: 'end_local', message: 'must be at most 24 hours after start_local' },
    ]);
    const full = await admin().post('/shifts', { employee, start_local: '2026-03-10T08:00', end_local: '2026-03-11T08:00' });
    expect(full.status).toBe(201);
    const bad = await admin().post('/shifts', {
      employee,
      start_local: '2026-02-30T08:00',
      end_local: '2026-03-10 16:00',
      timezone: 'Mars/Olympus',
      status: 'live',
      late_grace_minutes: -5,
      colour: 'red',
    });
    expect(fields(expectProblem(bad, 422, 'validation_failed'))).toEqual(
      ['colour', 'end_local', 'late_grace_minutes', 'start_local', 'status', 'timezone'].sort(),
    );
    const nothing = await admin().post('/shifts', { employee });
    expect(fields(expectProblem(nothing, 422, 'validation_failed'))).toEqual(['end_local', 'start_local']);
    const unknown = await admin().post('/shifts', {
      employee: 99999999,
      shift_type: 99999999,
      start_local: '2026-03-10T08:00',
      end_local: '2026-03-10T16:00',
    });
    expect(fields(expectProblem(unknown, 422, 'validation_failed'))).toEqual(['employee', 'shift_type']);
    expect(await shiftCount()).toBe(before + 1);
  });

  it('creates a batch all or nothing: one bad member names shifts.<index>.<field> and writes none', async () => {
    const employee = await berliner();
    const before = await shiftCount();
    const member = (day: number) => ({
      employee,
      start_local: `2026-04-${String(day).padStart(2, '0')}T08:00`,
      end_local: `2026-04-${String(day).padStart(2, '0')}T16:00`,
    });
    const bad = await admin().post('/shifts', { shifts: [member(1), { ...member(2), end_local: '2026-04-02T07:00' }, member(3)] });
    expect(expectProblem(bad, 422, 'validation_failed').errors).toEqual([
      { field: 'shifts.1.end_local', message: 'must be after start_local (a shift lasts more than 0 hours)' },
    ]);
    expect(await shiftCount()).toBe(before);
    const tooMany = await admin().post('/shifts', { shifts: Array.from({ length: 501 }, () => member(1)) });
    expect(expectProblem(tooMany, 422, 'validation_failed').errors).toEqual([
      { field: 'shifts', message: 'must be a list of 1 to 500 shifts' },
    ]);

    const good = await admin().post('/shifts', { shifts: Array.from({ length: 20 }, (_, index) => member(index + 1)) });
    expect(good.status).toBe(201);
    expect(good.body.data).toHaveLength(20);
    expect(good.body.data[19]).toMatchObject({ date: '2026-04-20', status: 'draft' });
    expect(await shiftCount()).toBe(before + 20);
  });

  it('refuses overlapping published shifts of one employee with 409 shift_overlap; drafts may overlap', async () => {
    const employee = await berliner();
    const first = await admin().post('/shifts', {
      employee,
      start_local: '2026-05-04T08:00',
      end_local: '2026-05-04T16:00',
      status: 'published',
    });
    expect(first.status).toBe(201);
    const overlapping = { employee, start_local: '2026-05-04T15:00', end_local: '2026-05-04T20:00' };
    expectProblem(await admin().post('/shifts', { ...overlapping, status: 'published' }), 409, 'shift_overlap');
    const draft = await admin().post('/shifts', overlapping);
    expect(draft.status).toBe(201);
    expectProblem(await admin().patch(`/shifts/${draft.body.id}`, { status: 'published' }), 409, 'shift_overlap');
    const adjacent = await admin().post('/shifts', {
      employee,
      start_local: '2026-05-04T16:00',
      end_local: '2026-05-04T20:00',
      status: 'published',
    });
    expect(adjacent.status).toBe(201);
    // Within one batch too.
    const before = await shiftCount();
    const batch = await admin().post('/shifts', {
      shifts: [
        { employee, start_local: '2026-05-05T08:00', end_local: '2026-05-05T16:00', status: 'published' },
        { employee, start_local: '2026-05-05T12:00', end_local: '2026-05-05T18:00', status: 'published' },
      ],
    });
    expectProblem(batch, 409, 'shift_overlap');
    expect(await shiftCount()).toBe(before);
    // Publishing a range that holds overlapping drafts publishes none.
    const publish = await admin().post('/shifts/publish', { from: '2026-05-04', to: '2026-05-04', employees: [employee] });
    expectProblem(publish, 409, 'shift_overlap');
    expect((await admin().get(`/shifts/${draft.body.id}`)).body.status).toBe('draft');
  });

  it('answers 409 period_locked for a shift dated in a locked pay period, and writes nothing', async () => {
    const employee = await berliner();
    const open = await admin().post('/shifts', { employee, start_local: '2026-02-27T08:00', end_local: '2026-02-27T16:00' });
    await lockPeriod(t, '2026-02-01', '2026-02-28');
    const before = await shiftCount();
    expectProblem(
      await admin().post('/shifts', { employee, start_local: '2026-02-10T08:00', end_local: '2026-02-10T16:00' }),
      409,
      'period_locked',
    );
    expectProblem(await admin().patch(`/shifts/${open.body.id}`, { notes: 'late change' }), 409, 'period_locked');
    expectProblem(await admin().patch(`/shifts/${open.body.id}`, {}), 409, 'period_locked');
    expectProblem(await admin().delete(`/shifts/${open.body.id}`), 409, 'period_locked');
    expect(await shiftCount()).toBe(before);
    expect((await admin().get(`/shifts/${open.body.id}`)).body.notes).toBeNull();
    await t.db('pay_period_locks').where({ period_start: '2026-02-01' }).delete();
  });

  it('lets managers schedule their direct reports only; employees read their own published shifts', async () => {
    const manager = asUser(t, org.manager);
    const report = org.report.employeeId!;
    const created = await manager.post('/shifts', { employee: report, start_local: '2026-06-01T08:00', end_local: '2026-06-01T16:00' });
    expect(created.status).toBe(201);
    expect(
      fields(
        expectProblem(
          await manager.post('/shifts', {
            employee: org.otherReport.employeeId,
            start_local: '2026-06-01T08:00',
            end_local: '2026-06-01T16:00',
          }),
          422,
          'validation_failed',
        ),
      ),
    ).toEqual(['employee']);
    expectProblem(
      await manager.post('/shifts', { employee: org.manager.employeeId, start_local: '2026-06-01T08:00', end_local: '2026-06-01T16:00' }),
      403,
      'forbidden',
    );
    expectProblem(
      await manager.post('/shifts', { employee: null, start_local: '2026-06-01T08:00', end_local: '2026-06-01T16:00' }),
      403,
      'forbidden',
    );
    expectProblem(
      await asUser(t, org.report).post('/shifts', { employee: report, start_local: '2026-06-01T08:00', end_local: '2026-06-01T16:00' }),
      403,
      'forbidden',
    );

    // A draft is the planner's: the employee does not see it, nor does another manager.
    expectProblem(await asUser(t, org.report).get(`/shifts/${created.body.id}`), 404, 'not_found');
    expectProblem(await asUser(t, org.otherManager).get(`/shifts/${created.body.id}`), 404, 'not_found');
    expectProblem(await asUser(t, org.otherManager).patch(`/shifts/${created.body.id}`, { notes: 'x' }), 404, 'not_found');
    const published = await manager.post('/shifts/publish', { from: '2026-06-01', to: '2026-06-01' });
    expect(published.body).toEqual({ count: 1 });
    const seen = await asUser(t, org.report).get(`/shifts/${created.body.id}`);
    expect(seen.body.status).toBe('published');
    expectProblem(await asUser(t, org.report).patch(`/shifts/${created.body.id}`, { notes: 'mine' }), 403, 'forbidden');
    const mine = await asUser(t, org.report).get('/employees/me/shifts?from=2026-06-01&to=2026-06-30');
    expect(mine.body.data.map((shift: { id: string }) => shift.id)).toEqual([created.body.id]);
    const theirs = await manager.get(`/employees/${report}/shifts?from=2026-06-01&to=2026-06-30`);
    expect(theirs.body.data.map((shift: { id: string }) => shift.id)).toEqual([created.body.id]);
    expectProblem(await asUser(t, org.outsider).get(`/employees/${report}/shifts`), 404, 'not_found');
    const unpublished = await manager.post('/shifts/unpublish', { from: '2026-06-01', to: '2026-06-01' });
    expect(unpublished.body).toEqual({ count: 1 });
    expect((await asUser(t, org.report).get('/employees/me/shifts?from=2026-06-01&to=2026-06-30')).body.data).toEqual([]);
  });

  it('has open shifts that admins write and assign, and everyone reads once published', async () => {
    const employee = await berliner();
    const open = await admin().post('/shifts', {
      employee: null,
      timezone: 'Europe/Berlin',
      start_local: '2026-07-01T08:00',
      end_local: '2026-07-01T16:00',
      status: 'published',
    });
    expect(open.status).toBe(201);
    expect(open.body.employee).toBeNull();
    const listed = await asUser(t, org.report).get('/shifts?open=true&from=2026-07-01&to=2026-07-01');
    expect(listed.body.data.map((shift: { id: string }) => shift.id)).toContain(open.body.id);
    expectProblem(
      await asUser(t, org.manager).post(`/shifts/${open.body.id}/assign`, { employee: org.report.employeeId }),
      403,
      'forbidden',
    );

    const busy = await admin().post('/shifts', {
      employee,
      start_local: '2026-07-01T12:00',
      end_local: '2026-07-01T18:00',
      status: 'published',
    });
    expect(busy.status).toBe(201);
    expectProblem(await admin().post(`/shifts/${open.body.id}/assign`, { employee }), 409, 'shift_overlap');
    const other = await berliner();
    const assigned = await admin().post(`/shifts/${open.body.id}/assign`, { employee: other });
    expect(assigned.status).toBe(200);
    expect(assigned.body.employee).toMatchObject({ id: String(other) });
    expectProblem(await admin().post(`/shifts/${open.body.id}/assign`, { employee }), 409, 'shift_not_open');
    expect(fields(expectProblem(await admin().post(`/shifts/${open.body.id}/assign`, { nobody: 1 }), 422, 'validation_failed'))).toEqual([
      'employee',
      'nobody',
    ]);
  });

  it('answers 412 to a change with a stale If-Match and writes nothing; a current one passes', async () => {
    const created = await admin().post('/shifts', {
      employee: await berliner(),
      start_local: '2026-08-03T08:00',
      end_local: '2026-08-03T16:00',
    });
    const tag = created.headers.etag as string;
    const changed = await admin().patch(`/shifts/${created.body.id}`, { notes: 'first' }).set('If-Match', tag);
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(tag);
    const stale = await admin().patch(`/shifts/${created.body.id}`, { notes: 'second' }).set('If-Match', tag);
    expectProblem(stale, 412, 'precondition_failed');
    expect((await admin().get(`/shifts/${created.body.id}`)).body.notes).toBe('first');
    expectProblem(await admin().delete(`/shifts/${created.body.id}`).set('If-Match', tag), 412, 'precondition_failed');
  });

  it('moves both local times with a new date, and keeps the shift length', async () => {
    const created = await admin().post('/shifts', {
      employee: await berliner(),
      start_local: '2026-08-10T22:00',
      end_local: '2026-08-11T06:00',
    });
    const moved = await admin().patch(`/shifts/${created.body.id}`, { date: '2026-08-12' });
    expect(moved.body).toMatchObject({
      date: '2026-08-12',
      start_local: '2026-08-12T22:00',
      end_local: '2026-08-13T06:00',
      planned_hours: 8,
    });
  });

  it('lists deleted shifts in GET /shifts/deleted, with the visibility of the live ones', async () => {
    const created = await admin().post('/shifts', {
      employee: org.report.employeeId,
      start_local: '2026-09-01T08:00',
      end_local: '2026-09-01T16:00',
    });
    setClock(t, '2026-03-02T12:00:00.000Z');
    const deleted = await admin().delete(`/shifts/${created.body.id}`);
    expect(deleted.body).toEqual({ id: created.body.id });
    expectProblem(await admin().get(`/shifts/${created.body.id}`), 404, 'not_found');
    const feed = await asUser(t, org.manager).get('/shifts/deleted?since=2026-03-02T00:00:00Z');
    expect(feed.body.data).toContainEqual({ id: created.body.id, deleted_at: '2026-03-02T12:00:00.000Z' });
    const outsider = await asUser(t, org.outsider).get('/shifts/deleted?since=2026-03-02T00:00:00Z');
    expect(outsider.body.data.map((row: { id: string }) => row.id)).not.toContain(created.body.id);
  });

  it('filters the list and refuses a range over 62 days with 400 naming to', async () => {
    const employee = await berliner();
    await admin().post('/shifts', { employee, start_local: '2026-09-10T08:00', end_local: '2026-09-10T16:00', status: 'published' });
    await admin().post('/shifts', { employee, start_local: '2026-09-11T08:00', end_local: '2026-09-11T16:00' });
    const published = await admin().get(`/shifts?employee=${employee}&status=published`);
    expect(published.body.data.map((shift: { date: string }) => shift.date)).toEqual(['2026-09-10']);
    const ranged = await admin().get(`/shifts?employee=${employee}&from=2026-09-11&to=2026-09-30`);
    expect(ranged.body).toMatchObject({ total: 1, nextPage: null });
    const wide = await admin().get('/shifts?from=2026-01-01&to=2026-03-04');
    expect(expectProblem(wide, 400, 'invalid_query').errors).toEqual([
      { field: 'to', message: 'must be at most 61 days after from (62 days, both included)' },
    ]);
    expect((await admin().get('/shifts?from=2026-01-01&to=2026-03-03')).status).toBe(200);
    expectProblem(await admin().get('/shifts?colour=red'), 400, 'invalid_query');
    const tooWide = await admin().post('/shifts/publish', { from: '2026-01-01', to: '2026-03-04' });
    expect(expectProblem(tooWide, 422, 'validation_failed').errors).toEqual([
      { field: 'to', message: 'must be at most 61 days after from (62 days, both included)' },
    ]);
  });

  it('records shift.published, shift.updated and shift.cancelled for subscribers', async () => {
    await createWebhook(
      t.db,
      { url: 'https://93.184.215.14/hooks', events: ['shift.published', 'shift.updated', 'shift.cancelled'] },
      t.clock.now(),
    );
    const created = await admin().post('/shifts', {
      employee: await berliner(),
      start_local: '2026-10-05T08:00',
      end_local: '2026-10-05T16:00',
    });
    const key = `shift:${created.body.id}`;
    const typesOf = async () =>
      (await t.db('webhook_events').where({ resource_key: key }).orderBy('id')).map((row: { type: string }) => row.type);
    expect(await typesOf()).toEqual([]);
    await admin().patch(`/shifts/${created.body.id}`, { status: 'published' });
    await admin().patch(`/shifts/${created.body.id}`, { notes: 'moved desk' });
    await admin().patch(`/shifts/${created.body.id}`, { status: 'cancelled' });
    expect(await typesOf()).toEqual(['shift.published', 'shift.updated', 'shift.cancelled']);
    const updated = await t.db('webhook_events').where({ resource_key: key, type: 'shift.updated' }).first();
    expect(JSON.parse(updated.payload)).toMatchObject({ changed_fields: ['notes'], data: { id: created.body.id, notes: 'moved desk' } });
  });
});

describe.each(testDialects())('/shifts under concurrent requests on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  let baseUrl: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => t.app.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(t.app.address() as AddressInfo).port}`;
  });

  it('lets exactly one of 10 simultaneous overlapping published shifts of one employee through', async () => {
    setClock(t, '2026-03-01T12:00:00.000Z');
    const employee = await createEmployee(t, { timezone: 'Europe/Berlin' });
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        request(baseUrl)
          .post(t.api('/shifts'))
          .auth(org.admin.token, { type: 'bearer' })
          .send({ employee, start_local: `2026-11-02T0${index % 3}:00`, end_local: '2026-11-02T12:00', status: 'published' }),
      ),
    );
    const statuses = responses.map((res) => res.status).sort();
    expect(statuses).toEqual([201, ...Array<number>(9).fill(409)]);
    for (const res of responses.filter((one) => one.status === 409)) expectProblem(res, 409, 'shift_overlap');
    expect(await t.db('shifts').where({ employee_id: employee, status: 'published' })).toHaveLength(1);
  });

  it('lets exactly one of simultaneous publishes and assignments win when they overlap', async () => {
    const employee = await createEmployee(t, { timezone: 'UTC' });
    const draft = await asUser(t, org.admin).post('/shifts', { employee, start_local: '2026-11-03T08:00', end_local: '2026-11-03T16:00' });
    const open = await asUser(t, org.admin).post('/shifts', {
      employee: null,
      timezone: 'UTC',
      start_local: '2026-11-03T10:00',
      end_local: '2026-11-03T18:00',
      status: 'published',
    });
    const send = (path: string, body: object) => request(baseUrl).post(t.api(path)).auth(org.admin.token, { type: 'bearer' }).send(body);
    const responses = await Promise.all([
      send('/shifts/publish', { from: '2026-11-03', to: '2026-11-03', employees: [employee] }),
      send(`/shifts/${open.body.id}/assign`, { employee }),
    ]);
    expect(responses.map((res) => res.status).sort()).toEqual([200, 409]);
    expect(await t.db('shifts').where({ employee_id: employee, status: 'published' })).toHaveLength(1);
    expect(draft.status).toBe(201);
  });
});
