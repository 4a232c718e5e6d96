import request from 'supertest';
import { SETTING, writeSetting } from '../../src/settings/repository';
import { createWebhook } from '../../src/webhooks/subscriptions';
import { asUser, attendanceRowsOf, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser, type TestUser, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

interface Entry {
  log_id: string;
  attendance_device_id?: string;
  employee?: string | number;
  time: string;
  direction?: 'in' | 'out' | 'auto';
}

describe.each(testDialects())('attendance terminals on %s', (dialect) => {
  const t = useTestApp(dialect);
  const admin = useFixture(() => createUser(t, 'admin'));
  beforeEach(() => setClock(t, '2026-11-20T20:00:00.000Z'));

  const addDevice = async (body: object = {}) => {
    const res = await asUser(t, admin).post('/attendance/devices', { name: unique('Door '), ...body });
    expect(res.status).toBe(201);
    return { id: res.body.id as string, token: res.body.token as string };
  };
  const asDevice = (token: string) => ({
    upload: (entries: Entry[] | object) =>
      request(t.app)
        .post(t.api('/attendance/punch-logs'))
        .auth(token, { type: 'bearer' })
        .send(Array.isArray(entries) ? { entries } : entries),
    get: (path: string) => request(t.app).get(t.api(path)).auth(token, { type: 'bearer' }),
  });
  /** An employee with a badge number of their own. */
  const badged = async (timezone = 'UTC') => {
    const badge = unique('B');
    const id = await createEmployee(t, { attendance_device_id: badge, timezone });
    return { id, badge };
  };
  const count = async (table: string) => Number(((await t.db(table).count({ n: '*' }).first()) as { n: number | string }).n);
  const setSetting = async (name: string, value: string) => {
    await writeSetting(t.db, name, value, t.clock.now());
    t.instance.settings.invalidate();
  };
  const times = async (employeeId: number) =>
    (await attendanceRowsOf(t, employeeId)).map((row) => [
      String(row.in_time_utc).slice(0, 19),
      row.out_time_utc === null ? null : String(row.out_time_utc).slice(0, 19),
    ]);

  describe('devices', () => {
    it('creates a device with a token shown once, in the instance time zone by default, and lists and shows it without the token', async () => {
      await setSetting(SETTING.defaultTimezone, 'Europe/Berlin');
      const res = await asUser(t, admin).post('/attendance/devices', { name: 'Front door' });
      await setSetting(SETTING.defaultTimezone, 'UTC');

      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(t.api(`/attendance/devices/${res.body.id}`));
      expect(res.body).toEqual({
        id: expect.stringMatching(/^\d+$/),
        name: 'Front door',
        timezone: 'Europe/Berlin',
        active: true,
        created_at: '2026-11-20T20:00:00.000Z',
        last_used_at: null,
        token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      });
      const { token, ...shown } = res.body;
      expect((await asUser(t, admin).get(`/attendance/devices/${res.body.id}`)).body).toEqual(shown);
      const list = await asUser(t, admin).get('/attendance/devices');
      expect(list.status).toBe(200);
      expect(list.body.data).toContainEqual(shown);
      expect(JSON.stringify(list.body)).not.toContain(token);
      const [row] = await t.db('attendance_devices').where({ id: Number(res.body.id) });
      expect(JSON.stringify(row)).not.toContain(token);
    });

    it('refuses invalid devices with every field listed, writing nothing', async () => {
      const before = await count('attendance_devices');

      const res = await asUser(t, admin).post('/attendance/devices', { name: ' ', timezone: 'Mars/Base', active: 'yes', token: 'x' });

      const problem = expectProblem(res, 422, 'validation_failed');
      expect(problem.errors.map((error: { field: string }) => error.field).sort()).toEqual(['active', 'name', 'timezone', 'token']);
      expect(await count('attendance_devices')).toBe(before);
    });

    it('lets only admins manage devices', async () => {
      const manager = await createUser(t, 'manager');
      const { id } = await addDevice();

      expectProblem(await asUser(t, manager).post('/attendance/devices', { name: 'Mine' }), 403, 'forbidden');
      expectProblem(await asUser(t, manager).get('/attendance/devices'), 403, 'forbidden');
      expectProblem(await asUser(t, manager).delete(`/attendance/devices/${id}`), 403, 'forbidden');
      expect((await asUser(t, admin).get(`/attendance/devices/${id}`)).status).toBe(200);
    });

    it('deletes a device: its token is refused at once, its logs stay', async () => {
      const { id, token } = await addDevice();
      const employee = await badged();
      expect(
        (await asDevice(token).upload([{ log_id: '1', attendance_device_id: employee.badge, time: '2026-11-20T08:00:00Z' }])).status,
      ).toBe(200);

      const res = await asUser(t, admin).delete(`/attendance/devices/${id}`);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id });
      expectProblem(await asUser(t, admin).get(`/attendance/devices/${id}`), 404, 'not_found');
      expectProblem(await asUser(t, admin).delete(`/attendance/devices/${id}`), 404, 'not_found');
      const refused = await asDevice(token).upload([{ log_id: '2', attendance_device_id: employee.badge, time: '2026-11-20T17:00:00Z' }]);
      expect(expectProblem(refused, 401, 'invalid_token').detail).toMatch(/revoked/);
      expect(refused.headers['www-authenticate']).toBe('Bearer realm="hrm", error="invalid_token"');
      expect(await t.db('attendance_punch_logs').where({ device_id: Number(id) })).toHaveLength(1);
      expect(await times(employee.id)).toEqual([['2026-11-20 08:00:00', null]]);
    });

    it('refuses the token of an inactive device', async () => {
      const { token } = await addDevice({ active: false });
      const employee = await badged();

      const res = await asDevice(token).upload([{ log_id: '1', attendance_device_id: employee.badge, time: '2026-11-20T08:00:00Z' }]);

      expect(expectProblem(res, 401, 'invalid_token').detail).toMatch(/not active/);
      expect(await times(employee.id)).toEqual([]);
    });

    it('never accepts a device token on another route', async () => {
      const { token } = await addDevice();
      const records = await count('attendance');
      for (const path of ['/employees', '/employees/me', '/attendance', '/attendance/devices', '/tokens', '/no-such-path']) {
        const res = await asDevice(token).get(path);
        expect(expectProblem(res, 403, 'forbidden').detail).toMatch(/punch logs/);
        expect(res.headers['www-authenticate']).toBe('Bearer realm="hrm", error="insufficient_scope"');
      }
      const punch = await request(t.app).post(t.api('/attendance/punch-in')).auth(token, { type: 'bearer' }).send({});
      expectProblem(punch, 403, 'forbidden');
      expect(await count('attendance')).toBe(records);
    });
  });

  describe('POST /attendance/punch-logs', () => {
    it('applies a day of 50 employees uploaded out of order in three batches, one of them twice, and fires their webhook events', async () => {
      const webhook = await createWebhook(
        t.db,
        { url: 'https://example.com/hook', events: ['attendance.punched_in', 'attendance.punched_out'] },
        t.clock.now(),
      );
      const { token } = await addDevice();
      const employees = await Promise.all(Array.from({ length: 50 }, () => badged()));
      const day: Entry[] = employees.flatMap(({ badge }, n) => {
        const second = String(n).padStart(2, '0');
        return [
          { log_id: `${badge}-1`, attendance_device_id: badge, time: `2026-11-20T08:00:${second}Z`, direction: 'in' as const },
          { log_id: `${badge}-2`, attendance_device_id: badge, time: `2026-11-20T12:00:${second}Z`, direction: 'out' as const },
          { log_id: `${badge}-3`, attendance_device_id: badge, time: `2026-11-20T12:30:${second}Z`, direction: 'in' as const },
          { log_id: `${badge}-4`, attendance_device_id: badge, time: `2026-11-20T17:00:${second}Z`, direction: 'out' as const },
        ];
      });
      // The afternoon arrives first, the morning last; within each batch the order is reversed.
      const afternoon = day.filter((entry) => entry.log_id.endsWith('-3') || entry.log_id.endsWith('-4')).reverse();
      const mornings = day.filter((entry) => entry.log_id.endsWith('-1') || entry.log_id.endsWith('-2')).reverse();
      const batches = [afternoon, mornings.slice(0, 60), mornings.slice(60)];

      const answers = [];
      for (const batch of [batches[0], batches[2], batches[1], batches[2]] as Entry[][]) answers.push(await asDevice(token).upload(batch));

      for (const [n, res] of answers.entries()) {
        expect(res.status).toBe(200);
        const batch = [batches[0], batches[2], batches[1], batches[2]][n] as Entry[];
        expect(res.body.results.map((result: { log_id: string }) => result.log_id)).toEqual(batch.map((entry) => entry.log_id));
        const expected = n === 3 ? [{ result: 'duplicate' }] : [{ result: 'created' }];
        expect(new Set(res.body.results.map((result: { result: string }) => result.result))).toEqual(
          new Set(expected.map((e) => e.result)),
        );
      }
      expect(answers[3]?.body.results[0]).toEqual({ log_id: batches[2]?.[0]?.log_id, result: 'duplicate' });
      const first = answers[0]?.body.results.find((result: { log_id: string }) => result.log_id === `${employees[0]?.badge}-3`);
      expect(first).toEqual({
        log_id: `${employees[0]?.badge}-3`,
        result: 'created',
        attendance: expect.stringMatching(/^\d+$/),
        action: 'opened',
      });

      for (const [n, employee] of employees.entries()) {
        const second = String(n).padStart(2, '0');
        expect(await times(employee.id)).toEqual([
          [`2026-11-20 08:00:${second}`, `2026-11-20 12:00:${second}`],
          [`2026-11-20 12:30:${second}`, `2026-11-20 17:00:${second}`],
        ]);
      }
      expect(
        await t.db('attendance_punch_logs').whereIn(
          'log_id',
          day.map((entry) => entry.log_id),
        ),
      ).toHaveLength(200);
      const events = await t.db('webhook_events').whereIn(
        'resource_key',
        (
          await t
            .db('attendance')
            .whereIn(
              'employee_id',
              employees.map((e) => e.id),
            )
            .pluck('id')
        ).map((id) => `attendance:${id}`),
      );
      expect(events.filter((event) => event.type === 'attendance.punched_in')).toHaveLength(100);
      expect(events.filter((event) => event.type === 'attendance.punched_out')).toHaveLength(100);
      const closed = events.find((event) => event.type === 'attendance.punched_out');
      expect(JSON.parse(closed.payload).data).toMatchObject({ out_time: expect.stringMatching(/^2026-11-20 /), hours: expect.any(Number) });
      await t.db('webhooks').where({ id: webhook.subscription.id }).delete();
    });

    it('takes auto as in without an open record and out with one, and reports the punch after a forgotten punch-out', async () => {
      await setSetting(SETTING.maxShiftHours, '12');
      const { token } = await addDevice();
      const forgetful = await badged();
      const regular = await badged();
      const entries: Entry[] = [
        { log_id: 'a1', attendance_device_id: forgetful.badge, time: '2026-11-19T08:00:00Z' },
        { log_id: 'a2', attendance_device_id: regular.badge, time: '2026-11-19T08:05:00Z', direction: 'auto' },
        { log_id: 'a3', attendance_device_id: regular.badge, time: '2026-11-19T16:05:00Z', direction: 'auto' },
        { log_id: 'a4', attendance_device_id: forgetful.badge, time: '2026-11-20T08:00:00Z', direction: 'auto' },
        { log_id: 'a5', attendance_device_id: regular.badge, time: '2026-11-20T08:10:00Z', direction: 'auto' },
      ];

      const res = await asDevice(token).upload(entries);
      await setSetting(SETTING.maxShiftHours, '24');

      expect(res.status).toBe(200);
      expect(res.body.results).toEqual([
        { log_id: 'a1', result: 'created', attendance: expect.any(String), action: 'opened' },
        { log_id: 'a2', result: 'created', attendance: expect.any(String), action: 'opened' },
        { log_id: 'a3', result: 'created', attendance: res.body.results[1].attendance, action: 'closed' },
        {
          log_id: 'a4',
          result: 'rejected',
          code: 'shift_too_long',
          message: expect.stringMatching(/24 hours long, more than max_shift_hours \(12\).*forgotten/),
        },
        { log_id: 'a5', result: 'created', attendance: expect.any(String), action: 'opened' },
      ]);
      expect(await times(forgetful.id)).toEqual([['2026-11-19 08:00:00', null]]);
      expect(await times(regular.id)).toEqual([
        ['2026-11-19 08:05:00', '2026-11-19 16:05:00'],
        ['2026-11-20 08:10:00', null],
      ]);
      const [log] = await t.db('attendance_punch_logs').where({ log_id: 'a4', employee_id: forgetful.id });
      expect(log).toMatchObject({ result: 'rejected', code: 'shift_too_long', direction: 'auto', time: '2026-11-20T08:00:00Z' });
    });

    it('takes the same punch seen by two terminals at one door once, the earlier reading of each, whichever uploads first', async () => {
      const left = await addDevice();
      const right = await addDevice();
      const employee = await badged();

      const fromLeft = await asDevice(left.token).upload([
        { log_id: '100', attendance_device_id: employee.badge, time: '2026-11-20T08:00:00Z' },
        { log_id: '101', attendance_device_id: employee.badge, time: '2026-11-20T17:00:00Z' },
      ]);
      const fromRight = await asDevice(right.token).upload([
        { log_id: '100', attendance_device_id: employee.badge, time: '2026-11-20T08:00:02Z' },
        { log_id: '101', attendance_device_id: employee.badge, time: '2026-11-20T16:59:30Z' },
      ]);

      expect(fromLeft.body.results.map((result: { result: string }) => result.result)).toEqual(['created', 'created']);
      expect(fromRight.status).toBe(200);
      // In time order the right terminal's 16:59:30 comes first: it closes the record, and the
      // left one's 17:00:00 becomes the repeat.
      expect(fromRight.body.results).toEqual([
        { log_id: '100', result: 'duplicate', code: 'repeated_punch', message: expect.stringMatching(/within 60 seconds/) },
        { log_id: '101', result: 'created', attendance: fromLeft.body.results[0].attendance, action: 'closed' },
      ]);
      expect(await times(employee.id)).toEqual([['2026-11-20 08:00:00', '2026-11-20 16:59:30']]);
      // The same log id from another device is another punch: each device's log is its own.
      const logs = await t.db('attendance_punch_logs').where({ employee_id: employee.id }).orderBy('id');
      expect(logs.map((log) => [log.log_id, log.result, log.code, log.first_result])).toEqual([
        ['100', 'created', null, null],
        ['101', 'duplicate', 'repeated_punch', 'created'],
        ['100', 'duplicate', 'repeated_punch', null],
        ['101', 'created', null, null],
      ]);
    });

    it('rejects entries of unknown employees and applies the others', async () => {
      const { token } = await addDevice();
      const employee = await badged();

      const res = await asDevice(token).upload([
        { log_id: 'u1', attendance_device_id: 'no-such-badge', time: '2026-11-20T08:00:00Z' },
        { log_id: 'u2', employee: 999999, time: '2026-11-20T08:00:00Z' },
        // Badge numbers match regardless of case, on both databases.
        { log_id: 'u3', attendance_device_id: employee.badge.toLowerCase(), time: '2026-11-20T08:00:00Z' },
      ]);

      expect(res.status).toBe(200);
      expect(res.body.results).toEqual([
        { log_id: 'u1', result: 'rejected', code: 'unknown_employee', message: 'No employee has attendance_device_id no-such-badge' },
        { log_id: 'u2', result: 'rejected', code: 'unknown_employee', message: 'No employee has id 999999' },
        { log_id: 'u3', result: 'created', attendance: expect.any(String), action: 'opened' },
      ]);
      const logs = await t.db('attendance_punch_logs').whereIn('log_id', ['u1', 'u2']).orderBy('log_id');
      expect(logs.map((log) => [log.employee_id, log.attendance_device_id, log.result, log.code])).toEqual([
        [null, 'no-such-badge', 'rejected', 'unknown_employee'],
        [null, null, 'rejected', 'unknown_employee'],
      ]);
    });

    it('places late entries between stored records, and reports those that do not fit, applying nothing half', async () => {
      const { token } = await addDevice();
      const employee = await badged();
      await insertAttendanceRow(t, employee.id, { in: '2026-11-20T08:00:00Z', out: '2026-11-20T12:00:00Z' });
      const afternoon = await insertAttendanceRow(t, employee.id, { in: '2026-11-20T13:00:00Z', out: null });

      const res = await asDevice(token).upload([
        { log_id: 'l1', attendance_device_id: employee.badge, time: '2026-11-20T12:10:00Z', direction: 'in' },
        { log_id: 'l2', attendance_device_id: employee.badge, time: '2026-11-20T12:50:00Z', direction: 'out' },
        { log_id: 'l3', attendance_device_id: employee.badge, time: '2026-11-20T11:00:00Z', direction: 'in' },
        { log_id: 'l4', attendance_device_id: employee.badge, time: '2026-11-19T20:00:00Z', direction: 'in' },
        { log_id: 'l5', attendance_device_id: employee.badge, time: '2026-11-20T18:00:00Z', direction: 'out' },
      ]);

      expect(res.body.results).toEqual([
        { log_id: 'l1', result: 'created', attendance: expect.any(String), action: 'opened' },
        { log_id: 'l2', result: 'created', attendance: res.body.results[0].attendance, action: 'closed' },
        { log_id: 'l3', result: 'rejected', code: 'overlap', message: expect.stringMatching(/falls within attendance record/) },
        {
          log_id: 'l4',
          result: 'rejected',
          code: 'overlap',
          message: expect.stringMatching(/No punch-out follows before attendance record/),
        },
        { log_id: 'l5', result: 'created', attendance: String(afternoon), action: 'closed' },
      ]);
      expect(await times(employee.id)).toEqual([
        ['2026-11-20 08:00:00', '2026-11-20 12:00:00'],
        ['2026-11-20 12:10:00', '2026-11-20 12:50:00'],
        ['2026-11-20 13:00:00', '2026-11-20 18:00:00'],
      ]);
    });

    it("reads wall-clock times on the device's clock, and reports skipped and future times", async () => {
      const { token } = await addDevice({ timezone: 'Europe/Berlin' });
      const employee = await badged('Asia/Tokyo');

      const res = await asDevice(token).upload([
        { log_id: 'w1', attendance_device_id: employee.badge, time: '2026-11-20 09:00:00' },
        { log_id: 'w2', attendance_device_id: employee.badge, time: '2026-03-29 02:30:00' },
        { log_id: 'w3', attendance_device_id: employee.badge, time: '2026-11-20T20:10:00Z' },
      ]);

      expect(res.body.results).toEqual([
        { log_id: 'w1', result: 'created', attendance: expect.any(String), action: 'opened' },
        { log_id: 'w2', result: 'rejected', code: 'invalid_time', message: expect.stringMatching(/does not exist in Europe\/Berlin/) },
        { log_id: 'w3', result: 'rejected', code: 'future_time', message: expect.stringMatching(/300 seconds in the future/) },
      ]);
      const [row] = await attendanceRowsOf(t, employee.id);
      expect(row).toMatchObject({ in_time_local: '2026-11-20 17:00:00', timezone: 'Asia/Tokyo' });
      expect(String(row?.in_time_utc).slice(0, 19)).toBe('2026-11-20 08:00:00');
    });

    it('keeps one open record per employee when batches race manual punch-ins', async () => {
      const { token } = await addDevice();
      const employees = await Promise.all(Array.from({ length: 8 }, () => badged()));
      const punchers = await Promise.all(employees.map((employee) => createUser(t, 'employee', { employee: employee.id })));

      const answers = await Promise.all(
        employees.flatMap((employee, n) => [
          asDevice(token).upload([
            { log_id: `race-${employee.badge}`, attendance_device_id: employee.badge, time: '2026-11-20T19:00:00Z', direction: 'in' },
          ]),
          asUser(t, punchers[n] as TestUser).post('/attendance/punch-in', {}),
        ]),
      );

      for (const [n, employee] of employees.entries()) {
        const batch = answers[2 * n];
        const single = answers[2 * n + 1];
        expect(batch?.status).toBe(200);
        const batchOpened = batch?.body.results[0].result === 'created';
        // One of the two opened the record; the other was refused.
        if (batchOpened) expectProblem(single as request.Response, 409, 'already_punched_in');
        else {
          expect(single?.status).toBe(201);
          expect(batch?.body.results[0]).toMatchObject({
            result: 'rejected',
            code: expect.stringMatching(/^(overlap|already_punched_in)$/),
          });
        }
        const rows = await attendanceRowsOf(t, employee.id);
        expect(rows).toHaveLength(1);
        expect(rows[0]?.out_time_utc).toBeNull();
      }
    });

    it('refuses a malformed batch with every problem listed, applying nothing', async () => {
      const { token } = await addDevice();
      const employee = await badged();
      const before = { attendance: await count('attendance'), logs: await count('attendance_punch_logs') };
      const valid = { log_id: 'm0', attendance_device_id: employee.badge, time: '2026-11-20T08:00:00Z' };

      const bad = await asDevice(token).upload([
        valid,
        { time: '2026-11-20T08:00:00Z', attendance_device_id: employee.badge } as Entry,
        { log_id: 'm2', attendance_device_id: employee.badge, employee: employee.id, time: '2026-11-20T08:00:00Z' },
        { log_id: 'm3', time: '2026-11-20T08:00:00Z' },
        { log_id: 'm4', attendance_device_id: employee.badge, time: 'yesterday', direction: 'sideways' } as unknown as Entry,
        { ...valid, log_id: 'm5', extra: 1 } as Entry,
      ]);
      const problem = expectProblem(bad, 422, 'validation_failed');
      expect(problem.errors.map((error: { field: string }) => error.field).sort()).toEqual(
        [
          'entries.1.log_id',
          'entries.2.attendance_device_id',
          'entries.3.attendance_device_id',
          'entries.4.direction',
          'entries.4.time',
          'entries.5.extra',
        ].sort(),
      );
      expect(expectProblem(await asDevice(token).upload([]), 422, 'validation_failed').errors).toEqual([
        { field: 'entries', message: 'must hold at least one entry' },
      ]);
      const tooMany = Array.from({ length: 1001 }, (_, n) => ({ ...valid, log_id: `x${n}` }));
      expect(expectProblem(await asDevice(token).upload(tooMany), 422, 'validation_failed').errors[0].message).toMatch(
        /at most 1000 entries/,
      );
      expectProblem(await asDevice(token).upload({ entries: [valid], device: 1 }), 422, 'validation_failed');
      expectProblem(
        await request(t.app)
          .post(t.api('/attendance/punch-logs'))
          .auth(token, { type: 'bearer' })
          .set('Content-Type', 'application/json')
          .send('[1]'),
        400,
        'invalid_body',
      );
      expect({ attendance: await count('attendance'), logs: await count('attendance_punch_logs') }).toEqual(before);
    });

    it('takes a batch of 1,000 entries (a body larger than BODY_LIMIT)', async () => {
      const { token } = await addDevice();
      const employees = await Promise.all(Array.from({ length: 10 }, () => badged()));
      const entries: Entry[] = Array.from({ length: 1000 }, (_, n) => {
        const employee = employees[n % 10] as { badge: string };
        const punch = Math.floor(n / 10);
        return {
          log_id: `big-${employee.badge}-${punch}`,
          attendance_device_id: employee.badge,
          time: new Date(Date.parse('2026-11-15T00:00:00Z') + punch * 3_600_000).toISOString(),
          direction: 'auto',
        };
      });

      const res = await asDevice(token).upload(entries);

      expect(JSON.stringify({ entries }).length).toBeGreaterThan(t.config.bodyLimitBytes);
      expect(res.status).toBe(200);
      expect(res.body.results.filter((result: { result: string }) => result.result === 'created')).toHaveLength(1000);
      expect(await attendanceRowsOf(t, employees[0]?.id as number)).toHaveLength(50);
    });

    it("lets an admin back-fill by employee id on the employee's wall clock, once per Idempotency-Key; not managers", async () => {
      const manager = await createUser(t, 'manager');
      const employee = await badged('America/New_York');
      const body = { entries: [{ log_id: 'paper-1', employee: String(employee.id), time: '2026-11-20 08:00:00', direction: 'in' }] };

      const first = await asUser(t, admin).post('/attendance/punch-logs', body).set('Idempotency-Key', 'backfill-1');
      const replay = await asUser(t, admin).post('/attendance/punch-logs', body).set('Idempotency-Key', 'backfill-1');
      const again = await asUser(t, admin).post('/attendance/punch-logs', body);

      expect(first.status).toBe(200);
      expect(first.body.results).toEqual([{ log_id: 'paper-1', result: 'created', attendance: expect.any(String), action: 'opened' }]);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(first.body);
      expect(again.body.results).toEqual([{ log_id: 'paper-1', result: 'duplicate' }]);
      expect(await times(employee.id)).toEqual([['2026-11-20 13:00:00', null]]);
      const [log] = await t.db('attendance_punch_logs').where({ log_id: 'paper-1' });
      expect(log).toMatchObject({ device_id: 0, uploaded_by_user_id: admin.userId });
      expectProblem(await asUser(t, manager).post('/attendance/punch-logs', body), 403, 'forbidden');
    });

    it('takes one manual log_id sent by two admins at once, for two employees, once: the other answer is duplicate', async () => {
      const otherAdmin = await createUser(t, 'admin');
      const [first, second] = [await badged(), await badged()];
      const logId = unique('paper-');
      const upload = (user: TestUser, employee: number) =>
        asUser(t, user).post('/attendance/punch-logs', {
          entries: [{ log_id: logId, employee: String(employee), time: '2026-11-20 08:00:00', direction: 'in' }],
        });

      const answers = await Promise.all([upload(admin, first.id), upload(otherAdmin, second.id)]);

      expect(answers.map((res) => res.status)).toEqual([200, 200]);
      expect(answers.map((res) => res.body.results[0].result).sort()).toEqual(['created', 'duplicate']);
      expect(await t.db('attendance_punch_logs').where({ device_id: 0, log_id: logId }).count({ n: '*' }).first()).toEqual({ n: 1 });
      expect((await attendanceRowsOf(t, first.id)).length + (await attendanceRowsOf(t, second.id)).length).toBe(1);
    });
  });

  describe('GET /attendance/punch-logs', () => {
    it('lists the log newest first with filters and keyset pages; a device sees only its own', async () => {
      const mine = await addDevice();
      const other = await addDevice();
      const employee = await badged();
      await asDevice(mine.token).upload([
        { log_id: 'g1', attendance_device_id: employee.badge, time: '2026-11-20T08:00:00Z' },
        { log_id: 'g2', attendance_device_id: 'nobody', time: '2026-11-20T09:00:00Z' },
        { log_id: 'g3', attendance_device_id: employee.badge, time: '2026-11-20T12:00:00Z' },
      ]);
      await asDevice(other.token).upload([{ log_id: 'g9', attendance_device_id: employee.badge, time: '2026-11-20T13:00:00Z' }]);

      const page1 = await asDevice(mine.token).get('/attendance/punch-logs?limit=2');
      expect(page1.status).toBe(200);
      expect(page1.body.data.map((entry: { log_id: string }) => entry.log_id)).toEqual(['g3', 'g2']);
      expect(page1.body).toMatchObject({ total: 3, nextPage: 2, nextBefore: page1.body.data[1].id });
      expect(page1.body.data[0]).toEqual({
        id: expect.any(String),
        device: { type: 'AttendanceDevice', id: mine.id, display: expect.stringMatching(/^Door /) },
        uploaded_by: null,
        log_id: 'g3',
        attendance_device_id: employee.badge,
        employee: String(employee.id),
        time: '2026-11-20T12:00:00Z',
        time_utc: '2026-11-20T12:00:00Z',
        direction: 'auto',
        result: 'created',
        action: 'closed',
        attendance: expect.any(String),
        code: null,
        message: null,
        received_at: '2026-11-20T20:00:00.000Z',
        first_result: 'created',
        first_action: 'closed',
        first_code: null,
        changed_at: null,
      });
      const page2 = await asDevice(mine.token).get(`/attendance/punch-logs?limit=2&before=${page1.body.nextBefore}`);
      expect(page2.body.data.map((entry: { log_id: string }) => entry.log_id)).toEqual(['g1']);
      expect(page2.body.nextBefore).toBeNull();
      expectProblem(await asDevice(mine.token).get(`/attendance/punch-logs?device=${other.id}`), 403, 'forbidden');

      const rejected = await asUser(t, admin).get(`/attendance/punch-logs?device=${mine.id}&result=rejected`);
      expect(rejected.body.data.map((entry: { log_id: string }) => entry.log_id)).toEqual(['g2']);
      const ofEmployee = await asUser(t, admin).get(
        `/attendance/punch-logs?employee=${employee.id}&from=2026-11-20T10:00:00Z&to=2026-11-20T13:00:00Z`,
      );
      expect(ofEmployee.body.data.map((entry: { log_id: string }) => entry.log_id)).toEqual(['g9', 'g3']);
      expectProblem(await asUser(t, admin).get('/attendance/punch-logs?result=maybe&from=soon'), 400, 'invalid_query');
      expectProblem(await asUser(t, await createUser(t, 'manager')).get('/attendance/punch-logs'), 403, 'forbidden');
    });
  });

  describe('attendance_device_id on employees', () => {
    it('is written by admins, unique, and read by admins and the employee themself only', async () => {
      const manager = await createUser(t, 'manager');
      const report = await createUser(t, 'employee', { employee: { supervisor_id: manager.employeeId } });
      const badge = unique('card-');

      const set = await asUser(t, admin).patch(`/employees/${report.employeeId}`, { attendance_device_id: badge });
      expect(set.status).toBe(200);
      expect(set.body.attendance_device_id).toBe(badge);
      expect((await asUser(t, report).get('/employees/me')).body.attendance_device_id).toBe(badge);
      const asManager = await asUser(t, manager).get(`/employees/${report.employeeId}`);
      expect(asManager.body).not.toHaveProperty('attendance_device_id');
      expect(asManager.body.restricted_fields).toContain('attendance_device_id');

      const taken = await asUser(t, admin).patch(`/employees/${manager.employeeId}`, { attendance_device_id: badge.toUpperCase() });
      expect(expectProblem(taken, 409, 'duplicate').errors).toEqual([{ field: 'attendance_device_id', message: 'is already in use' }]);
      expectProblem(
        await asUser(t, manager).patch(`/employees/${report.employeeId}`, { attendance_device_id: 'x' }),
        403,
        'field_not_writable',
      );
      expectProblem(
        await asUser(t, report).patch(`/employees/${report.employeeId}`, { attendance_device_id: 'x' }),
        403,
        'field_not_writable',
      );
      expectProblem(
        await asUser(t, admin).patch(`/employees/${report.employeeId}`, { attendance_device_id: 'x'.repeat(101) }),
        422,
        'validation_failed',
      );
      const [row] = await t.db('employees').where({ id: report.employeeId });
      expect(row.attendance_device_id).toBe(badge);
      const cleared = await asUser(t, admin).patch(`/employees/${report.employeeId}`, { attendance_device_id: '' });
      expect(cleared.body.attendance_device_id).toBeNull();
    });
  });
});
