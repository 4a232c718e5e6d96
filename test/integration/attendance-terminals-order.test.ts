import request from 'supertest';
import { createWebhook } from '../../src/webhooks/subscriptions';
import { asUser, attendanceRowsOf, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser, type TestUser, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { startTestApp, type TestApp } from '../helpers/test-app';

interface Entry {
  log_id: string;
  attendance_device_id?: string;
  employee?: string | number;
  time: string;
  direction?: 'in' | 'out' | 'auto';
}

describe.each(testDialects())('attendance terminals: entries of any batch in time order, exact log ids, on %s', (dialect) => {
  let t: TestApp;
  let admin: TestUser;
  let webhookId: number;
  beforeAll(async () => {
    t = await startTestApp(dialect);
    admin = await createUser(t, 'admin');
    const events = ['attendance.punched_in', 'attendance.punched_out', 'attendance.corrected', 'attendance.deleted'] as const;
    webhookId = (await createWebhook(t.db, { url: 'https://example.com/hook', events: [...events] }, t.clock.now())).subscription.id;
  });
  afterAll(async () => {
    await t.db('webhooks').where({ id: webhookId }).delete();
    await t.close();
  });
  beforeEach(() => setClock(t, '2026-11-20T20:00:00.000Z'));

  const addDevice = async () => {
    const res = await asUser(t, admin).post('/attendance/devices', { name: unique('Door ') });
    expect(res.status).toBe(201);
    return { id: res.body.id as string, token: res.body.token as string };
  };
  const upload = (token: string, entries: Entry[]) =>
    request(t.app).post(t.api('/attendance/punch-logs')).auth(token, { type: 'bearer' }).send({ entries });
  const badged = async () => {
    const badge = unique('B');
    return { id: await createEmployee(t, { attendance_device_id: badge }), badge };
  };
  const times = async (employeeId: number) =>
    (await attendanceRowsOf(t, employeeId)).map((row) => [
      String(row.in_time_utc).slice(0, 19),
      row.out_time_utc === null ? null : String(row.out_time_utc).slice(0, 19),
    ]);
  /** The webhook events of these records, oldest first, as [record id, type, out_time of the data]. */
  const eventsOf = async (ids: number[]) =>
    (
      await t
        .db('webhook_events')
        .whereIn(
          'resource_key',
          ids.map((id) => `attendance:${id}`),
        )
        .orderBy('id')
    ).map((event) => [
      Number(String(event.resource_key).split(':')[1]),
      String(event.type),
      JSON.parse(event.payload).data.out_time ?? null,
    ]);
  const recordIds = async (employeeId: number) => (await attendanceRowsOf(t, employeeId)).map((row) => Number(row.id));

  describe('out of order across batches', () => {
    it('applies an out rejected for want of its in once the in arrives from another terminal; the log shows both results', async () => {
      const outDoor = await addDevice();
      const inDoor = await addDevice();
      const employee = await badged();

      const early = await upload(outDoor.token, [
        { log_id: 'o-1', attendance_device_id: employee.badge, time: '2026-11-20T17:02:00Z', direction: 'out' },
      ]);
      setClock(t, '2026-11-20T20:05:00.000Z');
      const late = await upload(inDoor.token, [
        { log_id: 'i-1', attendance_device_id: employee.badge, time: '2026-11-20T08:02:00Z', direction: 'in' },
      ]);

      expect(early.body.results).toEqual([{ log_id: 'o-1', result: 'rejected', code: 'not_punched_in', message: expect.any(String) }]);
      expect(late.body.results).toEqual([
        { log_id: 'i-1', result: 'created', attendance: expect.stringMatching(/^\d+$/), action: 'opened' },
      ]);
      expect(await times(employee.id)).toEqual([['2026-11-20 08:02:00', '2026-11-20 17:02:00']]);
      const record = Number(late.body.results[0].attendance);
      const log = await asUser(t, admin).get(`/attendance/punch-logs?employee=${employee.id}`);
      expect(log.status).toBe(200);
      expect(
        log.body.data.map((entry: Record<string, unknown>) => [
          entry.log_id,
          entry.result,
          entry.action,
          entry.attendance,
          entry.code,
          entry.first_result,
          entry.first_action,
          entry.first_code,
          entry.changed_at,
        ]),
      ).toEqual([
        ['i-1', 'created', 'opened', String(record), null, 'created', 'opened', null, null],
        ['o-1', 'created', 'closed', String(record), null, 'rejected', null, 'not_punched_in', '2026-11-20T20:05:00.000Z'],
      ]);
      expect((await asUser(t, admin).get(`/attendance/punch-logs?employee=${employee.id}&result=rejected`)).body.data).toEqual([]);
      // Each change of the record once: opened and closed by the second batch.
      expect(await eventsOf([record])).toEqual([
        [record, 'attendance.punched_in', null],
        [record, 'attendance.punched_out', '2026-11-20 17:02:00'],
      ]);

      const again = await upload(inDoor.token, [
        { log_id: 'i-1', attendance_device_id: employee.badge, time: '2026-11-20T08:02:00Z', direction: 'in' },
      ]);
      expect(again.body.results).toEqual([{ log_id: 'i-1', result: 'duplicate' }]);
      expect(await eventsOf([record])).toHaveLength(2);
    });

    it("gives two terminals at one door uploading a day of 50 employees in interleaved batches, outs first, one batch twice, the records of the punches' time order", async () => {
      const inDoor = await addDevice();
      const outDoor = await addDevice();
      const reference = await addDevice();
      const staff = await Promise.all(Array.from({ length: 50 }, () => badged()));
      const twins = await Promise.all(Array.from({ length: 50 }, () => badged()));
      /** One employee's day: the in door's and the out door's readings. */
      const dayOf = (n: number, badge: string) => {
        const at = (hhmm: string, later = 0) =>
          new Date(Date.parse(`2026-11-20T${hhmm}:00Z`) + (n + later) * 1000).toISOString().replace('.000', '');
        const inside: Entry[] = [];
        const outside: Entry[] = [];
        const outsOnly = n % 11 === 3;
        if (!outsOnly) inside.push({ log_id: `${n}-in1`, attendance_device_id: badge, time: at('08:00'), direction: 'in' });
        // The same badge read at the out door 20 seconds later: one punch, seen twice.
        if (n % 5 === 1) outside.push({ log_id: `${n}-again`, attendance_device_id: badge, time: at('08:00', 20), direction: 'auto' });
        // A forgotten lunch punch-out.
        if (n % 7 !== 2) outside.push({ log_id: `${n}-out1`, attendance_device_id: badge, time: at('12:00'), direction: 'out' });
        if (!outsOnly)
          inside.push({ log_id: `${n}-in2`, attendance_device_id: badge, time: at('13:00'), direction: n % 2 === 0 ? 'auto' : 'in' });
        outside.push({ log_id: `${n}-out2`, attendance_device_id: badge, time: at('17:00'), direction: 'out' });
        return { inside, outside };
      };
      const days = staff.map((employee, n) => dayOf(n, employee.badge));
      const half = (parity: number, pick: (day: ReturnType<typeof dayOf>) => Entry[]) =>
        days
          .filter((_, n) => n % 2 === parity)
          .flatMap(pick)
          .reverse();
      const outEven = half(0, (day) => day.outside);
      const inOdd = half(1, (day) => day.inside);
      const outOdd = half(1, (day) => day.outside);
      const inEven = half(0, (day) => day.inside);

      // The out door syncs first for half the staff, the in door first for the other half; the in door sends a batch twice.
      for (const [device, batch] of [
        [outDoor, outEven],
        [inDoor, inOdd],
        [outDoor, outOdd],
        [inDoor, inEven],
      ] as const) {
        const res = await upload(device.token, batch);
        expect(res.status).toBe(200);
        expect(res.body.results).toHaveLength(batch.length);
      }
      const staffRecords = (await Promise.all(staff.map((employee) => recordIds(employee.id)))).flat();
      const eventsBefore = await eventsOf(staffRecords);
      const resent = await upload(inDoor.token, inOdd);
      expect(new Set(resent.body.results.map((result: { result: string }) => result.result))).toEqual(new Set(['duplicate']));
      expect(await eventsOf(staffRecords)).toEqual(eventsBefore);

      // The oracle: the same punches for the twins, in time order in one batch.
      const inTimeOrder = twins.flatMap((twin, n) => {
        const day = dayOf(n, twin.badge);
        return [...day.inside, ...day.outside];
      });
      inTimeOrder.sort((a, b) => a.time.localeCompare(b.time));
      expect((await upload(reference.token, inTimeOrder)).status).toBe(200);

      const outcome = async (employeeId: number) =>
        (await t.db('attendance_punch_logs').where({ employee_id: employeeId }).orderBy('time_utc'))
          .map((log) => `${log.log_id} ${log.result} ${log.action ?? ''} ${log.code ?? ''}`)
          .sort();
      for (const [n, employee] of staff.entries()) {
        const twin = twins[n] as { id: number };
        expect([n, await times(employee.id)]).toEqual([n, await times(twin.id)]);
        expect([n, await outcome(employee.id)]).toEqual([n, await outcome(twin.id)]);
      }
      // Spelled out for a few: an ordinary day, a double read, a forgotten lunch out, outs only.
      expect(await times((staff[4] as { id: number }).id)).toEqual([
        ['2026-11-20 08:00:04', '2026-11-20 12:00:04'],
        ['2026-11-20 13:00:04', '2026-11-20 17:00:04'],
      ]);
      expect(await times((staff[6] as { id: number }).id)).toEqual([
        ['2026-11-20 08:00:06', '2026-11-20 12:00:06'],
        ['2026-11-20 13:00:06', '2026-11-20 17:00:06'],
      ]);
      expect(await outcome((staff[6] as { id: number }).id)).toContain('6-again duplicate  repeated_punch');
      expect(await times((staff[2] as { id: number }).id)).toEqual([['2026-11-20 08:00:02', '2026-11-20 13:00:02']]);
      expect(await times((staff[9] as { id: number }).id)).toEqual([['2026-11-20 08:00:09', '2026-11-20 17:00:09']]);
      expect(await times((staff[3] as { id: number }).id)).toEqual([]);

      // Every record the staff ended with was announced once as punched in, and its last event tells its final times.
      const finalEvents = await eventsOf((await Promise.all(staff.map((employee) => recordIds(employee.id)))).flat());
      for (const employee of staff) {
        for (const row of await attendanceRowsOf(t, employee.id)) {
          const mine = finalEvents.filter(([id]) => id === Number(row.id));
          expect(mine.filter(([, type]) => type === 'attendance.punched_in')).toHaveLength(1);
          expect(mine.at(-1)?.[2]).toBe(row.out_time_local === null ? null : String(row.out_time_local));
        }
      }
      // The evens' outs were rejected first and applied once their ins arrived: both results are in the log.
      const rejectedFirst = await asUser(t, admin).get(`/attendance/punch-logs?employee=${(staff[4] as { id: number }).id}`);
      expect(rejectedFirst.body.data.find((entry: { log_id: string }) => entry.log_id === '4-out2')).toMatchObject({
        result: 'created',
        action: 'closed',
        first_result: 'rejected',
        first_code: 'not_punched_in',
        changed_at: '2026-11-20T20:00:00.000Z',
      });
    });

    it('keeps ids where a record goes on: a double read that opened it gives way to the earlier reading, announced as corrected', async () => {
      const outDoor = await addDevice();
      const inDoor = await addDevice();
      const employee = await badged();

      const first = await upload(outDoor.token, [
        { log_id: 'again', attendance_device_id: employee.badge, time: '2026-11-20T08:00:30Z' },
        { log_id: 'out', attendance_device_id: employee.badge, time: '2026-11-20T17:00:00Z' },
      ]);
      const record = Number(first.body.results[0].attendance);
      const second = await upload(inDoor.token, [
        { log_id: 'in', attendance_device_id: employee.badge, time: '2026-11-20T08:00:00Z', direction: 'in' },
      ]);

      expect(second.body.results).toEqual([{ log_id: 'in', result: 'created', attendance: String(record), action: 'opened' }]);
      expect(await recordIds(employee.id)).toEqual([record]);
      expect(await times(employee.id)).toEqual([['2026-11-20 08:00:00', '2026-11-20 17:00:00']]);
      expect((await eventsOf([record])).map(([, type]) => type)).toEqual([
        'attendance.punched_in',
        'attendance.punched_out',
        'attendance.corrected',
      ]);
      const [again] = await t.db('attendance_punch_logs').where({ employee_id: employee.id, log_id: 'again' });
      expect(again).toMatchObject({ result: 'duplicate', code: 'repeated_punch', first_result: 'created', first_action: 'opened' });
    });

    it('removes a record the log made when its punch turns out to close an earlier one, announced as deleted', async () => {
      const { token } = await addDevice();
      const employee = await badged();
      const first = await upload(token, [
        { log_id: 'evening', attendance_device_id: employee.badge, time: '2026-11-20T17:00:00Z', direction: 'auto' },
      ]);
      const opened = Number(first.body.results[0].attendance);

      const second = await upload(token, [
        { log_id: 'morning', attendance_device_id: employee.badge, time: '2026-11-20T08:00:00Z', direction: 'in' },
      ]);

      const record = Number(second.body.results[0].attendance);
      expect(second.body.results[0]).toMatchObject({ result: 'created', action: 'opened' });
      expect(await times(employee.id)).toEqual([['2026-11-20 08:00:00', '2026-11-20 17:00:00']]);
      expect(await recordIds(employee.id)).toEqual([record]);
      expect(await eventsOf([opened, record])).toEqual([
        [opened, 'attendance.punched_in', null],
        [opened, 'attendance.deleted', null],
        [record, 'attendance.punched_in', null],
        [record, 'attendance.punched_out', '2026-11-20 17:00:00'],
      ]);
      // A copy kept in sync learns of it from the deletion feed too.
      const feed = await asUser(t, admin).get('/attendance/deleted?since=2026-11-20T00:00:00Z&limit=200');
      expect(feed.body.data).toContainEqual({ id: String(opened), deleted_at: '2026-11-20T20:00:00.000Z' });
      const [log] = await t.db('attendance_punch_logs').where({ employee_id: employee.id, log_id: 'evening' });
      expect(log).toMatchObject({
        result: 'created',
        action: 'closed',
        attendance_id: record,
        first_result: 'created',
        first_action: 'opened',
      });
    });

    it('lets the ongoing shift keep its id when an earlier in turns its opening punch into a rejected one', async () => {
      const { token } = await addDevice();
      const employee = await badged();
      const first = await upload(token, [
        { log_id: 'afternoon-in', attendance_device_id: employee.badge, time: '2026-11-20T13:00:00Z', direction: 'in' },
      ]);
      const shift = Number(first.body.results[0].attendance);

      const second = await upload(token, [
        { log_id: 'morning-in', attendance_device_id: employee.badge, time: '2026-11-20T08:00:00Z', direction: 'in' },
      ]);

      expect(second.body.results).toEqual([{ log_id: 'morning-in', result: 'created', attendance: String(shift), action: 'opened' }]);
      expect(await times(employee.id)).toEqual([['2026-11-20 08:00:00', null]]);
      expect((await eventsOf([shift])).map(([, type]) => type)).toEqual(['attendance.punched_in', 'attendance.corrected']);
      const [log] = await t.db('attendance_punch_logs').where({ employee_id: employee.id, log_id: 'afternoon-in' });
      expect(log).toMatchObject({
        result: 'rejected',
        code: 'already_punched_in',
        attendance_id: null,
        first_result: 'created',
        first_action: 'opened',
      });
    });

    it('never rewrites a manual record: a late in that no out closes before it is rejected, as a late in was before', async () => {
      const { token } = await addDevice();
      const employee = await badged();
      const out = await upload(token, [
        { log_id: 'out', attendance_device_id: employee.badge, time: '2026-11-20T17:00:00Z', direction: 'out' },
      ]);
      expect(out.body.results[0]).toMatchObject({ result: 'rejected', code: 'not_punched_in' });
      const manual = await asUser(t, admin).post('/attendance', {
        employee: employee.id,
        in_time: '2026-11-20T12:00:00Z',
        out_time: '2026-11-20T13:00:00Z',
      });
      expect(manual.status).toBe(201);

      const late = await upload(token, [
        { log_id: 'in', attendance_device_id: employee.badge, time: '2026-11-20T08:00:00Z', direction: 'in' },
      ]);

      expect(late.body.results).toEqual([
        {
          log_id: 'in',
          result: 'rejected',
          code: 'overlap',
          message: expect.stringMatching(/No punch-out follows before attendance record/),
        },
      ]);
      expect(await times(employee.id)).toEqual([['2026-11-20 12:00:00', '2026-11-20 13:00:00']]);
      const [log] = await t.db('attendance_punch_logs').where({ employee_id: employee.id, log_id: 'out' });
      expect(log).toMatchObject({ result: 'rejected', code: 'not_punched_in', first_result: null, changed_at: null });
    });

    it('keeps a corrected record as corrected, and does not bring back one an admin deleted', async () => {
      const { token } = await addDevice();
      const employee = await badged();
      const day = await upload(token, [
        { log_id: 'in', attendance_device_id: employee.badge, time: '2026-11-20T08:00:00Z', direction: 'in' },
        { log_id: 'out', attendance_device_id: employee.badge, time: '2026-11-20T17:00:00Z', direction: 'out' },
        { log_id: 'in-2', attendance_device_id: employee.badge, time: '2026-11-20T18:00:00Z', direction: 'in' },
      ]);
      const [worked, evening] = [Number(day.body.results[0].attendance), Number(day.body.results[2].attendance)];
      expect((await asUser(t, admin).patch(`/attendance/${worked}`, { out_time: '2026-11-20T16:00:00Z' })).status).toBe(200);
      expect((await asUser(t, admin).delete(`/attendance/${evening}`)).status).toBe(200);

      const late = await upload(token, [
        { log_id: 'early', attendance_device_id: employee.badge, time: '2026-11-20T07:00:00Z', direction: 'in' },
      ]);

      expect(late.body.results[0]).toMatchObject({ result: 'rejected', code: 'overlap' });
      expect(await times(employee.id)).toEqual([['2026-11-20 08:00:00', '2026-11-20 16:00:00']]);
      const logs = await t.db('attendance_punch_logs').where({ employee_id: employee.id }).orderBy('id');
      expect(logs.map((log) => [log.log_id, log.result, log.changed_at])).toEqual([
        ['in', 'created', null],
        ['out', 'created', null],
        ['in-2', 'created', null],
        ['early', 'rejected', null],
      ]);
    });
  });

  describe('log ids', () => {
    it('compares log ids byte for byte: case, accent, width and normalisation variants are entries of their own, in one batch or two', async () => {
      const { token } = await addDevice();
      const employee = await badged();
      const variants = ['abc', 'ABC', 'Abc', 'é1', 'e1', 'e\u03011', 'É1', 'ａｂｃ', 'ß', 'ss', 'x😀', 'x😁', 'İ', 'i'];
      const entry = (logId: string, hour: number): Entry => ({
        log_id: logId,
        attendance_device_id: employee.badge,
        time: `2026-11-1${Math.floor(hour / 10)}T${String(hour % 10).padStart(2, '0')}:00:00Z`,
        direction: 'auto',
      });
      const firstHalf = variants.slice(0, 7).map((logId, n) => entry(logId, n));
      const secondHalf = variants.slice(7).map((logId, n) => entry(logId, n + 10));

      const one = await upload(token, firstHalf);
      const two = await upload(token, secondHalf);
      const again = await upload(token, [...secondHalf, ...firstHalf]);

      expect(one.status).toBe(200);
      expect(two.status).toBe(200);
      expect(
        [...one.body.results, ...two.body.results].map((result: { log_id: string; result: string }) => [result.log_id, result.result]),
      ).toEqual(variants.map((logId) => [logId, 'created']));
      expect(again.status).toBe(200);
      expect(again.body.results.map((result: { log_id: string; result: string }) => [result.log_id, result.result])).toEqual(
        [...variants.slice(7), ...variants.slice(0, 7)].map((logId) => [logId, 'duplicate']),
      );
      const stored = await t.db('attendance_punch_logs').where({ employee_id: employee.id }).pluck('log_id');
      expect([...stored].sort()).toEqual([...variants].sort());
    });

    it('refuses a log id or badge holding half a surrogate pair with 422 naming the entry, writing nothing; its re-upload too', async () => {
      const { token } = await addDevice();
      const employee = await badged();
      const before = Number(((await t.db('attendance_punch_logs').count({ n: '*' }).first()) as { n: number | string }).n);
      // JSON escapes, as a device's firmware may send them: `logId` and `badge` are inserted as written.
      const body = (logId: string, badge = employee.badge) =>
        `{"entries":[{"log_id":"fine","attendance_device_id":"${badge}","time":"2026-11-20T08:00:00Z"},{"log_id":"${logId}","attendance_device_id":"${badge}","time":"2026-11-20T09:00:00Z"}]}`;
      const send = (raw: string) =>
        request(t.app)
          .post(t.api('/attendance/punch-logs'))
          .auth(token, { type: 'bearer' })
          .set('Content-Type', 'application/json')
          .send(raw);

      const message = 'must be valid Unicode text (it holds half of a UTF-16 surrogate pair)';
      for (const raw of [body('\\ud800q'), body('q\\udc00'), body('\\ud800q')]) {
        expect(expectProblem(await send(raw), 422, 'validation_failed').errors).toEqual([{ field: 'entries.1.log_id', message }]);
      }
      expect(expectProblem(await send(body('ok', '\\udfff')), 422, 'validation_failed').errors).toEqual([
        { field: 'entries.0.attendance_device_id', message },
        { field: 'entries.1.attendance_device_id', message },
      ]);
      expect(Number(((await t.db('attendance_punch_logs').count({ n: '*' }).first()) as { n: number | string }).n)).toBe(before);
      // A whole pair is text like any other.
      expect((await send(body('\\ud83d\\ude00'))).body.results.map((result: { result: string }) => result.result)).toEqual([
        'created',
        'created',
      ]);
    });
  });
});
