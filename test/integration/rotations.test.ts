import { sweepRotations } from '../../src/shifts/rotations/rotation-writes';
import { addDays, daysBetween } from '../../src/time';
import { asUser, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// Rotations (CONTRACT 6.7, docs/schedules.md "Rotations"): generated 90 days ahead exactly once
// per rotation and date, regenerated only where nobody edited and no locked period holds.

describe.each(testDialects())('/rotations on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  const admin = () => asUser(t, org.admin);
  const shiftsOf = async (rotation: string) =>
    (
      await t
        .db('shifts')
        .where({ rotation_id: Number(rotation) })
        .orderBy('date')
        .select('id', 'date', 'status', 'start_local')
    ).map((row: Record<string, unknown>) => ({ ...row, date: String(row.date).slice(0, 10) })) as Array<{
      id: number;
      date: string;
      status: string;
      start_local: string;
    }>;
  let day: string;
  let night: string;

  beforeAll(async () => {
    setClock(t, '2026-03-01T12:00:00.000Z');
    day = (await admin().post('/shift-types', { name: `Day ${dialect}`, start_time: '07:00', end_time: '19:00' })).body.id;
    night = (await admin().post('/shift-types', { name: `Night ${dialect}`, start_time: '19:00', end_time: '07:00' })).body.id;
  });
  beforeEach(() => setClock(t, '2026-03-01T12:00:00.000Z'));

  it('generates a 4-on-4-off cycle over the next 90 days exactly once, and the sweep adds nothing more', async () => {
    const employee = await createEmployee(t, { timezone: 'Europe/Berlin' });
    const res = await admin().post('/rotations', {
      employee,
      anchor_date: '2026-02-27',
      cycle: [day, day, night, night, null, null, null, null],
      publish: true,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      employee: { type: 'Employee', id: String(employee), display: expect.any(String) },
      anchor_date: '2026-02-27',
      cycle: [day, day, night, night, null, null, null, null],
      valid_from: '2026-02-27',
      valid_to: null,
      publish: true,
    });
    const shifts = await shiftsOf(res.body.id);
    const expected: string[] = [];
    for (let offset = 0; offset < 90; offset++) {
      const date = addDays('2026-03-01', offset);
      if (daysBetween('2026-02-27', date) % 8 < 4) expected.push(date);
    }
    expect(shifts.map((shift) => shift.date)).toEqual(expected);
    expect(shifts[0]).toMatchObject({ date: '2026-03-01', start_local: '2026-03-01T19:00', status: 'published' });
    expect(shifts.every((shift) => shift.date >= '2026-03-01' && shift.date <= '2026-05-29')).toBe(true);

    expect(await sweepRotations(t.db, t.clock.now())).toBe(0);
    expect(await shiftsOf(res.body.id)).toHaveLength(expected.length);
    // A day later the sweep adds the one new date (a day off or a shift), once.
    setClock(t, '2026-03-02T12:00:00.000Z');
    await sweepRotations(t.db, t.clock.now());
    await sweepRotations(t.db, t.clock.now());
    const dates = (await shiftsOf(res.body.id)).map((shift) => shift.date);
    expect(new Set(dates).size).toBe(dates.length);
    expect(dates.filter((date) => date === '2026-05-30')).toEqual(daysBetween('2026-02-27', '2026-05-30') % 8 < 4 ? ['2026-05-30'] : []);
  });

  it('regenerates on a change only the future shifts nobody edited, and removes them on delete', async () => {
    const employee = await createEmployee(t, { timezone: 'UTC' });
    const created = await admin().post('/rotations', { employee, anchor_date: '2026-03-01', cycle: [day], valid_to: '2026-03-10' });
    const before = await shiftsOf(created.body.id);
    expect(before.map((shift) => [shift.date, shift.status])[0]).toEqual(['2026-03-01', 'draft']);
    expect(before).toHaveLength(10);
    const edited = before[4]!;
    await admin().patch(`/shifts/${edited.id}`, { notes: 'swapped' });
    await admin().delete(`/shifts/${before[5]!.id}`);

    const changed = await admin().put(`/rotations/${created.body.id}`, {
      employee,
      anchor_date: '2026-03-01',
      cycle: [night],
      valid_to: '2026-03-10',
    });
    expect(changed.status).toBe(200);
    const after = await shiftsOf(created.body.id);
    expect(after.map((shift) => [shift.date, shift.start_local.slice(11)])).toEqual([
      ['2026-03-01', '07:00'],
      ['2026-03-02', '19:00'],
      ['2026-03-03', '19:00'],
      ['2026-03-04', '19:00'],
      ['2026-03-05', '07:00'],
      ['2026-03-06', '19:00'],
      ['2026-03-07', '19:00'],
      ['2026-03-08', '19:00'],
      ['2026-03-09', '19:00'],
      ['2026-03-10', '19:00'],
    ]);
    expect(after[4]!.id).toBe(edited.id);

    const removed = await admin().delete(`/rotations/${created.body.id}`);
    expect(removed.body).toEqual({ id: created.body.id });
    expect((await shiftsOf(created.body.id)).map((shift) => shift.date)).toEqual(['2026-03-01', '2026-03-05']);
    expectProblem(await admin().get(`/rotations/${created.body.id}`), 404, 'not_found');
  });

  it("lets managers manage their direct reports' rotations only, and refuses bad input with 422 naming the field", async () => {
    const manager = asUser(t, org.manager);
    const ok = await manager.post('/rotations', {
      employee: org.report.employeeId,
      anchor_date: '2026-03-01',
      cycle: [null, day],
      valid_to: '2026-03-04',
    });
    expect(ok.status).toBe(201);
    expectProblem(await asUser(t, org.otherManager).get(`/rotations/${ok.body.id}`), 404, 'not_found');
    expectProblem(await asUser(t, org.report).get('/rotations'), 403, 'forbidden');
    const before = Number(((await t.db('rotations').count({ n: '*' }).first()) as { n: number | string }).n);
    const other = await manager.post('/rotations', { employee: org.otherReport.employeeId, anchor_date: '2026-03-01', cycle: [day] });
    expect(expectProblem(other, 422, 'validation_failed').errors).toEqual([
      { field: 'employee', message: 'does not exist, or is not an employee you schedule' },
    ]);
    const bad = await admin().post('/rotations', { employee: org.report.employeeId, anchor_date: '2026-02-30', cycle: [] });
    expect(
      expectProblem(bad, 422, 'validation_failed')
        .errors.map((error: { field: string }) => error.field)
        .sort(),
    ).toEqual(['anchor_date', 'cycle']);
    const long = await admin().post('/rotations', {
      employee: org.report.employeeId,
      anchor_date: '2026-03-01',
      cycle: Array(57).fill(null),
    });
    expect(expectProblem(long, 422, 'validation_failed').errors[0].field).toBe('cycle');
    const unknownType = await admin().post('/rotations', {
      employee: org.report.employeeId,
      anchor_date: '2026-03-01',
      cycle: [null, 99999999],
    });
    expect(expectProblem(unknownType, 422, 'validation_failed').errors).toEqual([
      { field: 'cycle.1', message: 'does not exist: must be the id of a shift type or null' },
    ]);
    expect(Number(((await t.db('rotations').count({ n: '*' }).first()) as { n: number | string }).n)).toBe(before);
  });
});
