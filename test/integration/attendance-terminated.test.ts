import request from 'supertest';
import { asUser, attendanceRowsOf, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser, type TestUser, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The last day is termination_date on the employee's wall clock: for an employee in Tokyo whose
 * last day is 2026-11-19, 2026-11-19T14:59:59Z (23:59:59 there) is still in it, 15:00:00Z is not.
 */
const LAST_SECOND = '2026-11-19T14:59:59Z';
const DAY_AFTER = '2026-11-19T15:00:00Z';

describe.each(testDialects())('punches of terminated employees on %s', (dialect) => {
  let t: TestApp;
  let admin: TestUser;
  beforeAll(async () => {
    t = await startTestApp(dialect);
    admin = await createUser(t, 'admin');
  });
  afterAll(() => t.close());
  beforeEach(() => setClock(t, '2026-11-20T20:00:00.000Z'));

  const leaver = async () => {
    const badge = unique('L');
    const id = await createEmployee(t, {
      timezone: 'Asia/Tokyo',
      status: 'Terminated',
      termination_date: '2026-11-19',
      attendance_device_id: badge,
    });
    return { id, badge };
  };
  const expectTerminated = (res: request.Response, fields: string[]) => {
    const problem = expectProblem(res, 422, 'employee_terminated');
    expect(problem.title).toBe('The employee is terminated');
    expect(problem.errors).toEqual(
      fields.map((field) => ({
        field,
        message: expect.stringMatching(
          /^The employee's last day was 2026-11-19: no punch may fall after it \(this one is on 2026-11-2\d in Asia\/Tokyo\)$/,
        ),
      })),
    );
  };
  const times = async (employeeId: number) =>
    (await attendanceRowsOf(t, employeeId)).map((row) => [
      String(row.in_time_utc).slice(0, 19),
      row.out_time_utc === null ? null : String(row.out_time_utc).slice(0, 19),
    ]);

  it('refuses a punch-in after the last day on their wall clock, now or at a time sent, and takes one on it', async () => {
    const { id } = await leaver();

    expectTerminated(await asUser(t, admin).post('/attendance/punch-in', { employee: id }), ['in_time']);
    expectTerminated(await asUser(t, admin).post('/attendance/punch-in', { employee: id, in_time: DAY_AFTER }), ['in_time']);
    expectTerminated(await asUser(t, admin).post('/attendance/punch-in', { employee: id, in_time: '2026-11-20 00:00:00' }), ['in_time']);
    expect(await times(id)).toEqual([]);
    const backFill = await asUser(t, admin).post('/attendance/punch-in', { employee: id, in_time: '2026-11-19 23:00:00' });

    expect(backFill.status).toBe(201);
    expect(backFill.body).toMatchObject({ in_time: '2026-11-19 23:00:00', timezone: 'Asia/Tokyo' });
  });

  it('refuses a punch-out after the last day, and takes one at its last second', async () => {
    setClock(t, '2026-11-19T16:00:00.000Z');
    const { id } = await leaver();
    await insertAttendanceRow(t, id, { in: '2026-11-19T09:00:00Z', out: null, timezone: 'Asia/Tokyo' });

    expectTerminated(await asUser(t, admin).post('/attendance/punch-out', { employee: id }), ['out_time']);
    expectTerminated(await asUser(t, admin).post('/attendance/punch-out', { employee: id, out_time: DAY_AFTER }), ['out_time']);
    expect(await times(id)).toEqual([['2026-11-19 09:00:00', null]]);
    const closed = await asUser(t, admin).post('/attendance/punch-out', { employee: id, out_time: LAST_SECOND });

    expect(closed.status).toBe(200);
    expect(await times(id)).toEqual([['2026-11-19 09:00:00', '2026-11-19 14:59:59']]);
  });

  it('refuses a record created with a time after the last day, naming each such time', async () => {
    const { id } = await leaver();

    expectTerminated(
      await asUser(t, admin).post('/attendance', { employee: id, in_time: '2026-11-19 22:00:00', out_time: '2026-11-20 01:00:00' }),
      ['out_time'],
    );
    expectTerminated(
      await asUser(t, admin).post('/attendance', { employee: id, in_time: '2026-11-20 08:00:00', out_time: '2026-11-20 17:00:00' }),
      ['in_time', 'out_time'],
    );
    expect(await times(id)).toEqual([]);
    const created = await asUser(t, admin).post('/attendance', {
      employee: id,
      in_time: '2026-11-19 08:00:00',
      out_time: '2026-11-19 17:00:00',
    });

    expect(created.status).toBe(201);
    expect(await times(id)).toEqual([['2026-11-18 23:00:00', '2026-11-19 08:00:00']]);
  });

  it('refuses a correction that moves a time past the last day; other corrections of their records go through', async () => {
    const { id } = await leaver();
    const record = await insertAttendanceRow(t, id, { in: '2026-11-19T00:00:00Z', out: '2026-11-19T08:00:00Z', timezone: 'Asia/Tokyo' });

    expectTerminated(await asUser(t, admin).patch(`/attendance/${record}`, { out_time: '2026-11-20 02:00:00' }), ['out_time']);
    expectTerminated(await asUser(t, admin).put(`/attendance/${record}`, { in_time: DAY_AFTER, out_time: '2026-11-19T16:00:00Z' }), [
      'in_time',
      'out_time',
    ]);
    expect(await times(id)).toEqual([['2026-11-19 00:00:00', '2026-11-19 08:00:00']]);
    const noted = await asUser(t, admin).patch(`/attendance/${record}`, { note: 'Handover' });
    const lengthened = await asUser(t, admin).patch(`/attendance/${record}`, { out_time: '2026-11-19 23:59:59' });

    expect(noted.status).toBe(200);
    expect(lengthened.status).toBe(200);
    expect(await times(id)).toEqual([['2026-11-19 00:00:00', '2026-11-19 14:59:59']]);
  });

  it("rejects a terminal's entries after the last day with employee_terminated and applies the others, back-fill included", async () => {
    const device = await asUser(t, admin).post('/attendance/devices', { name: unique('Door ') });
    const { id, badge } = await leaver();

    const res = await request(t.app)
      .post(t.api('/attendance/punch-logs'))
      .auth(device.body.token, { type: 'bearer' })
      .send({
        entries: [
          { log_id: 't1', attendance_device_id: badge, time: '2026-11-19T00:00:00Z', direction: 'in' },
          { log_id: 't2', attendance_device_id: badge, time: LAST_SECOND, direction: 'out' },
          { log_id: 't3', attendance_device_id: badge, time: DAY_AFTER, direction: 'in' },
          { log_id: 't4', attendance_device_id: badge, time: '2026-11-20 09:00:00', direction: 'out' },
        ],
      });

    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      { log_id: 't1', result: 'created', attendance: expect.stringMatching(/^\d+$/), action: 'opened' },
      { log_id: 't2', result: 'created', attendance: res.body.results[0].attendance, action: 'closed' },
      {
        log_id: 't3',
        result: 'rejected',
        code: 'employee_terminated',
        message: "The employee's last day was 2026-11-19: no punch may fall after it (this one is on 2026-11-20 in Asia/Tokyo)",
      },
      {
        log_id: 't4',
        result: 'rejected',
        code: 'employee_terminated',
        message: expect.stringMatching(/^The employee's last day was 2026-11-19/),
      },
    ]);
    expect(await times(id)).toEqual([['2026-11-19 00:00:00', '2026-11-19 14:59:59']]);
    const [log] = await t.db('attendance_punch_logs').where({ employee_id: id, log_id: 't3' });
    expect(log).toMatchObject({ result: 'rejected', code: 'employee_terminated' });
  });

  it('lets an employee whose termination date lies ahead punch until then', async () => {
    const id = await createEmployee(t, { timezone: 'UTC', termination_date: '2026-12-31' });

    const res = await asUser(t, admin).post('/attendance/punch-in', { employee: id });

    expect(res.status).toBe(201);
  });
});
