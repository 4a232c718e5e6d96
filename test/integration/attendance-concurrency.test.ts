import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { certifiesWrites } from '../../src/db/connect';
import { asUniqueViolation } from '../../src/db/constraint-errors';
import { attendanceRowsOf, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser, type TestUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useTestApp } from '../helpers/test-app';

interface Pool {
  max: number;
  numUsed(): number;
}

describe.each(testDialects())('attendance under concurrent requests on %s', (dialect) => {
  const t = useTestApp(dialect);
  let admin: TestUser;
  let baseUrl: string;
  beforeAll(async () => {
    admin = await createUser(t, 'admin');
    // One listening server for every request, so that they really arrive side by side.
    await new Promise<void>((resolve) => t.app.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(t.app.address() as AddressInfo).port}`;
  });
  beforeEach(() => setClock(t, '2026-11-20T12:00:00.000Z'));

  const post = (path: string, body: object) => request(baseUrl).post(t.api(path)).auth(admin.token, { type: 'bearer' }).send(body);
  const patch = (path: string, body: object) => request(baseUrl).patch(t.api(path)).auth(admin.token, { type: 'bearer' }).send(body);

  /** Runs the requests at once, and how many pool connections were busy at the same time. */
  async function together<T>(requests: Array<() => PromiseLike<T>>): Promise<{ responses: T[]; peakConnections: number }> {
    const pool = (t.db.client as { pool: Pool }).pool;
    let peakConnections = 0;
    const sampler = setInterval(() => (peakConnections = Math.max(peakConnections, pool.numUsed())), 0);
    try {
      const responses = await Promise.all(requests.map((send) => send()));
      return { responses, peakConnections };
    } finally {
      clearInterval(sampler);
    }
  }

  const statusesOf = (responses: request.Response[]) => responses.map((res) => res.status).sort();

  it('lets exactly one of 20 simultaneous punch-ins for an employee through: one 201, nineteen 409, one open record', async () => {
    const employeeId = await createEmployee(t);

    const { responses, peakConnections } = await together(
      Array.from({ length: 20 }, (_, index) => () => post('/attendance/punch-in', { employee: employeeId, note: `terminal ${index}` })),
    );

    expect(statusesOf(responses)).toEqual([201, ...Array<number>(19).fill(409)]);
    for (const res of responses.filter((r) => r.status === 409)) expectProblem(res, 409, 'already_punched_in');
    const rows = await attendanceRowsOf(t, employeeId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ open_employee_id: employeeId, out_time_utc: null });
    // On MariaDB the requests ran on several connections of the app's pool at once.
    if (dialect === 'mysql') expect(peakConnections).toBeGreaterThan(1);
  });

  it('lets exactly one of 20 simultaneous punch-outs close the record: one 200, nineteen 409 not_punched_in', async () => {
    const employeeId = await createEmployee(t);
    await insertAttendanceRow(t, employeeId, { in: '2026-11-20T08:00:00Z', out: null });

    const { responses } = await together(Array.from({ length: 20 }, () => () => post('/attendance/punch-out', { employee: employeeId })));

    expect(statusesOf(responses)).toEqual([200, ...Array<number>(19).fill(409)]);
    for (const res of responses.filter((r) => r.status === 409)) expectProblem(res, 409, 'not_punched_in');
    expect(await attendanceRowsOf(t, employeeId)).toEqual([
      expect.objectContaining({ out_time_utc: '2026-11-20 12:00:00', open_employee_id: null }),
    ]);
  });

  it('creates one of 10 simultaneous overlapping records and answers the others 409 overlap', async () => {
    const employeeId = await createEmployee(t);

    const { responses } = await together(
      Array.from(
        { length: 10 },
        (_, index) => () =>
          post('/attendance', { employee: employeeId, in_time: `2026-11-19 08:0${index}:00`, out_time: `2026-11-19 16:0${index}:00` }),
      ),
    );

    expect(statusesOf(responses)).toEqual([201, ...Array<number>(9).fill(409)]);
    for (const res of responses.filter((r) => r.status === 409)) expectProblem(res, 409, 'overlap');
    expect(await attendanceRowsOf(t, employeeId)).toHaveLength(1);
  });

  it('lets one of 10 simultaneous corrections move its record into a free slot and refuses the others with 409 overlap', async () => {
    const employeeId = await createEmployee(t);
    const ids: number[] = [];
    for (let day = 1; day <= 10; day++) {
      const date = `2026-10-${String(day).padStart(2, '0')}`;
      ids.push(await insertAttendanceRow(t, employeeId, { in: `${date}T08:00:00Z`, out: `${date}T16:00:00Z` }));
    }

    const { responses } = await together(
      ids.map(
        (id, index) => () => patch(`/attendance/${id}`, { in_time: `2026-11-19 09:0${index}:00`, out_time: `2026-11-19 17:0${index}:00` }),
      ),
    );

    expect(statusesOf(responses)).toEqual([200, ...Array<number>(9).fill(409)]);
    for (const res of responses.filter((r) => r.status === 409)) expectProblem(res, 409, 'overlap');
    const moved = (await attendanceRowsOf(t, employeeId)).filter((row) => String(row.in_time_utc).startsWith('2026-11-19'));
    expect(moved).toHaveLength(1);
  });

  it('stores one of a punch-in and a correction that overlap it, sent at once, for each of 10 employees', async () => {
    setClock(t, '2026-11-20T13:00:00.000Z');
    const employees = await Promise.all(Array.from({ length: 10 }, () => createEmployee(t)));

    const { responses } = await together(
      employees.flatMap((employee) => [
        () => post('/attendance', { employee, in_time: '2026-11-20 10:00:00', out_time: '2026-11-20 12:30:00' }),
        () => post('/attendance/punch-in', { employee, in_time: '2026-11-20 12:00:00' }),
      ]),
    );

    for (const [index, employee] of employees.entries()) {
      const pair = responses.slice(2 * index, 2 * index + 2);
      expect(statusesOf(pair)).toEqual([201, 409]);
      expectProblem(pair.find((res) => res.status === 409) as request.Response, 409, 'overlap');
      expect(await attendanceRowsOf(t, employee)).toHaveLength(1);
    }
  });

  it('punches 20 employees in at once without any failing', async () => {
    const employees = await Promise.all(Array.from({ length: 20 }, () => createEmployee(t)));

    const { responses } = await together(employees.map((employee) => () => post('/attendance/punch-in', { employee })));

    expect(statusesOf(responses)).toEqual(Array<number>(20).fill(201));
  });

  it('writes one punch for 10 simultaneous retries with one Idempotency-Key: the others replay it or are told it is in flight', async () => {
    const employeeId = await createEmployee(t);

    const { responses } = await together(
      Array.from(
        { length: 10 },
        () => () => post('/attendance/punch-in', { employee: employeeId }).set('Idempotency-Key', 'terminal-retry-1'),
      ),
    );

    const firsts = responses.filter((res) => res.status === 201 && res.headers['idempotent-replayed'] === undefined);
    expect(firsts).toHaveLength(1);
    for (const res of responses.filter((r) => r.status !== 201)) expectProblem(res, 409, 'idempotency_key_in_use');
    for (const res of responses.filter((r) => r.status === 201)) expect(res.body).toEqual(firsts[0]?.body);
    expect(await attendanceRowsOf(t, employeeId)).toHaveLength(1);
  });

  it('refuses a second open record in the database itself, whatever the application checks', async () => {
    const employeeId = await createEmployee(t);
    await insertAttendanceRow(t, employeeId, { in: '2026-11-18T08:00:00Z', out: null });

    const second = insertAttendanceRow(t, employeeId, { in: '2026-11-19T08:00:00Z', out: null });

    const error = await second.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(asUniqueViolation(error)?.key).toMatch(/open_employee_id/);
    expect(await attendanceRowsOf(t, employeeId)).toHaveLength(1);
  });

  it("orders one server's attendance writes by the row lock alone: attendance_version, the cluster's write, is left alone", async () => {
    const employeeId = await createEmployee(t);
    expect(await t.db.transaction((trx) => certifiesWrites(trx))).toBe(false);

    const { responses } = await together(Array.from({ length: 5 }, () => () => post('/attendance/punch-in', { employee: employeeId })));
    expect(statusesOf(responses)).toEqual([201, 409, 409, 409, 409]);
    setClock(t, '2026-11-20T13:00:00.000Z');
    expect((await post('/attendance/punch-out', { employee: employeeId })).status).toBe(200);

    expect(Number((await t.db('employees').where({ id: employeeId }).first('attendance_version')).attendance_version)).toBe(0);
  });
});
