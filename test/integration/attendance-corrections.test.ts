import request from 'supertest';
import { asUser, attendanceRowsOf, insertAttendanceRow, setClock } from '../helpers/attendance';
import { runHrm } from '../helpers/cli';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg, createUser, type TestUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

describe.each(testDialects())('creating, correcting and deleting attendance records on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  beforeEach(() => setClock(t, '2026-11-20T12:00:00.000Z'));

  const auditOf = async (id: number | string) =>
    (
      await t
        .db('audit_log')
        .where({ entity_type: 'attendance', entity_id: Number(id) })
        .orderBy('id')
    ).map((row) => ({
      action: row.action,
      actor: row.actor_username,
      employee: row.employee_id,
      fields: JSON.parse(row.fields),
      changes: row.changes ? JSON.parse(row.changes) : null,
    }));
  const reportOf = (manager: TestUser, overrides: object = {}) => createEmployee(t, { supervisor_id: manager.employeeId, ...overrides });

  describe('POST /attendance', () => {
    it("creates a complete record in the employee's zone, audited, answering 201 with Location", async () => {
      const employeeId = await createEmployee(t, { timezone: 'Europe/Paris', first_name: 'Cora', last_name: 'Rector' });

      const res = await asUser(t, org.admin).post('/attendance', {
        employee: String(employeeId),
        in_time: '2026-11-18 08:30:00',
        out_time: '2026-11-18T17:15:00+01:00',
        note: 'forgot to punch',
        out_note: 'added by HR',
        latitude: 48.8566,
        longitude: 2.3522,
        out_latitude: '',
        out_longitude: '',
      });

      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(t.api(`/attendance/${res.body.id}`));
      expect(res.body).toEqual({
        id: expect.stringMatching(/^\d+$/),
        employee: { type: 'Employee', id: String(employeeId), display: 'Cora Rector' },
        in_time: '2026-11-18 08:30:00',
        out_time: '2026-11-18 17:15:00',
        note: 'forgot to punch',
        out_note: 'added by HR',
        timezone: 'Europe/Paris',
        in_time_utc: '2026-11-18T07:30:00Z',
        out_time_utc: '2026-11-18T16:15:00Z',
        hours: 8.75,
        latitude: 48.8566,
        longitude: 2.3522,
        out_latitude: null,
        out_longitude: null,
        in_ip: null,
        out_ip: null,
        created_at: '2026-11-20T12:00:00.000Z',
        updated_at: '2026-11-20T12:00:00.000Z',
      });
      expect((await asUser(t, org.admin).get(`/attendance/${res.body.id}`)).body).toEqual(res.body);
      expect(await auditOf(res.body.id)).toEqual([
        {
          action: 'create',
          actor: org.admin.username,
          employee: employeeId,
          fields: ['in_time', 'out_time', 'note', 'out_note', 'latitude', 'longitude'],
          changes: {
            in_time: { from: null, to: '2026-11-18T07:30:00Z' },
            out_time: { from: null, to: '2026-11-18T16:15:00Z' },
            note: { from: null, to: 'forgot to punch' },
            out_note: { from: null, to: 'added by HR' },
          },
        },
      ]);
    });

    it("lets a manager create a direct report's record, but not their own (403) nor another manager's report's (404)", async () => {
      const report = await reportOf(org.manager);
      const body = (employee: number | null) => ({ employee, in_time: '2026-11-17 09:00:00', out_time: '2026-11-17 17:00:00' });

      const forReport = await asUser(t, org.manager).post('/attendance', body(report));
      const forSelf = await asUser(t, org.manager).post('/attendance', body(org.manager.employeeId));
      const forOthers = await asUser(t, org.manager).post('/attendance', body(org.otherReport.employeeId));

      expect(forReport.status).toBe(201);
      expectProblem(forSelf, 403, 'forbidden');
      expectProblem(forOthers, 404, 'not_found');
      expect(await attendanceRowsOf(t, org.manager.employeeId)).toEqual([]);
      expect(await attendanceRowsOf(t, org.otherReport.employeeId)).toEqual([]);
    });

    it("answers an employee 403 for their own records and 404 for anyone else's", async () => {
      const body = (employee: number | null) => ({ employee, in_time: '2026-11-17 09:00:00', out_time: '2026-11-17 17:00:00' });

      expectProblem(await asUser(t, org.report).post('/attendance', body(org.report.employeeId)), 403, 'forbidden');
      expectProblem(await asUser(t, org.report).post('/attendance', body(org.reportWithoutUser)), 404, 'not_found');
      expect(await attendanceRowsOf(t, org.report.employeeId)).toEqual([]);
    });

    it('answers 422 listing every invalid field, and writes nothing', async () => {
      const employeeId = await createEmployee(t);

      const missing = await asUser(t, org.admin).post('/attendance', { note: 'x' });
      const invalid = await asUser(t, org.admin).post('/attendance', {
        id: '5',
        employee: employeeId,
        in_time: '2026-11-17 09:00:00',
        out_time: null,
        out_latitude: 12,
        hours: 8,
      });
      const rules = await asUser(t, org.admin).post('/attendance', {
        employee: employeeId,
        in_time: '2026-11-17 09:00:00',
        out_time: '2026-11-17 08:00:00',
      });
      const tooLong = await asUser(t, org.admin).post('/attendance', {
        employee: employeeId,
        in_time: '2026-11-17 09:00:00',
        out_time: '2026-11-18 09:00:01',
      });
      const future = await asUser(t, org.admin).post('/attendance', {
        employee: employeeId,
        in_time: '2026-11-20 11:00:00',
        out_time: '2026-11-20 12:05:01',
      });

      expect(expectProblem(missing, 422, 'validation_failed').errors).toEqual([
        { field: 'employee', message: 'is required' },
        { field: 'in_time', message: 'is required' },
        { field: 'out_time', message: 'is required' },
      ]);
      expect(expectProblem(invalid, 422, 'validation_failed').errors).toEqual([
        { field: 'id', message: 'must not be sent when creating an attendance record' },
        {
          field: 'out_time',
          message: 'must be a time YYYY-MM-DD HH:MM:SS or an ISO-8601 date-time with an offset, e.g. 2026-03-02T08:00:00+01:00',
        },
        { field: 'hours', message: 'is not a known field' },
        { field: 'out_longitude', message: 'is required with out_latitude' },
      ]);
      expect(expectProblem(rules, 422, 'validation_failed').errors).toEqual([{ field: 'out_time', message: 'must be after in_time' }]);
      expect(expectProblem(tooLong, 422, 'validation_failed').errors).toEqual([
        { field: 'out_time', message: 'must be at most 24 hours after in_time (max_shift_hours)' },
      ]);
      expect(expectProblem(future, 422, 'validation_failed').errors).toEqual([
        { field: 'out_time', message: 'must not be more than 300 seconds in the future (punch_future_tolerance_seconds)' },
      ]);
      expect(await attendanceRowsOf(t, employeeId)).toEqual([]);
    });

    it('answers 409 overlap for a record over an existing one, and 415 for a body that is not JSON', async () => {
      const employeeId = await createEmployee(t);
      await insertAttendanceRow(t, employeeId, { in: '2026-11-17T09:00:00Z', out: '2026-11-17T17:00:00Z' });

      const overlapping = await asUser(t, org.admin).post('/attendance', {
        employee: employeeId,
        in_time: '2026-11-17 16:00:00',
        out_time: '2026-11-17 18:00:00',
      });
      const notJson = await request(t.app)
        .post(t.api('/attendance'))
        .auth(org.admin.token, { type: 'bearer' })
        .type('form')
        .send('employee=1');

      expectProblem(overlapping, 409, 'overlap');
      expectProblem(notJson, 415, 'unsupported_media_type');
      expect(await attendanceRowsOf(t, employeeId)).toHaveLength(1);
    });

    it('replays a retry with the same Idempotency-Key and creates one record', async () => {
      const employeeId = await createEmployee(t);
      const send = () =>
        asUser(t, org.admin)
          .post('/attendance', { employee: employeeId, in_time: '2026-11-16 09:00:00', out_time: '2026-11-16 17:00:00' })
          .set('Idempotency-Key', 'create-record-1');

      const first = await send();
      const retry = await send();

      expect(first.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect(await attendanceRowsOf(t, employeeId)).toHaveLength(1);
    });
  });

  describe('PUT and PATCH /attendance/{id}', () => {
    it("change only the sent fields, read wall-clock times in the record's zone, and are audited", async () => {
      const employeeId = await createEmployee(t, { timezone: 'Asia/Kolkata' });
      const id = await insertAttendanceRow(t, employeeId, {
        in: '2026-11-17T03:30:00Z',
        out: '2026-11-17T11:30:00Z',
        timezone: 'Asia/Kolkata',
        note: 'kept',
      });

      const res = await asUser(t, org.admin).patch(`/attendance/${id}`, { out_time: '2026-11-17 18:30:00', out_note: 'left late' });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        in_time: '2026-11-17 09:00:00',
        out_time: '2026-11-17 18:30:00',
        out_time_utc: '2026-11-17T13:00:00Z',
        hours: 9.5,
        note: 'kept',
        out_note: 'left late',
        updated_at: '2026-11-20T12:00:00.000Z',
      });
      expect(await auditOf(id)).toEqual([
        {
          action: 'update',
          actor: org.admin.username,
          employee: employeeId,
          fields: ['out_time', 'out_note'],
          changes: { out_time: { from: '2026-11-17T11:30:00Z', to: '2026-11-17T13:00:00Z' }, out_note: { from: null, to: 'left late' } },
        },
      ]);
    });

    it('accept a read-modify-write round trip of the whole read shape', async () => {
      const employeeId = await createEmployee(t);
      const id = await insertAttendanceRow(t, employeeId, { in: '2026-11-16T09:00:00Z', out: '2026-11-16T17:00:00Z' });
      const read = (await asUser(t, org.admin).get(`/attendance/${id}`)).body;

      const res = await asUser(t, org.admin).put(`/attendance/${id}`, { ...read, in_time: '2026-11-16 08:00:00', note: 'early' });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...read,
        in_time: '2026-11-16 08:00:00',
        in_time_utc: '2026-11-16T08:00:00Z',
        note: 'early',
        hours: 9,
        updated_at: '2026-11-20T12:00:00.000Z',
      });
    });

    it('answer 422 for an id or employee that differs from the record, writing nothing', async () => {
      const employeeId = await createEmployee(t);
      const id = await insertAttendanceRow(t, employeeId, { in: '2026-11-16T09:00:00Z', out: '2026-11-16T17:00:00Z' });
      const before = await attendanceRowsOf(t, employeeId);

      const res = await asUser(t, org.admin).patch(`/attendance/${id}`, { id: String(id + 1), employee: org.admin.employeeId, note: 'x' });

      expect(expectProblem(res, 422, 'validation_failed').errors).toEqual([
        { field: 'id', message: 'must match the id in the path' },
        { field: 'employee', message: "must be the record's employee: a record does not move to another employee" },
      ]);
      expect(await attendanceRowsOf(t, employeeId)).toEqual(before);
    });

    it("let a manager correct a direct report's record; not their own (403), nor another manager's report's (404, as missing)", async () => {
      const report = await reportOf(org.manager);
      const reportRecord = await insertAttendanceRow(t, report, { in: '2026-11-16T09:00:00Z', out: '2026-11-16T17:00:00Z' });
      const ownRecord = await insertAttendanceRow(t, org.manager.employeeId, { in: '2026-11-16T09:00:00Z', out: '2026-11-16T17:00:00Z' });
      const othersRecord = await insertAttendanceRow(t, org.otherReport.employeeId, {
        in: '2026-11-16T09:00:00Z',
        out: '2026-11-16T17:00:00Z',
      });
      const fix = { out_time: '2026-11-16 16:00:00' };

      const onReport = await asUser(t, org.manager).patch(`/attendance/${reportRecord}`, fix);
      const onOwn = await asUser(t, org.manager).put(`/attendance/${ownRecord}`, fix);
      const onOthers = await asUser(t, org.manager).patch(`/attendance/${othersRecord}`, fix);
      const missing = await asUser(t, org.manager).patch('/attendance/999999', fix);

      expect(onReport.body.out_time).toBe('2026-11-16 16:00:00');
      expectProblem(onOwn, 403, 'forbidden');
      expectProblem(onOthers, 404, 'not_found');
      expect(onOthers.body.detail).toBe(expectProblem(missing, 404, 'not_found').detail);
      expect((await attendanceRowsOf(t, org.manager.employeeId))[0]?.out_time_utc).toBe('2026-11-16 17:00:00');
      expect((await attendanceRowsOf(t, org.otherReport.employeeId))[0]?.out_time_utc).toBe('2026-11-16 17:00:00');
      await t.db('attendance').whereIn('id', [ownRecord, othersRecord]).delete();
    });

    it("answer an employee 403 on their own record and 404 on someone else's", async () => {
      const employee = await createUser(t, 'employee');
      const own = await insertAttendanceRow(t, employee.employeeId, { in: '2026-11-16T09:00:00Z', out: '2026-11-16T17:00:00Z' });
      const colleague = await insertAttendanceRow(t, await createEmployee(t), { in: '2026-11-16T09:00:00Z', out: '2026-11-16T17:00:00Z' });

      expectProblem(await asUser(t, employee).patch(`/attendance/${own}`, { note: 'mine' }), 403, 'forbidden');
      expectProblem(await asUser(t, employee).patch(`/attendance/${colleague}`, { note: 'theirs' }), 404, 'not_found');
    });

    it('reopen a record when out_time is null, unless another record is open (409 already_punched_in)', async () => {
      const employeeId = await createEmployee(t);
      const closed = await insertAttendanceRow(t, employeeId, { in: '2026-11-19T09:00:00Z', out: '2026-11-19T17:00:00Z' });
      const older = await insertAttendanceRow(t, employeeId, { in: '2026-11-18T09:00:00Z', out: '2026-11-18T17:00:00Z' });

      const reopened = await asUser(t, org.admin).patch(`/attendance/${closed}`, { out_time: null });
      const second = await asUser(t, org.admin).patch(`/attendance/${older}`, { out_time: null });

      expect(reopened.body).toMatchObject({ out_time: null, out_time_utc: null, hours: null });
      expectProblem(second, 409, 'already_punched_in');
      const rows = await attendanceRowsOf(t, employeeId);
      expect(rows.map((row) => row.open_employee_id)).toEqual([null, employeeId]);
    });

    it('answer 409 overlap when the new times run into another record, changing nothing', async () => {
      const employeeId = await createEmployee(t);
      await insertAttendanceRow(t, employeeId, { in: '2026-11-18T20:00:00Z', out: '2026-11-19T04:00:00Z' });
      const id = await insertAttendanceRow(t, employeeId, { in: '2026-11-18T09:00:00Z', out: '2026-11-18T17:00:00Z' });
      const before = await attendanceRowsOf(t, employeeId);

      const res = await asUser(t, org.admin).patch(`/attendance/${id}`, { out_time: '2026-11-18 20:00:01' });

      expectProblem(res, 409, 'overlap');
      expect(await attendanceRowsOf(t, employeeId)).toEqual(before);
    });

    it("apply the time rules only when times are sent: a note can be fixed on a record longer than today's max_shift_hours", async () => {
      const employeeId = await createEmployee(t);
      const id = await insertAttendanceRow(t, employeeId, { in: '2026-11-10T08:00:00Z', out: '2026-11-11T12:00:00Z' });

      const note = await asUser(t, org.admin).patch(`/attendance/${id}`, { note: 'double shift, approved' });
      const times = await asUser(t, org.admin).patch(`/attendance/${id}`, { in_time: '2026-11-10 07:00:00' });

      expect(note.body).toMatchObject({ note: 'double shift, approved', hours: 28 });
      expect(expectProblem(times, 422, 'validation_failed').errors).toEqual([
        { field: 'out_time', message: 'must be at most 24 hours after in_time (max_shift_hours)' },
      ]);
    });

    it('write no audit row when nothing changes, and answer 404 for a missing id without creating it', async () => {
      const employeeId = await createEmployee(t);
      const id = await insertAttendanceRow(t, employeeId, { in: '2026-11-16T09:00:00Z', out: '2026-11-16T17:00:00Z', note: 'same' });
      const count = async () => Number((await t.db('attendance').count({ n: '*' }).first())?.n);
      const before = await count();

      const same = await asUser(t, org.admin).put(`/attendance/${id}`, { note: 'same', out_time: '2026-11-16 17:00:00' });
      const missing = await asUser(t, org.admin).put('/attendance/999999', {
        employee: employeeId,
        in_time: '2026-11-15 09:00:00',
        out_time: '2026-11-15 10:00:00',
      });

      expect(same.status).toBe(200);
      expect(same.body.updated_at).toBe(same.body.created_at);
      expect(await auditOf(id)).toEqual([]);
      expectProblem(missing, 404, 'not_found');
      expectProblem(await asUser(t, org.admin).patch('/attendance/abc', { note: 'x' }), 404, 'not_found');
      expect(await count()).toBe(before);
    });
  });

  describe('DELETE /attendance/{id}', () => {
    it('lets an admin delete a record, audited with its times', async () => {
      const employeeId = await createEmployee(t);
      const id = await insertAttendanceRow(t, employeeId, { in: '2026-11-16T09:00:00Z', out: '2026-11-16T17:00:00Z', note: 'gone' });

      const res = await asUser(t, org.admin).delete(`/attendance/${id}`);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: String(id) });
      expectProblem(await asUser(t, org.admin).get(`/attendance/${id}`), 404, 'not_found');
      expect(await auditOf(id)).toEqual([
        {
          action: 'delete',
          actor: org.admin.username,
          employee: employeeId,
          fields: ['in_time', 'out_time', 'note'],
          changes: {
            in_time: { from: '2026-11-16T09:00:00Z', to: null },
            out_time: { from: '2026-11-16T17:00:00Z', to: null },
            note: { from: 'gone', to: null },
          },
        },
      ]);
    });

    it("answers a manager 403 on a report's record and 404 on an invisible one; an employee 403 on their own", async () => {
      const reportRecord = await insertAttendanceRow(t, await reportOf(org.manager), {
        in: '2026-11-16T09:00:00Z',
        out: '2026-11-16T17:00:00Z',
      });
      const othersRecord = await insertAttendanceRow(t, await reportOf(org.otherManager), {
        in: '2026-11-16T09:00:00Z',
        out: '2026-11-16T17:00:00Z',
      });
      const employee = await createUser(t, 'employee');
      const ownRecord = await insertAttendanceRow(t, employee.employeeId, { in: '2026-11-16T09:00:00Z', out: '2026-11-16T17:00:00Z' });

      expectProblem(await asUser(t, org.manager).delete(`/attendance/${reportRecord}`), 403, 'forbidden');
      expectProblem(await asUser(t, org.manager).delete(`/attendance/${othersRecord}`), 404, 'not_found');
      expectProblem(await asUser(t, employee).delete(`/attendance/${ownRecord}`), 403, 'forbidden');
      expectProblem(await asUser(t, org.admin).delete('/attendance/999999'), 404, 'not_found');
      expect(Number((await t.db('attendance').whereIn('id', [reportRecord, othersRecord, ownRecord]).count({ n: '*' }).first())?.n)).toBe(
        3,
      );
    });
  });

  it("shows an employee's attendance changes, deleted records too, in hrm audit tail --employee", async () => {
    const employeeId = await createEmployee(t);
    const opened = await asUser(t, org.admin).post('/attendance/punch-in', { employee: employeeId, in_time: '2026-11-20 08:00:00' });
    await asUser(t, org.admin).post('/attendance/punch-out', { employee: employeeId });
    await asUser(t, org.admin).delete(`/attendance/${opened.body.id}`);

    const tail = await runHrm(t, ['audit', 'tail', '--employee', String(employeeId)]);

    expect(tail.code).toBe(0);
    const entries = tail.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(entries.map((entry) => [entry.action, entry.entity_type, entry.entity_id, entry.employee_id])).toEqual([
      ['punch_in', 'attendance', Number(opened.body.id), employeeId],
      ['punch_out', 'attendance', Number(opened.body.id), employeeId],
      ['delete', 'attendance', Number(opened.body.id), employeeId],
    ]);
  });
});
