import type { Caller } from '../../src/caller';
import { readDaysPage } from '../../src/days/read-days';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// Day status over HTTP (CONTRACT 6.7, docs/schedules.md): the adapter from stored shifts and
// attendance to the pure rule, computed at every read, with the visibility of attendance.

describe.each(testDialects())('/employees/{id}/days and /days on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  const admin = () => asUser(t, org.admin);

  beforeEach(() => setClock(t, '2026-06-20T12:00:00.000Z'));

  const publish = async (employee: number, start: string, end: string, extra: object = {}) => {
    const res = await admin().post('/shifts', { employee, start_local: start, end_local: end, status: 'published', ...extra });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  it('answers each date of the range, from the published shifts and the attendance, computed at the read', async () => {
    const employee = await createEmployee(t, { timezone: 'Europe/Berlin', joined_date: '2026-06-02' });
    const monday = await publish(employee, '2026-06-08T08:00', '2026-06-08T16:00', { late_grace_minutes: 5 });
    const tuesday = await publish(employee, '2026-06-09T22:00', '2026-06-10T06:00');
    const draft = await admin().post('/shifts', { employee, start_local: '2026-06-11T08:00', end_local: '2026-06-11T16:00' });
    expect(draft.status).toBe(201);
    const late = await insertAttendanceRow(t, employee, {
      in: '2026-06-08T06:06:00Z',
      out: '2026-06-08T14:00:00Z',
      timezone: 'Europe/Berlin',
    });
    const unscheduled = await insertAttendanceRow(t, employee, {
      in: '2026-06-12T07:00:00Z',
      out: '2026-06-12T09:30:00Z',
      timezone: 'Europe/Berlin',
    });

    const res = await admin().get(`/employees/${employee}/days?from=2026-06-01&to=2026-06-12`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((day: { date: string }) => day.date)[0]).toBe('2026-06-02');
    const byDate = Object.fromEntries(res.body.data.map((day: { date: string }) => [day.date, day]));
    expect(byDate['2026-06-08']).toEqual({
      employee: { type: 'Employee', id: String(employee), display: expect.any(String) },
      date: '2026-06-08',
      status: 'present',
      late_minutes: 6,
      early_exit_minutes: 0,
      planned_hours: 8,
      worked_hours: 7.9,
      shifts: [monday],
      attendance: [String(late)],
      leave: null,
      holiday: null,
      flags: ['late'],
    });
    expect(byDate['2026-06-09']).toMatchObject({ status: 'absent', shifts: [tuesday], attendance: [] });
    expect(byDate['2026-06-11']).toMatchObject({ status: 'day_off', shifts: [] });
    expect(byDate['2026-06-12']).toMatchObject({ status: 'unscheduled', worked_hours: 2.5, attendance: [String(unscheduled)] });

    // A late correction shows at once: nothing was stored.
    const night = await insertAttendanceRow(t, employee, {
      in: '2026-06-09T20:00:00Z',
      out: '2026-06-10T04:00:00Z',
      timezone: 'Europe/Berlin',
    });
    const again = await admin().get(`/employees/${employee}/days?from=2026-06-09&to=2026-06-10`);
    expect(again.body.data.map((day: Record<string, unknown>) => [day.date, day.status, day.attendance])).toEqual([
      ['2026-06-09', 'present', [String(night)]],
      ['2026-06-10', 'day_off', []],
    ]);
  });

  it('answers pending for a shift whose window is still open', async () => {
    const employee = await createEmployee(t, { timezone: 'UTC' });
    await publish(employee, '2026-06-20T10:00', '2026-06-20T18:00');
    const res = await admin().get(`/employees/${employee}/days?from=2026-06-20&to=2026-06-20`);
    expect(res.body.data).toEqual([expect.objectContaining({ status: 'pending', planned_hours: 8 })]);
  });

  it('has the visibility of attendance: 404 for an employee the caller may not read', async () => {
    const report = org.report.employeeId!;
    expect((await asUser(t, org.manager).get(`/employees/${report}/days?from=2026-06-01&to=2026-06-01`)).status).toBe(200);
    expect((await asUser(t, org.report).get(`/employees/${report}/days?from=2026-06-01&to=2026-06-01`)).status).toBe(200);
    expectProblem(await asUser(t, org.outsider).get(`/employees/${report}/days?from=2026-06-01&to=2026-06-01`), 404, 'not_found');
    expectProblem(await asUser(t, org.otherManager).get(`/employees/${report}/days?from=2026-06-01&to=2026-06-01`), 404, 'not_found');
  });

  it('refuses a range over 62 days, a missing bound and unknown parameters with 400 naming them', async () => {
    const employee = await createEmployee(t);
    const wide = await admin().get(`/employees/${employee}/days?from=2026-01-01&to=2026-03-04`);
    expect(expectProblem(wide, 400, 'invalid_query').errors).toEqual([
      { field: 'to', message: 'must be at most 61 days after from (62 days, both included)' },
    ]);
    expect((await admin().get(`/employees/${employee}/days?from=2026-01-01&to=2026-03-03`)).body.data).toHaveLength(62);
    expect(expectProblem(await admin().get(`/employees/${employee}/days?from=2026-01-01`), 400, 'invalid_query').errors[0].field).toBe(
      'to',
    );
    expectProblem(await admin().get('/days?date=2026-02-30'), 400, 'invalid_query');
    expectProblem(await admin().get('/days?date=2026-06-01&status=asleep'), 400, 'invalid_query');
  });

  it('lists one date for every employee the caller may read, filtered by status and department', async () => {
    const [department] = await t.db('departments').insert({ name: `Days ${dialect}` });
    const absent = await createEmployee(t, { department_id: Number(department), timezone: 'UTC' });
    const present = await createEmployee(t, { department_id: Number(department), timezone: 'UTC' });
    await createEmployee(t, { department_id: Number(department), timezone: 'UTC', joined_date: '2026-06-16' });
    await publish(absent, '2026-06-15T08:00', '2026-06-15T16:00');
    await publish(present, '2026-06-15T08:00', '2026-06-15T16:00');
    await insertAttendanceRow(t, present, { in: '2026-06-15T08:00:00Z', out: '2026-06-15T16:00:00Z' });

    const all = await admin().get(`/days?date=2026-06-15&department=${department}`);
    expect(all.body).toMatchObject({ total: 2, nextPage: null });
    expect(all.body.data.map((day: { employee: { id: string }; status: string }) => [day.employee.id, day.status])).toEqual([
      [String(absent), 'absent'],
      [String(present), 'present'],
    ]);
    const absentOnly = await admin().get(`/days?date=2026-06-15&department=${department}&status=absent&limit=1`);
    expect(absentOnly.body).toEqual({ data: [expect.objectContaining({ status: 'absent' })], total: 1, nextPage: null });
    const mine = await asUser(t, org.report).get('/days?date=2026-06-15');
    expect(mine.body.data.map((day: { employee: { id: string } }) => day.employee.id)).toEqual([String(org.report.employeeId)]);
  });

  /** A department of five employees on 2026-06-15: absent, present, day_off, absent, unscheduled. */
  const fiveInADepartment = async () => {
    const [department] = await t.db('departments').insert({ name: `Paged days ${dialect} ${Date.now()}` });
    const employees: number[] = [];
    for (let i = 0; i < 5; i++) employees.push(await createEmployee(t, { department_id: Number(department), timezone: 'UTC' }));
    const [absent, present, , late, unscheduled] = employees as [number, number, number, number, number];
    for (const employee of [absent, present, late]) await publish(employee, '2026-06-15T08:00', '2026-06-15T16:00');
    await insertAttendanceRow(t, present, { in: '2026-06-15T08:00:00Z', out: '2026-06-15T16:00:00Z' });
    await insertAttendanceRow(t, unscheduled, { in: '2026-06-15T09:00:00Z', out: '2026-06-15T12:00:00Z' });
    return { department: Number(department), employees };
  };
  const idAndStatus = (body: { data: Array<{ employee: { id: string }; status: string }> }) =>
    body.data.map((day) => [day.employee.id, day.status]);

  it('pages /days at the database: the pages join up to the whole list, and only a page of employees is read', async () => {
    const { department, employees } = await fiveInADepartment();
    const whole = await admin().get(`/days?date=2026-06-15&department=${department}&limit=200`);
    expect(whole.body).toMatchObject({ total: 5, nextPage: null });
    expect(idAndStatus(whole.body)).toEqual([
      [String(employees[0]), 'absent'],
      [String(employees[1]), 'present'],
      [String(employees[2]), 'day_off'],
      [String(employees[3]), 'absent'],
      [String(employees[4]), 'unscheduled'],
    ]);

    // Every query of a page's statuses names the page's employees only.
    const shiftReads: unknown[][] = [];
    const listen = (query: { sql: string; bindings?: unknown[] }) => {
      if (/from [`"]shifts[`"]/i.test(query.sql)) shiftReads.push(query.bindings ?? []);
    };
    t.db.on('query', listen);
    const pages = [];
    try {
      for (const page of [1, 2, 3]) pages.push(await admin().get(`/days?date=2026-06-15&department=${department}&limit=2&page=${page}`));
    } finally {
      t.db.off('query', listen);
    }
    expect(pages.map((res) => [res.status, res.body.total, res.body.nextPage])).toEqual([
      [200, 5, 2],
      [200, 5, 3],
      [200, 5, null],
    ]);
    expect(pages.flatMap((res) => idAndStatus(res.body))).toEqual(idAndStatus(whole.body));
    expect(shiftReads).toHaveLength(3);
    expect(shiftReads[1]).toEqual(expect.arrayContaining([employees[2], employees[3]]));
    expect(shiftReads[1]).not.toEqual(expect.arrayContaining([employees[0]]));
    expect(shiftReads[1]).not.toEqual(expect.arrayContaining([employees[4]]));

    const beyond = await admin().get(`/days?date=2026-06-15&department=${department}&limit=2&page=4`);
    expect(beyond.body).toEqual({ data: [], total: 5, nextPage: null });
  });

  it('filters /days by status across pages and scan batches with the same answer', async () => {
    const { department, employees } = await fiveInADepartment();
    const absentPages = [
      (await admin().get(`/days?date=2026-06-15&department=${department}&status=absent&limit=1&page=1`)).body,
      (await admin().get(`/days?date=2026-06-15&department=${department}&status=absent&limit=1&page=2`)).body,
    ];
    expect(absentPages.map((body) => [idAndStatus(body), body.total, body.nextPage])).toEqual([
      [[[String(employees[0]), 'absent']], 2, 2],
      [[[String(employees[3]), 'absent']], 2, null],
    ]);
    const dayOff = await admin().get(`/days?date=2026-06-15&department=${department}&status=day_off`);
    expect(idAndStatus(dayOff.body)).toEqual([[String(employees[2]), 'day_off']]);
    expect((await admin().get(`/days?date=2026-06-15&department=${department}&status=on_leave`)).body).toEqual({
      data: [],
      total: 0,
      nextPage: null,
    });

    // The status scan reads employees a batch at a time; batches of 2 and of 500 answer alike.
    const caller: Caller = { userId: org.admin.userId, username: org.admin.username, role: 'admin', employeeId: null, tokenId: '' };
    for (const status of ['absent', 'present', 'day_off', 'unscheduled', 'incomplete'] as const)
      for (const page of [1, 2]) {
        const filter = { date: '2026-06-15', department, status, page, limit: 1 };
        const small = await readDaysPage(t.db, caller, filter, t.clock.now(), 2);
        expect(small).toEqual(await readDaysPage(t.db, caller, filter, t.clock.now()));
      }
    const smallBatches = await readDaysPage(
      t.db,
      caller,
      { date: '2026-06-15', department, status: 'absent', page: 2, limit: 1 },
      t.clock.now(),
      2,
    );
    expect(smallBatches.total).toBe(2);
    expect(smallBatches.rows.map((row) => (row.employee as { id: string }).id)).toEqual([String(employees[3])]);
  });

  it('refuses a bad page, limit or department on /days with 400 naming the field', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['page=0', 'page'],
      ['department=x', 'department'],
    ] as const) {
      const res = await admin().get(`/days?date=2026-06-15&${query}`);
      expect(expectProblem(res, 400, 'invalid_query').errors.map((error: { field: string }) => error.field)).toEqual([field]);
    }
  });
});
