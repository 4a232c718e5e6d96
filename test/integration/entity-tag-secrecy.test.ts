import { createHash } from 'node:crypto';
import request from 'supertest';
import { EMPLOYEE_FIELDS, PERSONAL_FIELDS } from '../../src/employee-records/fields';
import { insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser, employeeColumns, type TestUser } from '../helpers/factories';
import { startTestApp, type TestApp, useFixture, useTestApp } from '../helpers/test-app';

/** How the version part of a tag was made before it was keyed: a bare SHA-256 of the full read shape. */
const unkeyedVersion = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

/** Every day from the start of `from` to the end of `to`, as YYYY-MM-DD. */
function daysOf(from: number, to: number): string[] {
  const days: string[] = [];
  for (let day = Date.UTC(from, 0, 1); day < Date.UTC(to + 1, 0, 1); day += 86_400_000) days.push(new Date(day).toISOString().slice(0, 10));
  return days;
}

/**
 * The admin's view of an employee, rebuilt from what a manager reads and guessed personal
 * values (the others null): the fields in the order of the read shape, restricted_fields gone.
 */
function adminViewFrom(seen: Record<string, unknown>, guessed: Record<string, unknown>): string {
  const personal: Record<string, unknown> = { ...Object.fromEntries(PERSONAL_FIELDS.map((field) => [field, null])), ...guessed };
  const order = ['id', ...EMPLOYEE_FIELDS, 'created_at', 'updated_at'];
  return JSON.stringify(Object.fromEntries(order.map((field) => [field, field in personal ? personal[field] : seen[field]])));
}

describe.each(testDialects())('entity tags reveal nothing of what the reader may not see, on %s', (dialect) => {
  const t = useTestApp(dialect);
  const other = useTestApp(dialect);
  const users = useFixture(async () => {
    const admin = await createUser(t, 'admin');
    const manager = await createUser(t, 'manager');
    return { admin, manager, otherAdmin: await createUser(other, 'admin') };
  });
  beforeEach(() => {
    setClock(t, '2026-11-20T12:00:00.000Z');
    setClock(other, '2026-11-20T12:00:00.000Z');
  });

  const get = (app: TestApp, user: TestUser, path: string) => request(app.app).get(app.api(path)).auth(user.token, { type: 'bearer' });

  it("gives a manager no offline oracle for a report's hidden birthday", async () => {
    const birthday = '1987-06-14';
    const id = await createEmployee(t, { supervisor_id: users.manager.employeeId, birthday });
    const seen = await get(t, users.manager, `/employees/${id}`);
    const [version] = (seen.headers.etag as string).slice(1, -1).split('.');

    // The reconstruction is exact: with the right birthday it is, byte for byte, what the admin reads.
    expect(adminViewFrom(seen.body, { birthday })).toBe((await get(t, users.admin, `/employees/${id}`)).text);
    const found = daysOf(1950, 2010).filter((day) => unkeyedVersion(adminViewFrom(seen.body, { birthday: day })) === version);

    expect(seen.status).toBe(200);
    expect(seen.body.birthday).toBeUndefined();
    expect(found).toEqual([]);
  });

  it('serves different tags for identical rows in two instances, and the same in two servers of one instance', async () => {
    const row = {
      ...employeeColumns({ first_name: 'Twin' }),
      id: 900_001,
      created_at: '2026-11-20 12:00:00',
      updated_at: '2026-11-20 12:00:00',
    };
    await t.db('employees').insert(row);
    await other.db('employees').insert(row);
    const attendance = { in: '2026-11-18T08:00:00Z', out: '2026-11-18T16:00:00Z', note: 'same' };
    const records = [await insertAttendanceRow(t, row.id, attendance), await insertAttendanceRow(other, row.id, attendance)];
    const secondServer = await startTestApp(dialect, { database: t.database });

    try {
      const here = await get(t, users.admin, `/employees/${row.id}`);
      const there = await get(other, users.otherAdmin, `/employees/${row.id}`);
      const sameInstance = await get(secondServer, users.admin, `/employees/${row.id}`);
      const recordHere = await get(t, users.admin, `/attendance/${records[0]}`);
      const recordThere = await get(other, users.otherAdmin, `/attendance/${records[1]}`);

      expect(there.text).toBe(here.text);
      expect(there.headers.etag).not.toBe(here.headers.etag);
      expect(sameInstance.headers.etag).toBe(here.headers.etag);
      expect(recordThere.text.replace(/"id":"\d+"/, '')).toBe(recordHere.text.replace(/"id":"\d+"/, ''));
      expect(recordThere.headers.etag).not.toBe(recordHere.headers.etag);
      expect((recordHere.headers.etag as string).slice(1, -1)).not.toBe(unkeyedVersion(recordHere.text));
    } finally {
      await secondServer.close({ keepDatabase: true });
    }
  });

  it("keeps a manager's tag while nothing changes, and changes it when only a field they cannot see changes", async () => {
    const id = await createEmployee(t, { supervisor_id: users.manager.employeeId, birthday: '1990-01-01' });
    const first = await get(t, users.manager, `/employees/${id}`);
    const again = await get(t, users.manager, `/employees/${id}`);

    // As an import would: the row changes, its updated_at does not, so the manager's body stays the same.
    await t.db('employees').where({ id }).update({ birthday: '1990-01-02' });
    const after = await get(t, users.manager, `/employees/${id}`).set('If-None-Match', first.headers.etag as string);
    const stale = await request(t.app)
      .patch(t.api(`/employees/${id}`))
      .auth(users.manager.token, { type: 'bearer' })
      .set('If-Match', first.headers.etag as string)
      .send({ work_phone: '+1 555' });

    expect(again.headers.etag).toBe(first.headers.etag);
    expect(after.status).toBe(200);
    expect(after.text).toBe(first.text);
    expect(after.headers.etag).not.toBe(first.headers.etag);
    expect(stale.status).toBe(412);
    expect((await t.db('employees').where({ id }).first()).work_phone).toBeNull();
  });
});
