import type { Caller } from '../../src/caller';
import { readDaysPage } from '../../src/days/read-days';
import { DAY_STATUSES } from '../../src/day-rules/types';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg } from '../helpers/factories';
import { useFixture, useTestApp } from '../helpers/test-app';

// GET /days?status= (CONTRACT 6.7, docs/schedules.md "Status filters"): the candidates are
// narrowed in SQL (src/days/status-candidates.ts) and their days computed by the rules, so every
// status's filtered answer must be the unfiltered answer filtered, whatever the narrowing lets
// through. Each set of days below holds the narrowing's edge cases.

type Day = { employee: { id: string }; status: string };
type Page = { data: Day[]; total: number; nextPage: number | null };

describe.each(testDialects())('GET /days?status= on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  const admin = () => asUser(t, org.admin);
  const caller = (): Caller => ({ userId: org.admin.userId, username: org.admin.username, role: 'admin', employeeId: null, tokenId: '' });
  let vacation: string;

  beforeAll(async () => {
    setClock(t, '2026-06-20T12:00:00.000Z');
    vacation = (await admin().post('/leave-types', { name: `Vacation ${dialect}` })).body.id;
  });
  beforeEach(() => setClock(t, '2026-06-20T12:00:00.000Z'));

  let departments = 0;
  const newDepartment = async () => {
    const [id] = await t.db('departments').insert({ name: `Status filters ${dialect} ${++departments}` });
    return Number(id);
  };
  const publish = async (employee: number, start: string, end: string, extra: object = {}) => {
    const res = await admin().post('/shifts', { employee, start_local: start, end_local: end, status: 'published', ...extra });
    expect(res.status).toBe(201);
  };
  const leave = async (employee: number, date: string, portion: string, status: 'approved' | 'pending' = 'approved') => {
    const res = await admin().post('/leaves', {
      leave_type: vacation,
      employee,
      start_date: date,
      end_date: date,
      days: [{ date, portion }],
      ...(status === 'approved' ? { status } : {}),
    });
    expect(res.status).toBe(201);
  };
  const idAndStatus = (days: Day[]) => days.map((day) => [day.employee.id, day.status]);

  /** Every status's filtered answer (whole and paged by 2) against the unfiltered one, filtered here. */
  const expectFiltersAgree = async (date: string, department: number) => {
    const all = (await admin().get(`/days?date=${date}&department=${department}&limit=200`)).body as Page;
    for (const status of DAY_STATUSES) {
      const expected = all.data.filter((day) => day.status === status);
      const filtered = await admin().get(`/days?date=${date}&department=${department}&status=${status}&limit=200`);
      expect([status, filtered.status, filtered.body.total, idAndStatus(filtered.body.data)]).toEqual([
        status,
        200,
        expected.length,
        idAndStatus(expected),
      ]);
      // Scans of 2 employees at a time out of 3 ids at most answer alike.
      const small = await readDaysPage(t.db, caller(), { date, department, status, page: 1, limit: 200 }, t.clock.now(), 2, 3);
      expect([status, small.total, small.rows]).toEqual([status, filtered.body.total, filtered.body.data]);
    }
    return all;
  };

  /** The employees whose days a filtered request computes: those its read of shifts names. */
  const candidatesOf = async (date: string, department: number, status: string) => {
    const read: number[] = [];
    const listen = (query: { sql: string; bindings?: unknown[] }) => {
      if (/^select \* from [`"]shifts[`"] where [`"]employee_id[`"] in/i.test(query.sql))
        read.push(...(query.bindings ?? []).filter((value): value is number => typeof value === 'number'));
    };
    t.db.on('query', listen);
    try {
      expect((await admin().get(`/days?date=${date}&department=${department}&status=${status}&limit=200`)).status).toBe(200);
    } finally {
      t.db.off('query', listen);
    }
    return read;
  };

  it('answers each status as the unfiltered list does: shifts, records, matching across midnight, thresholds', async () => {
    const date = '2026-06-15';
    const department = await newDepartment();
    const employee = (overrides: object = {}) => createEmployee(t, { department_id: department, timezone: 'UTC', ...overrides });
    const expected: Array<[number, string]> = [];

    const absent = await employee();
    await publish(absent, '2026-06-15T08:00', '2026-06-15T16:00');
    expected.push([absent, 'absent']);

    const present = await employee();
    await publish(present, '2026-06-15T08:00', '2026-06-15T16:00');
    await insertAttendanceRow(t, present, { in: '2026-06-15T08:00:00Z', out: '2026-06-15T16:00:00Z' });
    expected.push([present, 'present']);

    // Past its shift's midpoint (18:00) and nearer the next day's start: the record is the next
    // day's, so this day is absent although a record lies inside its window.
    const nextDays = await employee();
    await publish(nextDays, '2026-06-15T14:00', '2026-06-15T22:00');
    await publish(nextDays, '2026-06-16T00:00', '2026-06-16T08:00', { check_in_window_minutes: 120 });
    await insertAttendanceRow(t, nextDays, { in: '2026-06-15T22:30:00Z', out: '2026-06-16T08:00:00Z' });
    expected.push([nextDays, 'absent']);

    // Past the midpoint with no later shift: still this day's, present (late).
    const lateHalf = await employee();
    await publish(lateHalf, '2026-06-15T08:00', '2026-06-15T16:00');
    await insertAttendanceRow(t, lateHalf, { in: '2026-06-15T13:00:00Z', out: '2026-06-15T16:00:00Z' });
    expected.push([lateHalf, 'present']);

    // A record at the very midpoint (12:00) is the shift's.
    const atMidpoint = await employee();
    await publish(atMidpoint, '2026-06-15T08:00', '2026-06-15T16:00');
    await insertAttendanceRow(t, atMidpoint, { in: '2026-06-15T12:00:00Z', out: '2026-06-15T16:00:00Z' });
    expected.push([atMidpoint, 'present']);

    // A short day under absent_below_hours is absent although its record surely matches.
    const short = await employee();
    await publish(short, '2026-06-15T08:00', '2026-06-15T16:00', { absent_below_hours: 4 });
    await insertAttendanceRow(t, short, { in: '2026-06-15T08:00:00Z', out: '2026-06-15T10:00:00Z' });
    expected.push([short, 'absent']);

    const half = await employee();
    await publish(half, '2026-06-15T08:00', '2026-06-15T16:00', { half_day_below_hours: 6, absent_below_hours: 2 });
    await insertAttendanceRow(t, half, { in: '2026-06-15T08:00:00Z', out: '2026-06-15T12:00:00Z' });
    expected.push([half, 'half_day']);

    // Morning leave: the afternoon worked is present; afternoon leave without a record is absent.
    const morningOff = await employee();
    await publish(morningOff, '2026-06-15T08:00', '2026-06-15T16:00');
    await leave(morningOff, date, 'am');
    await insertAttendanceRow(t, morningOff, { in: '2026-06-15T12:00:00Z', out: '2026-06-15T16:00:00Z' });
    expected.push([morningOff, 'present']);
    const afternoonOff = await employee();
    await publish(afternoonOff, '2026-06-15T08:00', '2026-06-15T16:00');
    await leave(afternoonOff, date, 'pm');
    expected.push([afternoonOff, 'absent']);

    // Full-day leave: approved is on_leave, shift or not, worked or not; pending leaves the shift to decide.
    const onLeave = await employee();
    await publish(onLeave, '2026-06-15T08:00', '2026-06-15T16:00');
    await leave(onLeave, date, 'full');
    await insertAttendanceRow(t, onLeave, { in: '2026-06-15T08:00:00Z', out: '2026-06-15T09:00:00Z' });
    expected.push([onLeave, 'on_leave']);
    const onLeaveUnscheduled = await employee();
    await leave(onLeaveUnscheduled, date, 'full');
    expected.push([onLeaveUnscheduled, 'on_leave']);
    const leavePending = await employee();
    await publish(leavePending, '2026-06-15T08:00', '2026-06-15T16:00');
    await leave(leavePending, date, 'full', 'pending');
    expected.push([leavePending, 'absent']);

    const dayOff = await employee();
    expected.push([dayOff, 'day_off']);

    const unscheduled = await employee();
    await insertAttendanceRow(t, unscheduled, { in: '2026-06-15T09:00:00Z', out: '2026-06-15T12:00:00Z' });
    expected.push([unscheduled, 'unscheduled']);

    // A record of this date after midnight, matched to the previous day's night shift: a day off.
    const nightBefore = await employee();
    await publish(nightBefore, '2026-06-14T22:00', '2026-06-15T06:00');
    await insertAttendanceRow(t, nightBefore, { in: '2026-06-15T00:30:00Z', out: '2026-06-15T06:00:00Z' });
    expected.push([nightBefore, 'day_off']);

    // Open records across midnight: this date's night shift, and a record without a shift.
    const openNight = await employee();
    await publish(openNight, '2026-06-15T22:00', '2026-06-16T06:00');
    await insertAttendanceRow(t, openNight, { in: '2026-06-15T22:00:00Z', out: null });
    expected.push([openNight, 'incomplete']);
    const openUnscheduled = await employee();
    await insertAttendanceRow(t, openUnscheduled, { in: '2026-06-15T23:30:00Z', out: null });
    expected.push([openUnscheduled, 'incomplete']);
    // Open since the evening before, no shift: that day is incomplete, this one a day off.
    const openSinceYesterday = await employee();
    await insertAttendanceRow(t, openSinceYesterday, { in: '2026-06-14T23:00:00Z', out: null });
    expected.push([openSinceYesterday, 'day_off']);

    // A record of another time zone's date: Tokyo's 16th began at 15:00Z on the 15th.
    const tokyo = await employee({ timezone: 'Asia/Tokyo' });
    await insertAttendanceRow(t, tokyo, { in: '2026-06-15T16:00:00Z', out: '2026-06-15T18:00:00Z', timezone: 'Asia/Tokyo' });
    expected.push([tokyo, 'day_off']);

    // Before hire and after termination: no day at all.
    await employee({ joined_date: '2026-06-16' });
    await employee({ termination_date: '2026-06-14' });

    const all = await expectFiltersAgree(date, department);
    expect(idAndStatus(all.data)).toEqual(expected.map(([id, status]) => [String(id), status]));

    // What the narrowing lets through: a superset, computed and filtered above.
    expect(await candidatesOf(date, department, 'on_leave')).toEqual([onLeave, onLeaveUnscheduled]);
    expect(await candidatesOf(date, department, 'absent')).toEqual([absent, nextDays, lateHalf, short, half, afternoonOff, leavePending]);
    expect(await candidatesOf(date, department, 'pending')).toEqual([absent, nextDays, lateHalf, afternoonOff, leavePending]);
    expect(await candidatesOf(date, department, 'half_day')).toEqual([half]);
    expect(await candidatesOf(date, department, 'incomplete')).toEqual([openNight, openUnscheduled, openSinceYesterday]);
    expect(await candidatesOf(date, department, 'unscheduled')).toEqual([unscheduled, nightBefore, openUnscheduled]);
    expect(await candidatesOf(date, department, 'day_off')).toEqual([onLeaveUnscheduled, dayOff, nightBefore, openSinceYesterday, tokyo]);
    expect(await candidatesOf(date, department, 'holiday')).toEqual([]);
  });

  it('answers holiday without a shift and lets the shift decide with one, by the employee’s country', async () => {
    const date = '2026-06-17';
    const department = await newDepartment();
    const employee = (overrides: object = {}) => createEmployee(t, { department_id: department, timezone: 'UTC', ...overrides });
    expect((await admin().post('/holidays', { date, name: `Status filters ${dialect}`, country: 'DE' })).status).toBe(201);

    const holiday = await employee({ country_code: 'DE' });
    const holidayWorked = await employee({ country_code: 'DE' });
    await insertAttendanceRow(t, holidayWorked, { in: '2026-06-17T09:00:00Z', out: '2026-06-17T12:00:00Z' });
    const holidayAbsent = await employee({ country_code: 'DE' });
    await publish(holidayAbsent, '2026-06-17T08:00', '2026-06-17T16:00');
    const holidayPresent = await employee({ country_code: 'DE' });
    await publish(holidayPresent, '2026-06-17T08:00', '2026-06-17T16:00');
    await insertAttendanceRow(t, holidayPresent, { in: '2026-06-17T08:00:00Z', out: '2026-06-17T16:00:00Z' });
    const holidayOnLeave = await employee({ country_code: 'DE' });
    await leave(holidayOnLeave, date, 'full');
    const french = await employee({ country_code: 'FR' });
    const nowhere = await employee();

    const all = await expectFiltersAgree(date, department);
    expect(idAndStatus(all.data)).toEqual(
      [
        [holiday, 'holiday'],
        [holidayWorked, 'holiday'],
        [holidayAbsent, 'absent'],
        [holidayPresent, 'present'],
        [holidayOnLeave, 'on_leave'],
        [french, 'day_off'],
        [nowhere, 'day_off'],
      ].map(([id, status]) => [String(id), status]),
    );
    expect(await candidatesOf(date, department, 'holiday')).toEqual([holiday, holidayWorked, holidayOnLeave]);
  });

  it('answers pending while a shift’s window is open and absent once it closed', async () => {
    const date = '2026-06-20';
    const department = await newDepartment();
    const employee = () => createEmployee(t, { department_id: department, timezone: 'UTC' });
    // The clock is 12:00Z on the 20th.
    const pending = await employee();
    await publish(pending, '2026-06-20T10:00', '2026-06-20T18:00');
    // Two shifts, the first closed: the day waits for the last window.
    const split = await employee();
    await publish(split, '2026-06-20T06:00', '2026-06-20T08:00');
    await publish(split, '2026-06-20T13:00', '2026-06-20T17:00');
    const closed = await employee();
    await publish(closed, '2026-06-20T04:00', '2026-06-20T08:00');
    const open = await employee();
    await publish(open, '2026-06-20T10:00', '2026-06-20T18:00');
    await insertAttendanceRow(t, open, { in: '2026-06-20T10:00:00Z', out: null });
    // A record before the window opens (check_in_window 60): no record of the shift, pending.
    const early = await employee();
    await publish(early, '2026-06-20T10:00', '2026-06-20T18:00');
    await insertAttendanceRow(t, early, { in: '2026-06-20T08:00:00Z', out: '2026-06-20T08:30:00Z' });

    const all = await expectFiltersAgree(date, department);
    expect(idAndStatus(all.data)).toEqual(
      [
        [pending, 'pending'],
        [split, 'pending'],
        [closed, 'absent'],
        [open, 'incomplete'],
        [early, 'pending'],
      ].map(([id, status]) => [String(id), status]),
    );

    setClock(t, '2026-06-21T12:00:00.000Z');
    const later = await expectFiltersAgree(date, department);
    expect(idAndStatus(later.data).map(([, status]) => status)).toEqual(['absent', 'absent', 'absent', 'incomplete', 'absent']);
  });

  it('pages a filtered list: the pages join up to the whole, with the same total on each', async () => {
    const date = '2026-06-18';
    const department = await newDepartment();
    const absentees: number[] = [];
    for (let i = 0; i < 8; i++) {
      const id = await createEmployee(t, { department_id: department, timezone: 'UTC' });
      await publish(id, '2026-06-18T08:00', '2026-06-18T16:00');
      // Every third one comes (inside the first half of the shift): the others are absent.
      if (i % 3 === 0) await insertAttendanceRow(t, id, { in: '2026-06-18T09:00:00Z', out: '2026-06-18T16:00:00Z' });
      else absentees.push(id);
    }
    const pages: Page[] = [];
    for (let page = 1; page <= 4; page++)
      pages.push((await admin().get(`/days?date=${date}&department=${department}&status=absent&limit=2&page=${page}`)).body as Page);
    expect(pages.map((page) => [page.total, page.nextPage, page.data.length])).toEqual([
      [5, 2, 2],
      [5, 3, 2],
      [5, null, 1],
      [5, null, 0],
    ]);
    expect(pages.flatMap((page) => page.data.map((day) => Number(day.employee.id)))).toEqual(absentees);
    for (const page of [1, 2, 3]) {
      const filter = { date, department, status: 'absent' as const, page, limit: 2 };
      const whole = await readDaysPage(t.db, caller(), filter, t.clock.now());
      expect(await readDaysPage(t.db, caller(), filter, t.clock.now(), 3)).toEqual(whole);
      expect(await readDaysPage(t.db, caller(), filter, t.clock.now(), 2000, 1)).toEqual(whole);
    }
  });
});
