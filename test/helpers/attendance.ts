import request from 'supertest';
import { toSqlDateTime } from '../../src/db/sql-time';
import { markAttendanceChanges } from '../../src/period-guard/change-marks';
import { wallClockIn } from '../../src/time';
import type { TestUser } from './factories';
import type { TestApp } from './test-app';

/** Moves the test clock to an instant (settings are re-read at once, whatever the direction). */
export function setClock(t: TestApp, iso: string): void {
  t.clock.advance(Date.parse(iso) - t.clock.now().getTime());
  t.instance.settings.invalidate();
}

/**
 * Inserts an attendance row directly (not through the API). `in`/`out` are UTC instants
 * (ISO-8601 with Z); the local columns are derived in `timezone`.
 */
export async function insertAttendanceRow(
  t: TestApp,
  employeeId: number | null,
  times: { in: string; out: string | null; timezone?: string; note?: string },
): Promise<number> {
  const zone = times.timezone ?? 'UTC';
  const sql = (iso: string) => iso.slice(0, 19).replace('T', ' ');
  const now = toSqlDateTime(t.clock.now());
  const [id] = await t.db('attendance').insert({
    employee_id: employeeId,
    in_time_utc: sql(times.in),
    in_time_local: wallClockIn(zone, new Date(times.in)),
    out_time_utc: times.out === null ? null : sql(times.out),
    out_time_local: times.out === null ? null : wallClockIn(zone, new Date(times.out)),
    timezone: zone,
    note: times.note ?? null,
    open_employee_id: times.out === null ? employeeId : null,
    created_at: now,
    updated_at: now,
  });
  // As every write of the server marks the record's month (an open period's export tag reads the marks).
  if (employeeId !== null) await markAttendanceChanges(t.db, [{ employeeId, dates: [wallClockIn(zone, new Date(times.in)).slice(0, 10)] }]);
  return Number(id);
}

/** The employee's attendance rows as stored, oldest first. */
export async function attendanceRowsOf(t: TestApp, employeeId: number | null): Promise<Array<Record<string, any>>> {
  return t.db('attendance').where({ employee_id: employeeId }).orderBy('in_time_utc');
}

/** Requests as a user, with their bearer token. */
export function asUser(t: TestApp, user: TestUser) {
  const auth = (test: request.Test) => test.auth(user.token, { type: 'bearer' });
  return {
    get: (path: string) => auth(request(t.app).get(t.api(path))),
    post: (path: string, body?: object) =>
      body === undefined ? auth(request(t.app).post(t.api(path))) : auth(request(t.app).post(t.api(path))).send(body),
    put: (path: string, body: object) => auth(request(t.app).put(t.api(path))).send(body),
    patch: (path: string, body: object) => auth(request(t.app).patch(t.api(path))).send(body),
    delete: (path: string) => auth(request(t.app).delete(t.api(path))),
  };
}
