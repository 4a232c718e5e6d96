import request from 'supertest';
import { insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg, type TestUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

const STRONG_TAG = /^"[A-Za-z0-9_-]{22}(\.[A-Za-z0-9_-]{22})?"$/;

describe.each(testDialects())('conditional requests (ETag, If-None-Match, If-Match) on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  beforeEach(() => setClock(t, '2026-11-20T12:00:00.000Z'));

  const send = (
    user: TestUser,
    method: 'get' | 'head' | 'put' | 'patch' | 'delete',
    path: string,
    headers: Record<string, string> = {},
  ) => {
    const test = request(t.app)[method](t.api(path)).auth(user.token, { type: 'bearer' });
    for (const [name, value] of Object.entries(headers)) test.set(name, value);
    return test;
  };
  const later = () => t.clock.advance(1000);
  const employeeRow = (id: number) => t.db('employees').where({ id }).first();
  const auditCount = async (entityType: string, id: number) =>
    Number(((await t.db('audit_log').where({ entity_type: entityType, entity_id: id }).count({ n: '*' }).first()) as { n: number }).n);

  describe('GET and HEAD /employees/{id}', () => {
    it('answers a strong ETag, the same while nothing changes, and 304 without a body for If-None-Match', async () => {
      const id = await createEmployee(t, { first_name: 'Etta' });

      const first = await send(org.admin, 'get', `/employees/${id}`);
      const again = await send(org.admin, 'get', `/employees/${id}`);
      const notModified = await send(org.admin, 'get', `/employees/${id}`, { 'If-None-Match': first.headers.etag as string });

      expect(first.status).toBe(200);
      expect(first.headers.etag).toMatch(STRONG_TAG);
      expect(again.headers.etag).toBe(first.headers.etag);
      expect(notModified.status).toBe(304);
      expect(notModified.text).toBe('');
      expect(notModified.headers.etag).toBe(first.headers.etag);
      expect(notModified.headers['cache-control']).toBe('no-store');
    });

    it('compares If-None-Match weakly, takes lists and *, and answers 200 for another tag', async () => {
      const id = await createEmployee(t);
      const tag = (await send(org.admin, 'get', `/employees/${id}`)).headers.etag as string;

      const weak = await send(org.admin, 'get', `/employees/${id}`, { 'If-None-Match': `W/${tag}` });
      const list = await send(org.admin, 'get', `/employees/${id}`, { 'If-None-Match': `"other", ${tag}` });
      const any = await send(org.admin, 'get', `/employees/${id}`, { 'If-None-Match': '*' });
      const other = await send(org.admin, 'get', `/employees/${id}`, { 'If-None-Match': '"other"' });

      expect([weak.status, list.status, any.status, other.status]).toEqual([304, 304, 304, 200]);
      expect(other.body.id).toBe(String(id));
    });

    it('changes the ETag with every update, and answers the new one with the update', async () => {
      const id = await createEmployee(t, { work_phone: '1' });
      const before = (await send(org.admin, 'get', `/employees/${id}`)).headers.etag as string;
      later();

      const patched = await send(org.admin, 'patch', `/employees/${id}`).send({ work_phone: '2' });
      const after = await send(org.admin, 'get', `/employees/${id}`, { 'If-None-Match': before });

      expect(patched.status).toBe(200);
      expect(patched.headers.etag).toMatch(STRONG_TAG);
      expect(patched.headers.etag).not.toBe(before);
      expect(after.status).toBe(200);
      expect(after.headers.etag).toBe(patched.headers.etag);
      expect(after.body.work_phone).toBe('2');
    });

    it('answers HEAD with the same ETag, and 304 to its If-None-Match', async () => {
      const id = await createEmployee(t);
      const tag = (await send(org.admin, 'get', `/employees/${id}`)).headers.etag as string;

      const head = await send(org.admin, 'head', `/employees/${id}`);
      const notModified = await send(org.admin, 'head', `/employees/${id}`, { 'If-None-Match': tag });

      expect(head.status).toBe(200);
      expect(head.headers.etag).toBe(tag);
      expect(notModified.status).toBe(304);
    });

    it('gives each representation its own tag: a manager reads a report without personal fields, same version', async () => {
      const tagOf = async (user: TestUser) => (await send(user, 'get', `/employees/${org.report.employeeId}`)).headers.etag as string;

      const admin = await tagOf(org.admin);
      const manager = await tagOf(org.manager);
      const self = await tagOf(org.report);

      expect(manager).toMatch(/^"[^".]{22}\.[^".]{22}"$/);
      expect(manager).not.toBe(admin);
      expect(self).toBe(admin);
      expect(manager.slice(1, 23)).toBe(admin.slice(1, 23));
      // The manager's tag is no validator of the admin's representation.
      expect((await send(org.admin, 'get', `/employees/${org.report.employeeId}`, { 'If-None-Match': manager })).status).toBe(200);
    });

    it('changes the ETag when a reference name the employee displays changes', async () => {
      const supervisor = await createEmployee(t, { first_name: 'Sue' });
      const id = await createEmployee(t, { supervisor_id: supervisor });
      const before = (await send(org.admin, 'get', `/employees/${id}`)).headers.etag as string;

      await t.db('employees').where({ id: supervisor }).update({ first_name: 'Susan' });
      const after = await send(org.admin, 'get', `/employees/${id}`);

      expect(after.body.supervisor.display).toMatch(/^Susan /);
      expect(after.headers.etag).not.toBe(before);
    });

    it('answers 404 to an invisible employee whatever If-None-Match says', async () => {
      const res = await send(org.outsider, 'get', `/employees/${org.report.employeeId}`, { 'If-None-Match': '*' });

      expectProblem(res, 404, 'not_found');
    });
  });

  describe('If-Match on PUT, PATCH and DELETE /employees/{id}', () => {
    it.each(['put', 'patch'] as const)('%s writes with the current tag and answers the new one', async (method) => {
      const id = await createEmployee(t, { city: 'Oslo' });
      const tag = (await send(org.admin, 'get', `/employees/${id}`)).headers.etag as string;
      later();

      const res = await send(org.admin, method, `/employees/${id}`, { 'If-Match': tag }).send({ city: 'Bergen' });

      expect(res.status).toBe(200);
      expect(res.body.city).toBe('Bergen');
      expect(res.headers.etag).toBe((await send(org.admin, 'get', `/employees/${id}`)).headers.etag);
    });

    it.each(['put', 'patch'] as const)('%s with a stale tag is 412 precondition_failed and writes nothing', async (method) => {
      const id = await createEmployee(t, { city: 'Oslo' });
      const stale = (await send(org.admin, 'get', `/employees/${id}`)).headers.etag as string;
      later();
      await send(org.admin, 'patch', `/employees/${id}`).send({ city: 'Bergen' });
      const stored = await employeeRow(id);
      const audits = await auditCount('employee', id);
      later();

      const res = await send(org.admin, method, `/employees/${id}`, { 'If-Match': stale }).send({ city: 'Tromso' });

      expectProblem(res, 412, 'precondition_failed');
      expect(await employeeRow(id)).toEqual(stored);
      expect(await auditCount('employee', id)).toBe(audits);
    });

    it('DELETE with a stale tag is 412 and deletes nothing; with the current one it deletes', async () => {
      const id = await createEmployee(t);
      const stale = (await send(org.admin, 'get', `/employees/${id}`)).headers.etag as string;
      later();
      await send(org.admin, 'patch', `/employees/${id}`).send({ work_email: 'moved@example.com' });
      const current = (await send(org.admin, 'get', `/employees/${id}`)).headers.etag as string;

      const refused = await send(org.admin, 'delete', `/employees/${id}`, { 'If-Match': stale });
      const stillThere = await employeeRow(id);
      const tombstones = await t.db('deleted_employees').where({ employee_id: id });
      const deleted = await send(org.admin, 'delete', `/employees/${id}`, { 'If-Match': current });

      expectProblem(refused, 412, 'precondition_failed');
      expect(stillThere).toBeDefined();
      expect(tombstones).toEqual([]);
      expect(deleted.status).toBe(200);
      expect(await employeeRow(id)).toBeUndefined();
    });

    it("accepts the tag of another representation of the same version (a manager's read), * , and refuses weak tags", async () => {
      const id = await createEmployee(t, { supervisor_id: org.manager.employeeId });
      const managersTag = (await send(org.manager, 'get', `/employees/${id}`)).headers.etag as string;
      later();

      const weak = await send(org.admin, 'patch', `/employees/${id}`, { 'If-Match': `W/${managersTag}` }).send({ city: 'A' });
      const garbled = await send(org.admin, 'patch', `/employees/${id}`, { 'If-Match': 'not-a-tag' }).send({ city: 'A' });
      const other = await send(org.admin, 'patch', `/employees/${id}`, { 'If-Match': managersTag }).send({ city: 'B' });
      const any = await send(org.admin, 'patch', `/employees/${id}`, { 'If-Match': '*' }).send({ city: 'C' });

      expectProblem(weak, 412, 'precondition_failed');
      expectProblem(garbled, 412, 'precondition_failed');
      expect(other.status).toBe(200);
      expect(any.status).toBe(200);
      expect((await employeeRow(id)).city).toBe('C');
    });

    it('checks visibility first (404), and the tag before the body (412 before 422)', async () => {
      const id = await createEmployee(t);
      const stale = '"AAAAAAAAAAAAAAAAAAAAAA"';

      const invisible = await send(org.outsider, 'patch', `/employees/${org.report.employeeId}`, { 'If-Match': stale }).send({ city: 'X' });
      const invalid = await send(org.admin, 'patch', `/employees/${id}`, { 'If-Match': stale }).send({ birthday: 'never' });

      expectProblem(invisible, 404, 'not_found');
      expectProblem(invalid, 412, 'precondition_failed');
    });

    it('lets exactly one of two writers with the same tag through, the other 412', async () => {
      for (let round = 0; round < 4; round++) {
        const id = await createEmployee(t, { city: 'Start' });
        const tag = (await send(org.admin, 'get', `/employees/${id}`)).headers.etag as string;
        later();

        const [a, b] = await Promise.all([
          send(org.admin, 'patch', `/employees/${id}`, { 'If-Match': tag }).send({ city: 'A' }),
          send(org.admin, 'put', `/employees/${id}`, { 'If-Match': tag }).send({ city: 'B' }),
        ]);

        expect([a.status, b.status].sort()).toEqual([200, 412]);
        const winner = a.status === 200 ? 'A' : 'B';
        expect((await employeeRow(id)).city).toBe(winner);
        expect(await auditCount('employee', id)).toBe(1);
      }
    });

    it('replays a retried write under its Idempotency-Key instead of checking its now stale tag again', async () => {
      const id = await createEmployee(t);
      const tag = (await send(org.admin, 'get', `/employees/${id}`)).headers.etag as string;
      later();
      const write = () =>
        send(org.admin, 'patch', `/employees/${id}`, { 'If-Match': tag, 'Idempotency-Key': `etag-${id}` }).send({ city: 'Once' });

      const first = await write();
      const retry = await write();

      expect(first.status).toBe(200);
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.headers.etag).toBe(first.headers.etag);
      expect(await auditCount('employee', id)).toBe(1);
    });
  });

  describe('GET, HEAD and the writes of /attendance/{id}', () => {
    const recordOf = async () => {
      const employee = await createEmployee(t, { supervisor_id: org.manager.employeeId });
      const id = await insertAttendanceRow(t, employee, { in: '2026-11-18T08:00:00Z', out: '2026-11-18T16:00:00Z', note: 'n' });
      return { employee, id };
    };
    const attendanceRow = (id: number) => t.db('attendance').where({ id }).first();

    it('answers an ETag, 304 for If-None-Match (also to HEAD), and a new tag after a correction', async () => {
      const { id } = await recordOf();

      const first = await send(org.admin, 'get', `/attendance/${id}`);
      const notModified = await send(org.manager, 'get', `/attendance/${id}`, { 'If-None-Match': first.headers.etag as string });
      const head = await send(org.admin, 'head', `/attendance/${id}`, { 'If-None-Match': first.headers.etag as string });
      later();
      const corrected = await send(org.admin, 'patch', `/attendance/${id}`).send({ note: 'changed' });
      const after = await send(org.admin, 'get', `/attendance/${id}`, { 'If-None-Match': first.headers.etag as string });

      expect(first.status).toBe(200);
      expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect(notModified.status).toBe(304);
      expect(notModified.text).toBe('');
      expect(head.status).toBe(304);
      expect(corrected.status).toBe(200);
      expect(corrected.headers.etag).not.toBe(first.headers.etag);
      expect(after.status).toBe(200);
      expect(after.headers.etag).toBe(corrected.headers.etag);
      expect(after.body.note).toBe('changed');
    });

    it.each(['put', 'patch'] as const)('%s with a stale tag is 412 and writes nothing; with the current one it writes', async (method) => {
      const { id } = await recordOf();
      const stale = (await send(org.admin, 'get', `/attendance/${id}`)).headers.etag as string;
      later();
      await send(org.admin, 'patch', `/attendance/${id}`).send({ note: 'first' });
      const stored = await attendanceRow(id);
      const audits = await auditCount('attendance', id);
      const current = (await send(org.admin, 'get', `/attendance/${id}`)).headers.etag as string;
      later();

      const refused = await send(org.manager, method, `/attendance/${id}`, { 'If-Match': stale }).send({ note: 'second' });
      const unchanged = await attendanceRow(id);
      const accepted = await send(org.manager, method, `/attendance/${id}`, { 'If-Match': current }).send({ note: 'second' });

      expectProblem(refused, 412, 'precondition_failed');
      expect(unchanged).toEqual(stored);
      expect(accepted.status).toBe(200);
      expect(accepted.body.note).toBe('second');
      expect(await auditCount('attendance', id)).toBe(audits + 1);
    });

    it('DELETE with a stale tag is 412 and deletes nothing, no tombstone; with the current one it deletes', async () => {
      const { id } = await recordOf();
      const stale = (await send(org.admin, 'get', `/attendance/${id}`)).headers.etag as string;
      later();
      await send(org.admin, 'patch', `/attendance/${id}`).send({ note: 'first' });
      const current = (await send(org.admin, 'get', `/attendance/${id}`)).headers.etag as string;

      const refused = await send(org.admin, 'delete', `/attendance/${id}`, { 'If-Match': stale });
      const stillThere = await attendanceRow(id);
      const tombstones = await t.db('deleted_attendance').where({ attendance_id: id });
      const deleted = await send(org.admin, 'delete', `/attendance/${id}`, { 'If-Match': current });

      expectProblem(refused, 412, 'precondition_failed');
      expect(stillThere).toBeDefined();
      expect(tombstones).toEqual([]);
      expect(deleted.status).toBe(200);
      expect(await attendanceRow(id)).toBeUndefined();
    });

    it('lets exactly one of two correctors with the same tag through, the other 412', async () => {
      for (let round = 0; round < 4; round++) {
        const { id } = await recordOf();
        const tag = (await send(org.admin, 'get', `/attendance/${id}`)).headers.etag as string;
        later();

        const [a, b] = await Promise.all([
          send(org.admin, 'patch', `/attendance/${id}`, { 'If-Match': tag }).send({ note: 'A' }),
          send(org.manager, 'put', `/attendance/${id}`, { 'If-Match': tag }).send({ note: 'B' }),
        ]);

        expect([a.status, b.status].sort()).toEqual([200, 412]);
        expect((await attendanceRow(id)).note).toBe(a.status === 200 ? 'A' : 'B');
        expect(await auditCount('attendance', id)).toBe(1);
      }
    });

    it('answers 404 to a record of an employee the caller may not see, If-Match or not', async () => {
      const { id } = await recordOf();

      const res = await send(org.otherManager, 'patch', `/attendance/${id}`, { 'If-Match': '*' }).send({ note: 'x' });

      expectProblem(res, 404, 'not_found');
    });
  });
});
