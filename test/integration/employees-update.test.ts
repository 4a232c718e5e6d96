import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { runHrm } from '../helpers/cli';
import { toSqlDateTime } from '../../src/db/sql-time';
import { createEmployee, createUser, storeAsImported, type TestUser, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

describe.each(testDialects())('changing and deleting employees on %s', (dialect) => {
  const t = useTestApp(dialect);
  const admin = useFixture(() => createUser(t, 'admin'));

  const as = (user: TestUser) => ({
    get: (id: number | null) =>
      request(t.app)
        .get(t.api(`/employees/${id}`))
        .auth(user.token, { type: 'bearer' }),
    patch: (id: number | null, body: object) =>
      request(t.app)
        .patch(t.api(`/employees/${id}`))
        .auth(user.token, { type: 'bearer' })
        .send(body),
    put: (id: number | null, body: object) =>
      request(t.app)
        .put(t.api(`/employees/${id}`))
        .auth(user.token, { type: 'bearer' })
        .send(body),
    delete: (id: number | null) =>
      request(t.app)
        .delete(t.api(`/employees/${id}`))
        .auth(user.token, { type: 'bearer' }),
  });
  const auditOf = async (id: number | null) =>
    (await t.db('audit_log').where({ entity_type: 'employee', entity_id: id }).orderBy('id')).map((row) => ({
      action: row.action,
      actor: row.actor_username,
      fields: JSON.parse(row.fields),
      changes: row.changes ? JSON.parse(row.changes) : null,
    }));

  describe('PATCH and PUT', () => {
    it('change only the sent fields; null clears; the change is audited', async () => {
      const id = await createEmployee(t, { city: 'Oslo', work_phone: '+47 1', middle_name: 'Q' });

      const res = await as(admin).patch(id, { work_phone: '+47 2', middle_name: null });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: String(id), city: 'Oslo', work_phone: '+47 2', middle_name: null });
      expect(res.body.updated_at).toBe(t.clock.now().toISOString());
      expect(await auditOf(id)).toEqual([
        {
          action: 'update',
          actor: admin.username,
          fields: ['middle_name', 'work_phone'],
          changes: { middle_name: { from: 'Q', to: null }, work_phone: { from: '+47 1', to: '+47 2' } },
        },
      ]);
    });

    it('treat PUT as a partial update too', async () => {
      const id = await createEmployee(t, { city: 'Rome', gender: 'Female' });

      const res = await as(admin).put(id, { city: 'Milan' });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ city: 'Milan', gender: 'Female' });
    });

    it('accept a read-modify-write round trip of the whole read shape', async () => {
      const supervisor = await createEmployee(t);
      const id = await createEmployee(t, { supervisor_id: supervisor, country_code: 'US', indirect_supervisors: `["${supervisor}"]` });
      const read = (await as(admin).get(id)).body;

      const res = await as(admin).put(id, { ...read, first_name: 'Renamed' });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...read, first_name: 'Renamed', updated_at: res.body.updated_at });
    });

    it('record personal fields in the audit by name only, never their values', async () => {
      const id = await createEmployee(t);

      await as(admin).patch(id, { nic_num: 'NIC-SECRET-1', birthday: '1970-05-05', job_title: null, work_email: 'w@example.com' });
      const [entry] = await auditOf(id);

      expect(entry?.fields).toEqual(['birthday', 'nic_num', 'work_email']);
      expect(entry?.changes).toEqual({ work_email: { from: null, to: 'w@example.com' } });
      expect(JSON.stringify(await t.db('audit_log').where({ entity_id: id }))).not.toMatch(/NIC-SECRET-1|1970-05-05/);
    });

    it('write no audit row when nothing changes', async () => {
      const id = await createEmployee(t, { city: 'Bern' });

      expect((await as(admin).patch(id, { city: 'Bern' })).status).toBe(200);
      expect(await auditOf(id)).toEqual([]);
    });

    it('answer 404 for a missing id and never create it', async () => {
      const before = Number((await t.db('employees').count({ n: '*' }).first())?.n);

      expectProblem(await as(admin).put(999999, { employee_id: 'NEW', first_name: 'A', last_name: 'B' }), 404, 'not_found');
      expect(Number((await t.db('employees').count({ n: '*' }).first())?.n)).toBe(before);
    });

    it('answer 422 for an id in the body that differs from the path, and for invalid fields, writing nothing', async () => {
      const id = await createEmployee(t);
      const before = await t.db('employees').where({ id }).first();

      const mismatch = await as(admin).patch(id, { id: String(id + 1), city: 'X' });
      const invalid = await as(admin).patch(id, { birthday: '2001-02-29', supervisor: String(id), status: 'Gone', unknown: 1 });

      expect(expectProblem(mismatch, 422, 'validation_failed').errors).toEqual([{ field: 'id', message: 'must match the id in the path' }]);
      expect(expectProblem(invalid, 422, 'validation_failed').errors).toEqual([
        { field: 'birthday', message: 'must be a real date YYYY-MM-DD' },
        { field: 'supervisor', message: 'must not be the employee itself' },
        { field: 'status', message: 'must be one of Active, Terminated' },
        { field: 'unknown', message: 'is not a known field' },
      ]);
      expect(await t.db('employees').where({ id }).first()).toEqual(before);
    });

    it('check termination_date against the stored joined_date', async () => {
      const id = await createEmployee(t, { joined_date: '2024-05-01' });

      const res = await as(admin).patch(id, { termination_date: '2024-04-30' });

      expect(expectProblem(res, 422, 'validation_failed').errors).toEqual([
        { field: 'termination_date', message: 'must not be before joined_date' },
      ]);
    });

    it('answer 409 when the new employee_id is taken', async () => {
      const taken = unique('TAKEN');
      await createEmployee(t, { employee_id: taken });
      const id = await createEmployee(t);

      expectProblem(await as(admin).patch(id, { employee_id: taken }), 409, 'duplicate');
    });
  });

  describe('termination and re-activation', () => {
    it("terminating sets today in the employee's time zone, revokes their tokens at once, and is audited", async () => {
      const user = await createUser(t, 'employee', { employee: { timezone: 'Pacific/Kiritimati' } });
      expect((await as(user).get(user.employeeId)).status).toBe(200);

      const res = await as(admin).patch(user.employeeId, { status: 'Terminated' });

      const todayThere = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Kiritimati' }).format(t.clock.now());
      expect(res.body).toMatchObject({ status: 'Terminated', termination_date: todayThere });
      const tokens = await t.db('api_tokens').where({ user_id: user.userId });
      expect(tokens.every((token) => token.revoked_at !== null)).toBe(true);
      expectProblem(await as(user).get(user.employeeId), 401, 'invalid_token');
      expect((await auditOf(user.employeeId)).map((entry) => entry.action)).toEqual(['terminate']);
    });

    it('keeps a termination_date sent with the termination', async () => {
      const id = await createEmployee(t, { joined_date: '2020-01-01' });

      const res = await as(admin).patch(id, { status: 'Terminated', termination_date: '2026-02-28' });

      expect(res.body).toMatchObject({ status: 'Terminated', termination_date: '2026-02-28' });
    });

    it('terminates and re-activates a record read, changed and sent back whole (termination_date null, then the old date)', async () => {
      const id = await createEmployee(t, { joined_date: '2020-01-01' });
      const read = (await as(admin).get(id)).body;

      const terminated = await as(admin).put(id, { ...read, status: 'Terminated' });
      const reactivated = await as(admin).put(id, { ...terminated.body, status: 'Active' });

      const today = new Intl.DateTimeFormat('en-CA', { timeZone: read.timezone }).format(t.clock.now());
      expect(read.termination_date).toBeNull();
      expect(terminated.body).toMatchObject({ status: 'Terminated', termination_date: today });
      expect(reactivated.body).toMatchObject({ status: 'Active', termination_date: null });
    });

    it('re-hires from a record sent back whole with a later joined_date: the old termination date goes, it is not checked', async () => {
      const id = await createEmployee(t, { joined_date: '2019-01-01', status: 'Terminated', termination_date: '2020-05-01' });
      const read = (await as(admin).get(id)).body;

      const res = await as(admin).put(id, { ...read, status: 'Active', joined_date: '2023-01-01' });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'Active', joined_date: '2023-01-01', termination_date: null });
    });

    it('checks dates against what a zero date means (no date), not against its text', async () => {
      const id = await createEmployee(t, { status: 'Terminated', joined_date: '2019-01-01' });
      await storeAsImported(t, id, { termination_date: '0000-00-00' });

      const res = await as(admin).patch(id, { joined_date: '2020-01-01' });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ joined_date: '2020-01-01', termination_date: null });
    });

    it('answers 422 to terminating, without a date, someone who joins after today, and writes nothing', async () => {
      const id = await createEmployee(t, { joined_date: '2099-01-01' });

      const res = await as(admin).patch(id, { status: 'Terminated' });
      const dated = await as(admin).patch(id, { status: 'Terminated', termination_date: '2099-01-01' });

      expect(expectProblem(res, 422, 'validation_failed').errors).toEqual([
        { field: 'termination_date', message: 'must not be before joined_date' },
      ]);
      expect(dated.body).toMatchObject({ status: 'Terminated', termination_date: '2099-01-01' });
    });

    it('answers 422 to clearing the termination date of a terminated employee, and writes nothing', async () => {
      const id = await createEmployee(t, { status: 'Terminated', termination_date: '2024-01-01' });

      const res = await as(admin).patch(id, { termination_date: null, work_phone: '+1 555 0000' });

      expect(expectProblem(res, 422, 'validation_failed').errors).toEqual([
        { field: 'termination_date', message: 'must be set while the status is Terminated' },
      ]);
      expect(await t.db('employees').where({ id }).first('termination_date', 'work_phone')).toEqual({
        termination_date: '2024-01-01',
        work_phone: null,
      });
    });

    it('re-activation by an admin clears the termination date and does not restore tokens', async () => {
      const user = await createUser(t, 'employee');
      await as(admin).patch(user.employeeId, { status: 'Terminated' });

      const res = await as(admin).patch(user.employeeId, { status: 'Active' });

      expect(res.body).toMatchObject({ status: 'Active', termination_date: null });
      expectProblem(await as(user).get(user.employeeId), 401, 'invalid_token');
      expect((await auditOf(user.employeeId)).map((entry) => entry.action)).toEqual(['terminate', 'reactivate']);
    });
  });

  describe('DELETE', () => {
    it('deletes, answers {"id"}, revokes the user\'s tokens, unlinks the user, clears references and is audited', async () => {
      const user = await createUser(t, 'manager');
      const report = await createEmployee(t, {
        supervisor_id: user.employeeId,
        approver1_id: user.employeeId,
        indirect_supervisors: `["${user.employeeId}","7"]`,
      });
      const untouched = await createEmployee(t, { indirect_supervisors: `["${user.employeeId}1"]` });
      t.clock.advance(5_000);
      const since = t.clock.now().toISOString();

      const res = await as(admin).delete(user.employeeId);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: String(user.employeeId) });
      expect(await t.db('employees').where({ id: user.employeeId }).first()).toBeUndefined();
      expect(await t.db('users').where({ id: user.userId }).first('employee_id')).toEqual({ employee_id: null });
      expect((await t.db('api_tokens').where({ user_id: user.userId })).every((token) => token.revoked_at !== null)).toBe(true);
      expect(await t.db('employees').where({ id: report }).first('supervisor_id', 'approver1_id', 'indirect_supervisors')).toEqual({
        supervisor_id: null,
        approver1_id: null,
        indirect_supervisors: '["7"]',
      });
      expect(await auditOf(user.employeeId)).toEqual([
        { action: 'delete', actor: admin.username, fields: [], changes: expect.any(Object) },
      ]);
      // The employees that pointed at them changed too: audited, and found by a sync from before the delete.
      expect(await auditOf(report)).toEqual([
        {
          action: 'update',
          actor: admin.username,
          fields: ['supervisor', 'approver1', 'indirect_supervisors'],
          changes: {
            supervisor: { from: user.employeeId, to: null },
            approver1: { from: user.employeeId, to: null },
            indirect_supervisors: { from: `["${user.employeeId}","7"]`, to: '["7"]' },
          },
        },
      ]);
      expect(await auditOf(untouched)).toEqual([]);
      const synced = await request(t.app)
        .get(t.api(`/employees?updated_since=${encodeURIComponent(since)}`))
        .auth(admin.token, { type: 'bearer' });
      expect(synced.body.data.map((row: { id: string }) => Number(row.id))).toEqual([report]);
      expectProblem(await as(admin).get(user.employeeId), 404, 'not_found');
      expectProblem(await as(admin).delete(user.employeeId), 404, 'not_found');
    });

    it('clears an id list spelt with numbers, as imported, and leaves a malformed one as it is', async () => {
      const gone = await createEmployee(t);
      const listing = await createEmployee(t, { indirect_supervisors: `[${gone}, 7]` });
      const malformed = await createEmployee(t, { supervisor_id: gone, indirect_supervisors: `not json ${gone}` });

      t.clock.advance(5_000);
      expect((await as(admin).delete(gone)).status).toBe(200);

      expect(await t.db('employees').where({ id: listing }).first('indirect_supervisors')).toEqual({ indirect_supervisors: '["7"]' });
      expect(await auditOf(listing)).toEqual([
        {
          action: 'update',
          actor: admin.username,
          fields: ['indirect_supervisors'],
          changes: { indirect_supervisors: { from: `[${gone}, 7]`, to: '["7"]' } },
        },
      ]);
      expect((await auditOf(malformed)).map((entry) => entry.fields)).toEqual([['supervisor']]);
      const moved = await t.db('employees').whereIn('id', [listing, malformed]).select('updated_at');
      expect(moved.map((row) => row.updated_at)).toEqual([toSqlDateTime(t.clock.now()), toSqlDateTime(t.clock.now())]);
      expect(await t.db('employees').where({ id: malformed }).first('supervisor_id', 'indirect_supervisors')).toEqual({
        supervisor_id: null,
        indirect_supervisors: `not json ${gone}`,
      });
    });
  });

  describe('the audit trail', () => {
    it('records creation through the API and shows up in hrm audit tail', async () => {
      const created = await request(t.app)
        .post(t.api('/employees'))
        .auth(admin.token, { type: 'bearer' })
        .set('X-Request-Id', 'audit-create-1')
        .send({ employee_id: unique('AUD'), first_name: 'Aud', last_name: 'It', ssn_num: '999-99-9999' });
      const id = Number(created.body.id);
      await as(admin).patch(id, { work_phone: '+1 555 1111' });

      const tail = await runHrm(t, ['audit', 'tail', '--employee', String(id)]);

      expect(tail.code).toBe(0);
      const lines = tail.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines).toEqual([
        expect.objectContaining({
          action: 'create',
          actor: admin.username,
          entity_id: id,
          request_id: 'audit-create-1',
          fields: ['employee_id', 'first_name', 'last_name', 'ssn_num', 'status', 'timezone'],
        }),
        expect.objectContaining({ action: 'update', fields: ['work_phone'], changes: { work_phone: { from: null, to: '+1 555 1111' } } }),
      ]);
      expect(tail.stdout).not.toContain('999-99-9999');
    });

    it('refuses bad hrm audit tail options', async () => {
      expect(await runHrm(t, ['audit', 'tail', '--employee', 'x'])).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/--employee must be/),
      });
      expect(await runHrm(t, ['audit', 'tail', '--limit', '0'])).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/--limit must be/),
      });
    });
  });
});
