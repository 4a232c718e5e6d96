/**
 * @jest-environment ./test/helpers/timezone-environment.js
 * @timezone Asia/Kolkata
 */
import request from 'supertest';
import { SETTING, writeSetting } from '../../src/settings/repository';
import { asUser, attendanceRowsOf, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg, createUser, type TestUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

describe.each(testDialects())('punching in and out on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  beforeEach(() => setClock(t, '2026-11-20T01:02:03.456Z'));

  const punchIn = (user: TestUser, body?: object) => asUser(t, user).post('/attendance/punch-in', body);
  const punchOut = (user: TestUser, body?: object) => asUser(t, user).post('/attendance/punch-out', body);
  const employeeIn = (timezone = 'UTC') => createUser(t, 'employee', { employee: { timezone, first_name: 'Pat', last_name: 'Puncher' } });

  it('runs in the process time zone its docblock sets, so nothing below can lean on UTC', () => {
    expect(new Date(Date.UTC(2026, 0, 1)).getTimezoneOffset()).toBe(-330);
  });

  describe('POST /attendance/punch-in', () => {
    it("opens a record for the caller at the server's time in their zone, with note, position and address", async () => {
      const user = await employeeIn('Asia/Tokyo');

      const res = await punchIn(user, { note: 'Gate 3', latitude: '35.6812', longitude: 139.7671 });

      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(t.api(`/attendance/${res.body.id}`));
      expect(res.body).toEqual({
        id: expect.stringMatching(/^\d+$/),
        employee: { type: 'Employee', id: String(user.employeeId), display: 'Pat Puncher' },
        in_time: '2026-11-20 10:02:03',
        out_time: null,
        note: 'Gate 3',
        out_note: null,
        timezone: 'Asia/Tokyo',
        in_time_utc: '2026-11-20T01:02:03Z',
        out_time_utc: null,
        hours: null,
        latitude: 35.6812,
        longitude: 139.7671,
        out_latitude: null,
        out_longitude: null,
        in_ip: expect.stringMatching(/127\.0\.0\.1$/),
        out_ip: null,
        created_at: '2026-11-20T01:02:03.456Z',
        updated_at: '2026-11-20T01:02:03.456Z',
      });
      expect((await asUser(t, user).get(`/attendance/${res.body.id}`)).body).toEqual(res.body);
      const [row] = await attendanceRowsOf(t, user.employeeId);
      expect(row).toMatchObject({
        in_time_utc: '2026-11-20 01:02:03',
        in_time_local: '2026-11-20 10:02:03',
        open_employee_id: user.employeeId,
      });
    });

    it('accepts a bare POST without body or Content-Type', async () => {
      const user = await employeeIn();

      const res = await request(t.app).post(t.api('/attendance/punch-in')).auth(user.token, { type: 'bearer' });

      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ in_time: '2026-11-20 01:02:03', note: null, latitude: null });
    });

    it("reads in_time as a wall clock in the employee's zone, or as an instant with its offset", async () => {
      const berlin = await employeeIn('Europe/Berlin');
      const newYork = await employeeIn('America/New_York');

      const wall = await punchIn(berlin, { in_time: '2026-11-19 22:30:00' });
      const offset = await punchIn(newYork, { in_time: '2026-11-20T01:00:00+01:00' });

      expect(wall.body).toMatchObject({ in_time: '2026-11-19 22:30:00', in_time_utc: '2026-11-19T21:30:00Z', timezone: 'Europe/Berlin' });
      expect(offset.body).toMatchObject({
        in_time: '2026-11-19 19:00:00',
        in_time_utc: '2026-11-20T00:00:00Z',
        timezone: 'America/New_York',
      });
    });

    it('lets an admin punch anyone in, and a manager themselves and their direct reports', async () => {
      const manager = await createUser(t, 'manager');
      const report = await createEmployee(t, { supervisor_id: manager.employeeId });
      const anyone = await createEmployee(t);

      const admin = await punchIn(org.admin, { employee: anyone });
      const managerSelf = await punchIn(manager);
      const managerReport = await punchIn(manager, { employee: String(report) });

      expect([admin.status, managerSelf.status, managerReport.status]).toEqual([201, 201, 201]);
      expect(admin.body.employee.id).toBe(String(anyone));
      expect(managerSelf.body.employee.id).toBe(String(manager.employeeId));
      expect(managerReport.body.employee.id).toBe(String(report));
    });

    it('answers 404, as for a missing employee, when the caller may not see the employee, and writes nothing', async () => {
      const managerOnOthersReport = await punchIn(org.manager, { employee: org.otherReport.employeeId });
      const employeeOnColleague = await punchIn(org.report, { employee: { type: 'Employee', id: String(org.reportWithoutUser) } });
      const missing = await punchIn(org.admin, { employee: 999999 });

      for (const res of [managerOnOthersReport, employeeOnColleague, missing]) expectProblem(res, 404, 'not_found');
      expect(managerOnOthersReport.body.detail).toBe(missing.body.detail);
      expect(await attendanceRowsOf(t, org.otherReport.employeeId)).toEqual([]);
      expect(await attendanceRowsOf(t, org.reportWithoutUser)).toEqual([]);
    });

    it('answers 422 to a user without an employee record who names no employee', async () => {
      const unlinked = await createUser(t, 'admin', { employee: null });

      const res = await punchIn(unlinked);

      expect(expectProblem(res, 422, 'validation_failed').errors).toEqual([
        { field: 'employee', message: 'is required: your user is not linked to an employee record' },
      ]);
    });

    it('answers 422 listing every invalid field at once, and writes nothing', async () => {
      const user = await employeeIn();

      const res = await punchIn(user, {
        in_time: '2026-13-01 08:00:00',
        note: 12,
        latitude: 91,
        longitude: 'east',
        out_time: '2026-11-20 08:00:00',
      });
      const badEmployee = await punchIn(user, { employee: 'me', in_time: 'soon' });

      expect(expectProblem(res, 422, 'validation_failed').errors).toEqual([
        {
          field: 'in_time',
          message: 'must be a time YYYY-MM-DD HH:MM:SS or an ISO-8601 date-time with an offset, e.g. 2026-03-02T08:00:00+01:00',
        },
        { field: 'note', message: 'must be a string' },
        { field: 'latitude', message: 'must be a number from -90 to 90' },
        { field: 'longitude', message: 'must be a number from -180 to 180' },
        { field: 'out_time', message: 'is not a known field' },
      ]);
      expect(expectProblem(badEmployee, 422, 'validation_failed').errors.map((error: { field: string }) => error.field)).toEqual([
        'employee',
        'in_time',
      ]);
      expect(await attendanceRowsOf(t, user.employeeId)).toEqual([]);
    });

    it('answers 422 for a position with only one coordinate, and for a note over 1000 characters', async () => {
      const user = await employeeIn();

      const half = await punchIn(user, { latitude: 10 });
      const long = await punchIn(user, { note: 'x'.repeat(1001) });

      expect(expectProblem(half, 422, 'validation_failed').errors).toEqual([{ field: 'longitude', message: 'is required with latitude' }]);
      expect(expectProblem(long, 422, 'validation_failed').errors).toEqual([{ field: 'note', message: 'must be at most 1000 characters' }]);
      expect(await attendanceRowsOf(t, user.employeeId)).toEqual([]);
    });

    it('accepts a time up to punch_future_tolerance_seconds ahead and refuses one beyond it', async () => {
      const user = await employeeIn();

      const beyond = await punchIn(user, { in_time: '2026-11-20T01:07:04Z' });
      const within = await punchIn(user, { in_time: '2026-11-20T01:07:03Z' });

      expect(expectProblem(beyond, 422, 'validation_failed').errors).toEqual([
        { field: 'in_time', message: 'must not be more than 300 seconds in the future (punch_future_tolerance_seconds)' },
      ]);
      expect(within.status).toBe(201);
      expect(await attendanceRowsOf(t, user.employeeId)).toHaveLength(1);
    });

    it('answers 409 already_punched_in while the employee has an open record, and writes nothing', async () => {
      const user = await employeeIn();
      const first = await punchIn(user, { in_time: '2026-11-19 08:00:00' });

      const second = await punchIn(user);

      expect(first.status).toBe(201);
      expectProblem(second, 409, 'already_punched_in');
      expect(await attendanceRowsOf(t, user.employeeId)).toHaveLength(1);
    });

    it('answers 409 overlap for a time inside an earlier closed record, or before a later one', async () => {
      const user = await employeeIn();
      await insertAttendanceRow(t, user.employeeId, { in: '2026-11-19T08:00:00Z', out: '2026-11-19T16:00:00Z' });

      const inside = await punchIn(user, { in_time: '2026-11-19 15:59:59' });
      const before = await punchIn(user, { in_time: '2026-11-19 07:00:00' });
      const atTheEnd = await punchIn(user, { in_time: '2026-11-19 16:00:00' });

      expect(expectProblem(inside, 409, 'overlap').detail).toMatch(
        /record \d+ of the employee \(from 2026-11-19T08:00:00Z, until 2026-11-19T16:00:00Z\)/,
      );
      expectProblem(before, 409, 'overlap');
      expect(atTheEnd.status).toBe(201);
      expect(await attendanceRowsOf(t, user.employeeId)).toHaveLength(2);
    });

    it('answers 422 for a wall-clock time the zone skips', async () => {
      const user = await employeeIn('Europe/Berlin');

      const res = await punchIn(user, { in_time: '2026-03-29 02:30:00' });

      expect(expectProblem(res, 422, 'validation_failed').errors).toEqual([
        {
          field: 'in_time',
          message: 'does not exist in Europe/Berlin: the clocks skip it for daylight saving time; send the time with its offset',
        },
      ]);
    });

    it('gives a retry with the same Idempotency-Key the first response and opens no second record', async () => {
      const user = await employeeIn();
      const send = (body: object) => punchIn(user, body).set('Idempotency-Key', 'terminal-7-punch-1');

      const first = await send({ note: 'in' });
      const retry = await send({ note: 'in' });
      const otherBody = await send({ note: 'different' });

      expect(first.status).toBe(201);
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect(retry.headers.location).toBe(first.headers.location);
      expectProblem(otherBody, 422, 'validation_failed');
      expect(await attendanceRowsOf(t, user.employeeId)).toHaveLength(1);
    });

    it('writes an audit row naming the actor, the employee and the times, but not the position or address', async () => {
      const employeeId = await createEmployee(t);

      const res = await punchIn(org.admin, { employee: employeeId, note: 'late bus', latitude: 1, longitude: 2 }).set(
        'X-Request-Id',
        'punch-audit-1',
      );

      const audit = await t.db('audit_log').where({ entity_type: 'attendance', entity_id: Number(res.body.id) });
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({
        action: 'punch_in',
        actor_username: org.admin.username,
        employee_id: employeeId,
        request_id: 'punch-audit-1',
      });
      expect(JSON.parse(audit[0].fields)).toEqual(['in_time', 'note', 'latitude', 'longitude', 'in_ip']);
      expect(JSON.parse(audit[0].changes)).toEqual({
        in_time: { from: null, to: '2026-11-20T01:02:03Z' },
        note: { from: null, to: 'late bus' },
      });
    });
  });

  describe('POST /attendance/punch-out', () => {
    it('closes the open record at the current time, keeping the punch-in note and writing out_note, position and address', async () => {
      const user = await employeeIn('America/New_York');
      const opened = await punchIn(user, { in_time: '2026-11-19 17:30:00', note: 'morning note', latitude: 40.7, longitude: -74 });

      const res = await punchOut(user, { note: 'going home', latitude: '40.75', longitude: '-73.99' });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...opened.body,
        out_time: '2026-11-19 20:02:03',
        out_note: 'going home',
        out_time_utc: '2026-11-20T01:02:03Z',
        // 2 h 32 min 3 s
        hours: 2.53,
        out_latitude: 40.75,
        out_longitude: -73.99,
        out_ip: opened.body.in_ip,
        updated_at: '2026-11-20T01:02:03.456Z',
      });
      expect(res.body.note).toBe('morning note');
      const [row] = await attendanceRowsOf(t, user.employeeId);
      expect(row).toMatchObject({ out_time_utc: '2026-11-20 01:02:03', out_time_local: '2026-11-19 20:02:03', open_employee_id: null });
    });

    it('answers 409 not_punched_in when there is no open record', async () => {
      const user = await employeeIn();
      await insertAttendanceRow(t, user.employeeId, { in: '2026-11-19T08:00:00Z', out: '2026-11-19T16:00:00Z' });

      expectProblem(await punchOut(user), 409, 'not_punched_in');
    });

    it('answers 422 for an out_time not after in_time, longer than max_shift_hours, or beyond the future tolerance, leaving the record open', async () => {
      const user = await employeeIn();
      await punchIn(user, { in_time: '2026-11-19 01:00:00' });

      const equal = await punchOut(user, { out_time: '2026-11-19 01:00:00' });
      const before = await punchOut(user, { out_time: '2026-11-19T00:59:59Z' });
      const tooLong = await punchOut(user, { out_time: '2026-11-20 01:00:01' });
      const future = await punchOut(user, { out_time: '2026-11-20 02:00:00' });

      expect(expectProblem(equal, 422, 'validation_failed').errors).toEqual([{ field: 'out_time', message: 'must be after in_time' }]);
      expect(expectProblem(before, 422, 'validation_failed').errors).toEqual([{ field: 'out_time', message: 'must be after in_time' }]);
      expect(expectProblem(tooLong, 422, 'validation_failed').errors).toEqual([
        { field: 'out_time', message: 'must be at most 24 hours after in_time (max_shift_hours)' },
      ]);
      expect(expectProblem(future, 422, 'validation_failed').errors).toEqual([
        { field: 'out_time', message: 'must not be more than 300 seconds in the future (punch_future_tolerance_seconds)' },
        { field: 'out_time', message: 'must be at most 24 hours after in_time (max_shift_hours)' },
      ]);
      expect(await attendanceRowsOf(t, user.employeeId)).toEqual([
        expect.objectContaining({ out_time_utc: null, open_employee_id: user.employeeId }),
      ]);
      expect((await punchOut(user, { out_time: '2026-11-20 01:00:00' })).body.hours).toBe(24);
    });

    it('follows max_shift_hours as changed in the settings', async () => {
      const user = await employeeIn();
      await writeSetting(t.db, SETTING.maxShiftHours, '8', t.clock.now());
      t.instance.settings.invalidate();
      try {
        await punchIn(user, { in_time: '2026-11-19 12:00:00' });

        const tooLong = await punchOut(user, { out_time: '2026-11-19 20:00:01' });
        const eight = await punchOut(user, { out_time: '2026-11-19 20:00:00' });

        expect(expectProblem(tooLong, 422, 'validation_failed').errors).toEqual([
          { field: 'out_time', message: 'must be at most 8 hours after in_time (max_shift_hours)' },
        ]);
        expect(eight.body.hours).toBe(8);
      } finally {
        await writeSetting(t.db, SETTING.maxShiftHours, '24', t.clock.now());
        t.instance.settings.invalidate();
      }
    });

    it('reads a wall-clock out_time in the zone of the record, even after the employee moved to another zone', async () => {
      const employeeId = await createEmployee(t, { timezone: 'Europe/London' });
      await punchIn(org.admin, { employee: employeeId, in_time: '2026-11-19 09:00:00' });
      await t.db('employees').where({ id: employeeId }).update({ timezone: 'Asia/Kolkata' });

      const res = await punchOut(org.admin, { employee: employeeId, out_time: '2026-11-19 17:00:00' });

      expect(res.body).toMatchObject({
        timezone: 'Europe/London',
        in_time: '2026-11-19 09:00:00',
        out_time: '2026-11-19 17:00:00',
        out_time_utc: '2026-11-19T17:00:00Z',
        hours: 8,
      });
    });

    it("lets a manager punch out a direct report, and answers 404 for another manager's report", async () => {
      const reportId = await createEmployee(t, { supervisor_id: org.manager.employeeId });
      const othersReportId = await createEmployee(t, { supervisor_id: org.otherManager.employeeId });
      await punchIn(org.manager, { employee: reportId, in_time: '2026-11-19 09:00:00' });
      await punchIn(org.admin, { employee: othersReportId, in_time: '2026-11-19 09:00:00' });

      const own = await punchOut(org.manager, { employee: reportId });
      const others = await punchOut(org.manager, { employee: othersReportId });

      expect(own.status).toBe(200);
      expectProblem(others, 404, 'not_found');
      expect(await attendanceRowsOf(t, othersReportId)).toEqual([expect.objectContaining({ out_time_utc: null })]);
    });

    it('writes an audit row of what the punch-out changed', async () => {
      const user = await employeeIn();
      const opened = await punchIn(user, { in_time: '2026-11-19 09:00:00', note: 'in' });

      await punchOut(user, { note: 'out' });

      const rows = await t
        .db('audit_log')
        .where({ entity_type: 'attendance', entity_id: Number(opened.body.id) })
        .orderBy('id');
      expect(rows.map((row) => row.action)).toEqual(['punch_in', 'punch_out']);
      expect(rows[1]).toMatchObject({ actor_username: user.username, employee_id: user.employeeId });
      expect(JSON.parse(rows[1].fields)).toEqual(['out_time', 'out_note', 'out_ip']);
      expect(JSON.parse(rows[1].changes)).toEqual({
        out_time: { from: null, to: '2026-11-20T01:02:03Z' },
        out_note: { from: null, to: 'out' },
      });
    });
  });

  describe("IceHrm's map_lat and map_lng", () => {
    it('are the position of a punch-in and of a punch-out, as strings or numbers', async () => {
      const user = await employeeIn();

      const opened = await punchIn(user, { in_time: '2026-11-19 09:00:00', map_lat: '6.9271', map_lng: '79.8612' });
      const closed = await punchOut(user, { map_lat: 6.93, map_lng: 79.86 });

      expect(opened.status).toBe(201);
      expect(opened.body).toMatchObject({ latitude: 6.9271, longitude: 79.8612, out_latitude: null, out_longitude: null });
      expect(closed.status).toBe(200);
      expect(closed.body).toMatchObject({ latitude: 6.9271, longitude: 79.8612, out_latitude: 6.93, out_longitude: 79.86 });
      const stored = (await attendanceRowsOf(t, user.employeeId)).map((row) =>
        [row.latitude, row.longitude, row.out_latitude, row.out_longitude].map(Number),
      );
      expect(stored).toEqual([[6.9271, 79.8612, 6.93, 79.86]]);
    });

    it('may be sent with latitude and longitude when they say the same', async () => {
      const user = await employeeIn();

      const res = await punchIn(user, { latitude: 10.5, map_lat: '10.5', longitude: '-20', map_lng: -20 });

      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ latitude: 10.5, longitude: -20 });
    });

    it('answer 422 when they differ from latitude or longitude sent beside them, and nothing is written', async () => {
      const user = await employeeIn();

      const res = await punchIn(user, { latitude: 10, map_lat: 11, longitude: 20, map_lng: 20 });
      const both = await punchIn(user, { latitude: 10, map_lat: 11, longitude: 20, map_lng: 21 });

      expect(expectProblem(res, 422, 'validation_failed').errors).toEqual([
        { field: 'map_lat', message: 'must equal latitude when both are sent' },
      ]);
      expect(expectProblem(both, 422, 'validation_failed').errors).toEqual([
        { field: 'map_lat', message: 'must equal latitude when both are sent' },
        { field: 'map_lng', message: 'must equal longitude when both are sent' },
      ]);
      expect(await attendanceRowsOf(t, user.employeeId)).toEqual([]);
    });

    it('answer 422 named as sent: out of range, or one without the other', async () => {
      const user = await employeeIn();
      await punchIn(user, { in_time: '2026-11-19 09:00:00' });

      const range = await punchIn(user, { map_lat: 91, map_lng: 'east' });
      const half = await punchOut(user, { map_lat: 10 });

      expect(expectProblem(range, 422, 'validation_failed').errors).toEqual([
        { field: 'map_lat', message: 'must be a number from -90 to 90' },
        { field: 'map_lng', message: 'must be a number from -180 to 180' },
      ]);
      expect(expectProblem(half, 422, 'validation_failed').errors).toEqual([{ field: 'map_lng', message: 'is required with map_lat' }]);
      expect(await attendanceRowsOf(t, user.employeeId)).toEqual([expect.objectContaining({ out_time_utc: null })]);
    });
  });

  it('answers 405 with Allow for other methods on the punch paths, not a record lookup', async () => {
    const res = await asUser(t, org.admin).get('/attendance/punch-in');

    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('POST');
  });
});
