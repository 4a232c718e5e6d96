import request from 'supertest';
import { asUser, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg, type Org } from '../helpers/factories';
import { approveTimesheet, lockPeriod } from '../helpers/pay-periods';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// Leave types and leaves (CONTRACT 6.8, docs/leave.md): the roles, default days, portions, the
// database's one-live-leave-per-date rule under concurrency, locked periods and bad input.

describe.each(testDialects())('leave on %s', (dialect) => {
  const t = useTestApp(dialect);
  let org: Org;
  let vacation: string;
  let unpaid: string;
  beforeAll(async () => {
    setClock(t, '2026-11-28T09:00:00Z');
    org = await createOrg(t);
    vacation = (await asUser(t, org.admin).post('/leave-types', { name: 'Vacation' })).body.id;
    unpaid = (await asUser(t, org.admin).post('/leave-types', { name: 'Unpaid', paid: false, private: false })).body.id;
  });

  const leaveRows = async (employeeId: number | null) => t.db('leaves').where({ employee_id: employeeId });

  describe('/leave-types', () => {
    it('creates a type with the defaults of CONTRACT 6.8, lists it to everyone, replaces and deletes it', async () => {
      const created = await asUser(t, org.admin).post('/leave-types', { name: 'Sick' });
      expect(created.status).toBe(201);
      expect(created.headers.location).toBe(t.api(`/leave-types/${created.body.id}`));
      expect(created.body).toEqual({
        id: expect.stringMatching(/^\d+$/),
        name: 'Sick',
        paid: true,
        code: 'PTO',
        private: true,
        include_holidays: false,
      });
      const listed = await asUser(t, org.report).get('/leave-types?limit=200');
      expect(listed.status).toBe(200);
      expect(listed.body.data).toContainEqual(created.body);
      expect((await asUser(t, org.outsider).get(`/leave-types/${created.body.id}`)).body).toEqual(created.body);

      const replaced = await asUser(t, org.admin).put(`/leave-types/${created.body.id}`, {
        ...created.body,
        code: 'SICK',
        include_holidays: true,
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toEqual({ ...created.body, code: 'SICK', include_holidays: true });
      const deleted = await asUser(t, org.admin).delete(`/leave-types/${created.body.id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ id: created.body.id });
      expectProblem(await asUser(t, org.admin).get(`/leave-types/${created.body.id}`), 404, 'not_found');
    });

    it('an unpaid type has no code; a code on one, a bad code or a name in use is refused and nothing is written', async () => {
      expect((await asUser(t, org.admin).get(`/leave-types/${unpaid}`)).body).toMatchObject({ paid: false, code: null, private: false });
      const before = await t.db('leave_types').count({ n: '*' }).first();
      const coded = expectProblem(
        await asUser(t, org.admin).post('/leave-types', { name: 'X', paid: false, code: 'UNP' }),
        422,
        'validation_failed',
      );
      expect(coded.errors).toEqual([{ field: 'code', message: expect.any(String) }]);
      const bad = expectProblem(
        await asUser(t, org.admin).post('/leave-types', { name: '', code: 'no spaces', colour: 'red' }),
        422,
        'validation_failed',
      );
      expect(bad.errors.map((error: { field: string }) => error.field).sort()).toEqual(['code', 'colour', 'name']);
      expectProblem(await asUser(t, org.admin).post('/leave-types', { name: 'Vacation' }), 409, 'duplicate');
      expect(await t.db('leave_types').count({ n: '*' }).first()).toEqual(before);
    });

    it('only admins write (403); a type in use cannot be deleted (409 in_use)', async () => {
      expectProblem(await asUser(t, org.manager).post('/leave-types', { name: 'Mine' }), 403, 'forbidden');
      expectProblem(await asUser(t, org.report).put(`/leave-types/${vacation}`, { name: 'Mine' }), 403, 'forbidden');
      expectProblem(await asUser(t, org.report).delete(`/leave-types/${vacation}`), 403, 'forbidden');
      const type = (await asUser(t, org.admin).post('/leave-types', { name: 'Used' })).body.id;
      const employee = await createEmployee(t);
      await asUser(t, org.admin).post('/leaves', { employee, leave_type: type, start_date: '2027-03-01', end_date: '2027-03-01' });
      expectProblem(await asUser(t, org.admin).delete(`/leave-types/${type}`), 409, 'in_use');
    });
  });

  describe('POST /leaves', () => {
    it('an employee requests their own leave: pending, full on each working day of the range, with an ETag', async () => {
      // Friday 2026-12-04 to Tuesday 2026-12-08: the weekend is no workday.
      const res = await asUser(t, org.report).post('/leaves', {
        leave_type: vacation,
        start_date: '2026-12-04',
        end_date: '2026-12-08',
        note: 'Trip',
      });
      expect(res.status).toBe(201);
      expect(res.headers.etag).toMatch(/^"/);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^\d+$/),
        employee: { type: 'Employee', id: String(org.report.employeeId), display: expect.any(String) },
        leave_type: { type: 'LeaveType', id: vacation, display: 'Vacation' },
        start_date: '2026-12-04',
        end_date: '2026-12-08',
        days: [
          { date: '2026-12-04', portion: 'full' },
          { date: '2026-12-07', portion: 'full' },
          { date: '2026-12-08', portion: 'full' },
        ],
        status: 'pending',
        note: 'Trip',
        decided_by: null,
        decided_at: null,
        created_at: '2026-11-28T09:00:00.000Z',
        updated_at: '2026-11-28T09:00:00.000Z',
      });
      const read = await asUser(t, org.report).get(`/leaves/${res.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(res.body);
      expect(read.headers.etag).toBe(res.headers.etag);
      const notModified = await asUser(t, org.report).get(`/leaves/${res.body.id}`).set('If-None-Match', res.headers.etag!);
      expect(notModified.status).toBe(304);
    });

    it('takes the days and portions sent: am, pm and hours; holidays leave the default days unless the type includes them', async () => {
      const employee = await createEmployee(t, { country_code: 'DE' });
      const holiday = await asUser(t, org.admin).post('/holidays', { date: '2027-01-01', name: 'New Year', country: 'DE' });
      expect(holiday.status).toBe(201);
      const defaulted = await asUser(t, org.admin).post('/leaves', {
        employee,
        leave_type: vacation,
        start_date: '2026-12-31',
        end_date: '2027-01-01',
      });
      expect(defaulted.body.days).toEqual([{ date: '2026-12-31', portion: 'full' }]);
      const including = (await asUser(t, org.admin).post('/leave-types', { name: 'Including', include_holidays: true })).body.id;
      const other = await createEmployee(t, { country_code: 'DE' });
      const included = await asUser(t, org.admin).post('/leaves', {
        employee: other,
        leave_type: including,
        start_date: '2026-12-31',
        end_date: '2027-01-01',
      });
      expect(included.body.days).toEqual([
        { date: '2026-12-31', portion: 'full' },
        { date: '2027-01-01', portion: 'full' },
      ]);
      const portions = await asUser(t, org.admin).post('/leaves', {
        employee,
        leave_type: vacation,
        start_date: '2027-01-04',
        end_date: '2027-01-06',
        days: [
          { date: '2027-01-06', portion: 'hours', hours: 2.5 },
          { date: '2027-01-04', portion: 'am' },
          { date: '2027-01-05', portion: 'pm' },
        ],
      });
      expect(portions.status).toBe(201);
      expect(portions.body.days).toEqual([
        { date: '2027-01-04', portion: 'am' },
        { date: '2027-01-05', portion: 'pm' },
        { date: '2027-01-06', portion: 'hours', hours: 2.5 },
      ]);
    });

    it('refuses bad ranges, days and types with 422 naming each field, and writes nothing', async () => {
      const employee = await createEmployee(t);
      const cases: Array<[Record<string, unknown>, string[]]> = [
        [{ start_date: '2027-02-10', end_date: '2027-02-09' }, ['end_date']],
        [{ start_date: '2027-02-01', end_date: '2028-02-01' }, ['end_date']],
        [{ start_date: '2027-02-30', end_date: '2027-02-01' }, ['start_date']],
        [{ leave_type: '999999', start_date: '2027-02-01', end_date: '2027-02-01' }, ['leave_type']],
        [{ start_date: '2027-02-01', end_date: '2027-02-02', days: [{ date: '2027-02-03', portion: 'full' }] }, ['days.0.date']],
        [
          { start_date: '2027-02-01', end_date: '2027-02-02', days: [{ date: '2027-02-01', portion: 'hours', hours: 9 }] },
          ['days.0.hours'],
        ],
        [{ start_date: '2027-02-01', end_date: '2027-02-02', days: [{ date: '2027-02-01', portion: 'hours' }] }, ['days.0.hours']],
        [{ start_date: '2027-02-01', end_date: '2027-02-02', days: [{ date: '2027-02-01', portion: 'half' }] }, ['days.0.portion']],
        [
          {
            start_date: '2027-02-01',
            end_date: '2027-02-02',
            days: [
              { date: '2027-02-01', portion: 'am' },
              { date: '2027-02-01', portion: 'pm' },
            ],
          },
          ['days.1.date'],
        ],
        [{ start_date: '2027-02-06', end_date: '2027-02-07' }, ['days']],
        [{ start_date: '2027-02-01', end_date: '2027-02-01', colour: 'red' }, ['colour']],
      ];
      for (const [change, fields] of cases) {
        const res = await asUser(t, org.admin).post('/leaves', { employee, leave_type: vacation, ...change });
        const problem = expectProblem(res, 422, 'validation_failed');
        expect(problem.errors.map((error: { field: string }) => error.field)).toEqual(fields);
      }
      expect(await leaveRows(employee)).toEqual([]);
      expect(await t.db('leave_days').where({ live_employee_id: employee })).toEqual([]);
    });

    it('by role: managers for direct reports, never for others; only admins create approved leave', async () => {
      const forReport = await asUser(t, org.manager).post('/leaves', {
        employee: org.reportWithoutUser,
        leave_type: vacation,
        start_date: '2027-04-05',
        end_date: '2027-04-05',
      });
      expect(forReport.status).toBe(201);
      expect(forReport.body.status).toBe('pending');
      const other = expectProblem(
        await asUser(t, org.manager).post('/leaves', {
          employee: org.otherReport.employeeId,
          leave_type: vacation,
          start_date: '2027-04-05',
          end_date: '2027-04-05',
        }),
        422,
        'validation_failed',
      );
      expect(other.errors).toEqual([{ field: 'employee', message: expect.any(String) }]);
      expectProblem(
        await asUser(t, org.report).post('/leaves', {
          employee: org.manager.employeeId,
          leave_type: vacation,
          start_date: '2027-04-05',
          end_date: '2027-04-05',
        }),
        422,
        'validation_failed',
      );
      expectProblem(
        await asUser(t, org.manager).post('/leaves', {
          leave_type: vacation,
          start_date: '2027-04-06',
          end_date: '2027-04-06',
          status: 'approved',
        }),
        403,
        'forbidden',
      );
      expect(await leaveRows(org.otherReport.employeeId)).toEqual([]);
      expect(await leaveRows(org.manager.employeeId)).toEqual([]);
      const approved = await asUser(t, org.admin).post('/leaves', {
        employee: org.otherReport.employeeId,
        leave_type: vacation,
        start_date: '2027-04-06',
        end_date: '2027-04-06',
        status: 'approved',
      });
      expect(approved.status).toBe(201);
      expect(approved.body).toMatchObject({
        status: 'approved',
        decided_by: { type: 'User', id: String(org.admin.userId), display: org.admin.username },
      });
    });

    it('409 leave_overlap when a live leave holds a date; a rejected or cancelled one frees it', async () => {
      const employee = await createEmployee(t, { supervisor_id: org.manager.employeeId });
      const first = await asUser(t, org.admin).post('/leaves', {
        employee,
        leave_type: vacation,
        start_date: '2027-05-03',
        end_date: '2027-05-05',
      });
      expect(first.status).toBe(201);
      const overlap = await asUser(t, org.admin).post('/leaves', {
        employee,
        leave_type: unpaid,
        start_date: '2027-05-05',
        end_date: '2027-05-06',
      });
      expectProblem(overlap, 409, 'leave_overlap');
      expect(await leaveRows(employee)).toHaveLength(1);
      expect((await asUser(t, org.manager).post(`/leaves/${first.body.id}/reject`)).body.status).toBe('rejected');
      const again = await asUser(t, org.admin).post('/leaves', {
        employee,
        leave_type: unpaid,
        start_date: '2027-05-05',
        end_date: '2027-05-06',
      });
      expect(again.status).toBe(201);
    });

    it('of many parallel requests for the same dates exactly one wins; the others are 409 leave_overlap', async () => {
      const employee = await createEmployee(t);
      // Six ranges of different lengths that all hold Wednesday 2027-06-09.
      const answers = await Promise.all(
        ['2027-06-07', '2027-06-08', '2027-06-09'].flatMap((start) =>
          ['2027-06-09', '2027-06-11'].map((end) =>
            asUser(t, org.admin).post('/leaves', { employee, leave_type: vacation, start_date: start, end_date: end }),
          ),
        ),
      );
      expect(answers.filter((res) => res.status === 201)).toHaveLength(1);
      for (const res of answers.filter((answer) => answer.status !== 201)) expectProblem(res, 409, 'leave_overlap');
      const winner = answers.find((res) => res.status === 201)!.body;
      expect(await leaveRows(employee)).toEqual([expect.objectContaining({ id: Number(winner.id) })]);
      const held = await t.db('leave_days').where({ live_employee_id: employee }).orderBy('date');
      expect(held.map((day) => String(day.date).slice(0, 10))).toEqual(winner.days.map((day: { date: string }) => day.date));

      const same = await createEmployee(t);
      const race = await Promise.all(
        Array.from({ length: 10 }, () =>
          asUser(t, org.admin).post('/leaves', { employee: same, leave_type: vacation, start_date: '2027-06-14', end_date: '2027-06-18' }),
        ),
      );
      expect(race.filter((res) => res.status === 201)).toHaveLength(1);
      for (const res of race.filter((answer) => answer.status !== 201)) expectProblem(res, 409, 'leave_overlap');
      expect(await leaveRows(same)).toHaveLength(1);
      expect(await t.db('leave_days').where({ live_employee_id: same })).toHaveLength(5);
    });

    it('409 period_locked on a date of a locked pay period, for creating, deciding and cancelling', async () => {
      const employee = await createEmployee(t, { supervisor_id: org.manager.employeeId });
      const pending = await asUser(t, org.admin).post('/leaves', {
        employee,
        leave_type: vacation,
        start_date: '2026-10-05',
        end_date: '2026-10-06',
      });
      expect(pending.status).toBe(201);
      await lockPeriod(t, '2026-10-01', '2026-10-31');
      expectProblem(
        await asUser(t, org.admin).post('/leaves', { employee, leave_type: vacation, start_date: '2026-10-30', end_date: '2026-11-02' }),
        409,
        'period_locked',
      );
      expectProblem(await asUser(t, org.manager).post(`/leaves/${pending.body.id}/approve`), 409, 'period_locked');
      expectProblem(await asUser(t, org.admin).post(`/leaves/${pending.body.id}/cancel`), 409, 'period_locked');
      expect(await leaveRows(employee)).toEqual([expect.objectContaining({ status: 'pending' })]);
    });
  });

  describe('deciding and cancelling', () => {
    const request3 = async (employee: number) =>
      (await asUser(t, org.admin).post('/leaves', { employee, leave_type: vacation, start_date: '2027-07-05', end_date: '2027-07-07' }))
        .body;

    it("a manager approves a direct report's leave (event, audit, ETag), never their own or another's", async () => {
      // An address, not a name: creating a subscription resolves no DNS then.
      const hook = await asUser(t, org.admin).post('/webhooks', {
        url: 'https://93.184.215.14/leave',
        events: ['leave.approved', 'leave.requested'],
      });
      expect(hook.status).toBe(201);
      const own = (await asUser(t, org.manager).post('/leaves', { leave_type: vacation, start_date: '2027-07-12', end_date: '2027-07-12' }))
        .body;
      expectProblem(await asUser(t, org.manager).post(`/leaves/${own.id}/approve`), 403, 'forbidden');
      const others = await request3(org.otherReport.employeeId!);
      expectProblem(await asUser(t, org.manager).post(`/leaves/${others.id}/approve`), 404, 'not_found');
      expectProblem(await asUser(t, org.report).post(`/leaves/${others.id}/approve`), 404, 'not_found');

      const leave = await request3(org.reportWithoutUser);
      const stale = expectProblem(
        await asUser(t, org.manager).post(`/leaves/${leave.id}/approve`).set('If-Match', '"stale"'),
        412,
        'precondition_failed',
      );
      expect(stale.detail).toBeTruthy();
      const tag = (await asUser(t, org.manager).get(`/leaves/${leave.id}`)).headers.etag!;
      setClock(t, '2026-11-28T10:00:00Z');
      const approved = await asUser(t, org.manager).post(`/leaves/${leave.id}/approve`).set('If-Match', tag);
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({
        status: 'approved',
        decided_by: { type: 'User', id: String(org.manager.userId), display: org.manager.username },
        decided_at: '2026-11-28T10:00:00.000Z',
        updated_at: '2026-11-28T10:00:00.000Z',
      });
      expect(approved.headers.etag).not.toBe(tag);
      expectProblem(await asUser(t, org.manager).post(`/leaves/${leave.id}/approve`), 409, 'leave_not_pending');
      const events = await t
        .db('webhook_events')
        .where({ resource_key: `leave:${leave.id}` })
        .orderBy('id');
      expect(events.map((event) => event.type)).toEqual(['leave.requested', 'leave.approved']);
      expect(JSON.parse(events[1].payload).data).toEqual(approved.body);
      const audit = await t
        .db('audit_log')
        .where({ entity_type: 'leave', entity_id: Number(leave.id) })
        .orderBy('id');
      expect(audit.map((row) => row.action)).toEqual(['create', 'approve']);
    });

    it('the employee cancels while pending, not once approved; an approver cancels any time', async () => {
      const mine = (await asUser(t, org.report).post('/leaves', { leave_type: vacation, start_date: '2027-08-02', end_date: '2027-08-03' }))
        .body;
      const cancelled = await asUser(t, org.report).post(`/leaves/${mine.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.status).toBe('cancelled');
      expectProblem(await asUser(t, org.report).post(`/leaves/${mine.id}/cancel`), 409, 'leave_not_pending');
      expect(
        await t
          .db('leave_days')
          .where({ leave_id: Number(mine.id) })
          .whereNotNull('live_employee_id'),
      ).toEqual([]);

      const later = (
        await asUser(t, org.report).post('/leaves', { leave_type: vacation, start_date: '2027-08-02', end_date: '2027-08-03' })
      ).body;
      expect((await asUser(t, org.manager).post(`/leaves/${later.id}/approve`)).status).toBe(200);
      expectProblem(await asUser(t, org.report).post(`/leaves/${later.id}/cancel`), 403, 'forbidden');
      expectProblem(await asUser(t, org.report).post(`/leaves/${later.id}/approve`), 403, 'forbidden');
      const byManager = await asUser(t, org.manager).post(`/leaves/${later.id}/cancel`);
      expect(byManager.body.status).toBe('cancelled');
    });

    it('cancelling approved leave sends an approved timesheet back to open', async () => {
      const employee = await createEmployee(t);
      const leave = (
        await asUser(t, org.admin).post('/leaves', {
          employee,
          leave_type: vacation,
          start_date: '2027-09-06',
          end_date: '2027-09-06',
          status: 'approved',
        })
      ).body;
      await approveTimesheet(t, employee, '2027-09-01', '2027-09-30');
      expect((await asUser(t, org.admin).post(`/leaves/${leave.id}/cancel`)).status).toBe(200);
      expect(await t.db('timesheet_approvals').where({ employee_id: employee })).toEqual([
        expect.objectContaining({ status: 'open', reopened_reason: 'leave_changed' }),
      ]);
    });
  });

  describe('PUT /leaves/{id}', () => {
    it('changes the range, days and note of a pending leave, status kept; the read shape may be sent back', async () => {
      const employee = await createEmployee(t, { supervisor_id: org.manager.employeeId });
      const leave = (
        await asUser(t, org.admin).post('/leaves', { employee, leave_type: vacation, start_date: '2027-10-04', end_date: '2027-10-05' })
      ).body;
      const tag = (await asUser(t, org.manager).get(`/leaves/${leave.id}`)).headers.etag!;
      const changed = await asUser(t, org.manager)
        .put(`/leaves/${leave.id}`, { ...leave, end_date: '2027-10-06', days: undefined, note: 'Longer' })
        .set('If-Match', tag);
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({
        status: 'pending',
        end_date: '2027-10-06',
        note: 'Longer',
        days: ['2027-10-04', '2027-10-05', '2027-10-06'].map((date) => ({ date, portion: 'full' })),
      });
      expectProblem(await asUser(t, org.manager).put(`/leaves/${leave.id}`, leave).set('If-Match', tag), 412, 'precondition_failed');
      const held = await t.db('leave_days').where({ live_employee_id: employee }).orderBy('date');
      expect(held.map((day) => String(day.date).slice(0, 10))).toEqual(['2027-10-04', '2027-10-05', '2027-10-06']);
    });

    it('refuses overlap, bad fields, a locked date, a decided leave and an employee on approved leave; nothing changes', async () => {
      const employee = await createEmployee(t);
      const first = (
        await asUser(t, org.admin).post('/leaves', { employee, leave_type: vacation, start_date: '2027-11-01', end_date: '2027-11-02' })
      ).body;
      const second = (
        await asUser(t, org.admin).post('/leaves', { employee, leave_type: vacation, start_date: '2027-11-08', end_date: '2027-11-08' })
      ).body;
      const body = { leave_type: vacation, start_date: '2027-11-02', end_date: '2027-11-08' };
      expectProblem(await asUser(t, org.admin).put(`/leaves/${second.id}`, body), 409, 'leave_overlap');
      const bad = expectProblem(
        await asUser(t, org.admin).put(`/leaves/${second.id}`, { ...body, start_date: '2027-11-09', id: '1', leave_type: '999999' }),
        422,
        'validation_failed',
      );
      expect(bad.errors.map((error: { field: string }) => error.field).sort()).toEqual(['end_date', 'id', 'leave_type']);
      await lockPeriod(t, '2027-11-01', '2027-11-05');
      expectProblem(
        await asUser(t, org.admin).put(`/leaves/${first.id}`, { leave_type: vacation, start_date: '2027-11-15', end_date: '2027-11-15' }),
        409,
        'period_locked',
      );
      expect((await asUser(t, org.admin).get(`/leaves/${second.id}`)).body).toEqual(second);
      expect((await asUser(t, org.admin).get(`/leaves/${first.id}`)).body).toEqual(first);
      expect((await asUser(t, org.admin).post(`/leaves/${second.id}/reject`)).status).toBe(200);
      expectProblem(await asUser(t, org.admin).put(`/leaves/${second.id}`, body), 409, 'leave_not_pending');

      const mine = (await asUser(t, org.report).post('/leaves', { leave_type: vacation, start_date: '2027-12-06', end_date: '2027-12-06' }))
        .body;
      expect((await asUser(t, org.manager).post(`/leaves/${mine.id}/approve`)).status).toBe(200);
      expectProblem(
        await asUser(t, org.report).put(`/leaves/${mine.id}`, { leave_type: vacation, start_date: '2027-12-07', end_date: '2027-12-07' }),
        403,
        'forbidden',
      );
    });
  });

  describe('reading and deleting', () => {
    const leaves = useFixture(async () => {
      const a = (
        await asUser(t, org.admin).post('/leaves', {
          employee: org.report.employeeId,
          leave_type: vacation,
          start_date: '2028-01-10',
          end_date: '2028-01-11',
        })
      ).body;
      const b = (
        await asUser(t, org.admin).post('/leaves', {
          employee: org.otherReport.employeeId,
          leave_type: vacation,
          start_date: '2028-01-10',
          end_date: '2028-01-10',
        })
      ).body;
      return { a, b };
    });

    it('GET /leaves shows what the caller may see, filtered by employee, dates and status', async () => {
      const range = 'from=2028-01-01&to=2028-01-31';
      const ids = async (user: typeof org.admin, query: string) =>
        (await asUser(t, user).get(`/leaves?${query}`)).body.data.map((leave: { id: string }) => leave.id);
      expect(await ids(org.admin, range)).toEqual([leaves.a.id, leaves.b.id]);
      expect(await ids(org.manager, range)).toEqual([leaves.a.id]);
      expect(await ids(org.report, range)).toEqual([leaves.a.id]);
      expect(await ids(org.outsider, range)).toEqual([]);
      expect(await ids(org.admin, `${range}&employee=${org.otherReport.employeeId}`)).toEqual([leaves.b.id]);
      expect(await ids(org.admin, `${range}&status=approved`)).toEqual([]);
      expect(await ids(org.admin, 'from=2028-01-11&to=2028-01-11')).toEqual([leaves.a.id]);
      const page = await asUser(t, org.admin).get(`/leaves?${range}&limit=1`);
      expect(page.body).toMatchObject({ total: 2, nextPage: 2 });
      const bad = expectProblem(await asUser(t, org.admin).get('/leaves?from=2028-13-01&status=maybe'), 400, 'invalid_query');
      expect(bad.errors.map((error: { field: string }) => error.field).sort()).toEqual(['from', 'status']);
    });

    it("GET /employees/{id}/leaves: the employee's leaves, 404 for one the caller may not see", async () => {
      const res = await asUser(t, org.manager).get(`/employees/${org.report.employeeId}/leaves?from=2028-01-01`);
      expect(res.status).toBe(200);
      expect(res.body.data.map((leave: { id: string }) => leave.id)).toEqual([leaves.a.id]);
      expectProblem(await asUser(t, org.manager).get(`/employees/${org.otherReport.employeeId}/leaves`), 404, 'not_found');
      expectProblem(await asUser(t, org.report).get(`/leaves/${leaves.b.id}`), 404, 'not_found');
    });

    it('DELETE /leaves/{id} (admins) leaves a tombstone in GET /leaves/deleted', async () => {
      const employee = await createEmployee(t, { supervisor_id: org.manager.employeeId });
      const leave = (
        await asUser(t, org.admin).post('/leaves', { employee, leave_type: vacation, start_date: '2028-02-07', end_date: '2028-02-07' })
      ).body;
      expectProblem(await asUser(t, org.manager).delete(`/leaves/${leave.id}`), 403, 'forbidden');
      setClock(t, '2026-11-28T11:00:00Z');
      const deleted = await asUser(t, org.admin).delete(`/leaves/${leave.id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ id: leave.id });
      expect(await leaveRows(employee)).toEqual([]);
      expect(await t.db('leave_days').where({ leave_id: Number(leave.id) })).toEqual([]);
      const feed = await asUser(t, org.manager).get('/leaves/deleted?since=2026-11-28T10:30:00Z');
      expect(feed.status).toBe(200);
      expect(feed.body).toEqual({ data: [{ id: leave.id, deleted_at: '2026-11-28T11:00:00.000Z' }], total: 1, nextPage: null });
      expect((await asUser(t, org.outsider).get('/leaves/deleted?since=2026-11-28T10:30:00Z')).body.data).toEqual([]);
      expectProblem(await asUser(t, org.admin).get(`/leaves/${leave.id}`), 404, 'not_found');
    });

    it('deleting an employee deletes their leaves, each with a tombstone their manager sees', async () => {
      const employee = await createEmployee(t, { supervisor_id: org.manager.employeeId });
      const leave = (
        await asUser(t, org.admin).post('/leaves', { employee, leave_type: vacation, start_date: '2028-03-06', end_date: '2028-03-06' })
      ).body;
      setClock(t, '2026-11-28T12:00:00Z');
      expect((await asUser(t, org.admin).delete(`/employees/${employee}`)).status).toBe(200);
      expect(await leaveRows(employee)).toEqual([]);
      const feed = await asUser(t, org.manager).get('/leaves/deleted?since=2026-11-28T11:30:00Z');
      expect(feed.body.data).toEqual([{ id: leave.id, deleted_at: '2026-11-28T12:00:00.000Z' }]);
    });
  });

  it('answers without a token 401', async () => {
    const res = await request(t.app).get(t.api('/leaves'));
    expectProblem(res, 401, 'unauthorized');
  });
});
