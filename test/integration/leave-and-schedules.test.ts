import ICAL from 'ical.js';
import request from 'supertest';
import { readLeaveHours } from '../../src/leave/days';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// Leave and holidays wired into work schedules (CONTRACT 6.7, 6.8; docs/schedules.md "Leave and
// holidays", docs/leave.md "Shifts"): the day status reads approved and pending leave and the
// employee's holidays; a leave's default days and hours read the published shifts.

describe.each(testDialects())('leave and work schedules on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  const admin = () => asUser(t, org.admin);
  let vacation: string;

  beforeAll(async () => {
    setClock(t, '2026-06-20T12:00:00.000Z');
    vacation = (await asUser(t, org.admin).post('/leave-types', { name: `Vacation ${dialect}` })).body.id;
  });
  beforeEach(() => setClock(t, '2026-06-20T12:00:00.000Z'));

  const publish = async (employee: number | null, start: string, end: string, extra: object = {}) => {
    const res = await admin().post('/shifts', { employee, start_local: start, end_local: end, status: 'published', ...extra });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const requestLeave = async (body: object) => {
    const res = await admin().post('/leaves', { leave_type: vacation, ...body });
    expect(res.status).toBe(201);
    return res.body as { id: string; days: Array<{ date: string; portion: string; hours?: number }> };
  };
  const daysOf = async (employee: number, from: string, to: string) => {
    const res = await admin().get(`/employees/${employee}/days?from=${from}&to=${to}`);
    expect(res.status).toBe(200);
    return Object.fromEntries(res.body.data.map((day: { date: string }) => [day.date, day])) as Record<string, Record<string, unknown>>;
  };

  describe('the day status', () => {
    it('reads a pending leave as a flag and an approved one as on_leave at once, worked or not', async () => {
      const employee = await createEmployee(t, { timezone: 'UTC' });
      const monday = await publish(employee, '2026-06-08T08:00', '2026-06-08T16:00');
      const tuesday = await publish(employee, '2026-06-09T08:00', '2026-06-09T16:00');
      const worked = await insertAttendanceRow(t, employee, { in: '2026-06-09T08:00:00Z', out: '2026-06-09T10:00:00Z' });

      expect(await daysOf(employee, '2026-06-08', '2026-06-08')).toEqual({
        '2026-06-08': expect.objectContaining({ status: 'absent', leave: null, flags: [], shifts: [monday] }),
      });

      const leave = await requestLeave({ employee, start_date: '2026-06-08', end_date: '2026-06-09' });
      let days = await daysOf(employee, '2026-06-08', '2026-06-09');
      expect(days['2026-06-08']).toMatchObject({ status: 'absent', leave: leave.id, flags: ['leave_pending'] });
      expect(days['2026-06-09']).toMatchObject({ status: 'present', leave: leave.id, flags: ['early_exit', 'leave_pending'] });

      // Approved after the day was read as absent: the next read says on_leave, nothing was stored.
      expect((await admin().post(`/leaves/${leave.id}/approve`)).status).toBe(200);
      days = await daysOf(employee, '2026-06-08', '2026-06-09');
      expect(days['2026-06-08']).toMatchObject({ status: 'on_leave', leave: leave.id, flags: [], planned_hours: 8, shifts: [monday] });
      expect(days['2026-06-09']).toMatchObject({
        status: 'on_leave',
        leave: leave.id,
        flags: ['early_exit', 'worked_on_leave'],
        shifts: [tuesday],
        attendance: [String(worked)],
        worked_hours: 2,
      });

      // Cancelled: the dates are free again and read as the shifts say.
      expect((await admin().post(`/leaves/${leave.id}/cancel`)).status).toBe(200);
      days = await daysOf(employee, '2026-06-08', '2026-06-08');
      expect(days['2026-06-08']).toMatchObject({ status: 'absent', leave: null, flags: [] });
    });

    it('with an approved morning off, lateness counts from the afternoon (the shift midpoint)', async () => {
      const employee = await createEmployee(t, { timezone: 'Europe/Berlin' });
      await publish(employee, '2026-06-10T08:00', '2026-06-10T16:00', { late_grace_minutes: 5 });
      await publish(employee, '2026-06-11T08:00', '2026-06-11T16:00', { late_grace_minutes: 5 });
      const leave = await requestLeave({
        employee,
        start_date: '2026-06-10',
        end_date: '2026-06-11',
        days: [
          { date: '2026-06-10', portion: 'am' },
          { date: '2026-06-11', portion: 'am' },
        ],
        status: 'approved',
      });
      // 12:04 Berlin (10:04Z) is within the grace of the afternoon; 12:20 (10:20Z) is 20 minutes late.
      await insertAttendanceRow(t, employee, { in: '2026-06-10T10:04:00Z', out: '2026-06-10T14:00:00Z', timezone: 'Europe/Berlin' });
      await insertAttendanceRow(t, employee, { in: '2026-06-11T10:20:00Z', out: '2026-06-11T14:00:00Z', timezone: 'Europe/Berlin' });
      const days = await daysOf(employee, '2026-06-10', '2026-06-11');
      expect(days['2026-06-10']).toMatchObject({ status: 'present', leave: leave.id, late_minutes: 0, flags: [] });
      expect(days['2026-06-11']).toMatchObject({ status: 'present', leave: leave.id, late_minutes: 20, flags: ['late'] });
    });

    it("reads the employee's holidays by country: holiday without a shift, the shift decides with one", async () => {
      const german = await createEmployee(t, { timezone: 'UTC', country_code: 'DE' });
      const french = await createEmployee(t, { timezone: 'UTC', country_code: 'FR' });
      const created = await admin().post('/holidays', { date: '2026-06-04', name: `Fronleichnam ${dialect}`, country: 'DE' });
      expect(created.status).toBe(201);
      const holiday = created.body.id as string;
      const company = (await admin().post('/holidays', { date: '2026-06-05', name: `Company day ${dialect}`, portion: 'half' })).body
        .id as string;
      for (const employee of [german, french]) await publish(employee, '2026-06-04T08:00', '2026-06-04T16:00');
      await insertAttendanceRow(t, german, { in: '2026-06-04T08:00:00Z', out: '2026-06-04T16:00:00Z' });
      await insertAttendanceRow(t, french, { in: '2026-06-05T09:00:00Z', out: '2026-06-05T11:00:00Z' });
      const otherGerman = await createEmployee(t, { timezone: 'UTC', country_code: 'DE' });
      await publish(french, '2026-06-03T08:00', '2026-06-03T16:00');

      const germanDays = await daysOf(german, '2026-06-04', '2026-06-05');
      expect(germanDays['2026-06-04']).toMatchObject({ status: 'present', holiday, flags: ['holiday_worked'] });
      expect(germanDays['2026-06-05']).toMatchObject({ status: 'holiday', holiday: company, flags: [] });
      expect((await daysOf(otherGerman, '2026-06-04', '2026-06-04'))['2026-06-04']).toMatchObject({ status: 'holiday', holiday });
      const frenchDays = await daysOf(french, '2026-06-04', '2026-06-05');
      // Another country's holiday is none of theirs: the shift without a record is an absence.
      expect(frenchDays['2026-06-04']).toMatchObject({ status: 'absent', holiday: null, flags: [] });
      expect(frenchDays['2026-06-05']).toMatchObject({ status: 'holiday', holiday: company, flags: ['holiday_worked'] });

      // GET /days answers the same rows for a date.
      const all = await admin().get('/days?date=2026-06-04&limit=100');
      expect(all.status).toBe(200);
      const byEmployee = new Map(all.body.data.map((day: { employee: { id: string } }) => [day.employee.id, day]));
      expect(byEmployee.get(String(otherGerman))).toMatchObject({ status: 'holiday', holiday });
      expect(byEmployee.get(String(french))).toMatchObject({ status: 'absent', holiday: null });
    });
  });
  describe('a leave on published shifts', () => {
    it('takes by default every workday of the range: a published shift makes a weekend date one', async () => {
      const employee = await createEmployee(t, { timezone: 'UTC' });
      // Friday 2026-07-10 to Sunday 2026-07-12: a published Saturday shift, a draft on Sunday.
      await publish(employee, '2026-07-11T10:00', '2026-07-11T16:00');
      const draft = await admin().post('/shifts', { employee, start_local: '2026-07-12T10:00', end_local: '2026-07-12T16:00' });
      expect(draft.status).toBe(201);
      const leave = await requestLeave({ employee, start_date: '2026-07-10', end_date: '2026-07-12' });
      expect(leave.days).toEqual([
        { date: '2026-07-10', portion: 'full' },
        { date: '2026-07-11', portion: 'full' },
      ]);
      // A weekend range whose only shift is a draft holds no workday.
      const refused = expectProblem(
        await admin().post('/leaves', { leave_type: vacation, employee, start_date: '2026-07-12', end_date: '2026-07-12' }),
        422,
        'validation_failed',
      );
      expect(refused.errors).toEqual([{ field: 'days', message: expect.any(String) }]);
      expect(await t.db('leaves').where({ employee_id: employee }).count({ n: '*' }).first()).toMatchObject({ n: 1 });
    });

    it("is worth the planned hours of the day's published shifts, else the standard day", async () => {
      const employee = await createEmployee(t, { timezone: 'Europe/Berlin' });
      // Monday 2026-07-13: two published shifts, 4 h and 3 h with a 30-minute unpaid break.
      await publish(employee, '2026-07-13T06:00', '2026-07-13T10:00');
      await publish(employee, '2026-07-13T14:00', '2026-07-13T17:30', { unpaid_break_minutes: 30 });
      // Saturday 2026-07-18: a 6-hour shift outside the work week.
      await publish(employee, '2026-07-18T10:00', '2026-07-18T16:00');
      await requestLeave({
        employee,
        start_date: '2026-07-13',
        end_date: '2026-07-18',
        days: [
          { date: '2026-07-13', portion: 'full' },
          { date: '2026-07-14', portion: 'full' },
          { date: '2026-07-15', portion: 'am' },
          { date: '2026-07-18', portion: 'pm' },
        ],
        status: 'approved',
      });
      expect((await readLeaveHours(t.db, [employee], '2026-07-01', '2026-07-31')).get(employee)).toEqual([
        { date: '2026-07-13', leave_hours: 7, holiday_hours: 0, code: 'PTO' },
        { date: '2026-07-14', leave_hours: 8, holiday_hours: 0, code: 'PTO' },
        { date: '2026-07-15', leave_hours: 4, holiday_hours: 0, code: 'PTO' },
        { date: '2026-07-18', leave_hours: 3, holiday_hours: 0, code: 'PTO' },
      ]);

      // The payroll export reads the same hours, and its ETag follows a shift published later.
      const before = await admin().get('/pay-periods/2026-07-01/export');
      expect(before.status).toBe(200);
      expect(before.text).toContain(',2026-07-14,PTO,8.00,');
      await publish(employee, '2026-07-14T09:00', '2026-07-14T14:00');
      const after = await admin().get('/pay-periods/2026-07-01/export');
      expect(after.text).toContain(',2026-07-14,PTO,5.00,');
      expect(after.headers.etag).not.toBe(before.headers.etag);
    });

    it("refuses hours above the day's planned hours, naming the day, and writes nothing", async () => {
      const employee = await createEmployee(t, { timezone: 'UTC' });
      await publish(employee, '2026-07-20T08:00', '2026-07-20T13:00');
      const body = (hours: number) => ({
        leave_type: vacation,
        employee,
        start_date: '2026-07-20',
        end_date: '2026-07-20',
        days: [{ date: '2026-07-20', portion: 'hours', hours }],
      });
      const refused = expectProblem(await admin().post('/leaves', body(6)), 422, 'validation_failed');
      expect(refused.errors).toEqual([{ field: 'days.0.hours', message: "must be at most the day's 5 hours" }]);
      expect(await t.db('leaves').where({ employee_id: employee }).count({ n: '*' }).first()).toMatchObject({ n: 0 });
      expect((await admin().post('/leaves', body(5))).status).toBe(201);
    });
  });
  describe('calendar feeds', () => {
    // Later than the dates of the tests above, so their holidays fall outside these feeds.
    beforeEach(() => setClock(t, '2026-08-20T12:00:00.000Z'));
    const feedOf = async (employee: number) => {
      const created = await admin().post(`/employees/${employee}/calendar-feeds`);
      expect(created.status).toBe(201);
      return () => request(t.app).get(new URL(created.body.url as string).pathname);
    };
    const eventsOf = (text: string) =>
      new ICAL.Component(ICAL.parse(text)).getAllSubcomponents('vevent').map((event) => {
        const start = event.getFirstPropertyValue('dtstart') as ICAL.Time;
        const end = event.getFirstPropertyValue('dtend') as ICAL.Time;
        return {
          uid: event.getFirstPropertyValue('uid'),
          summary: event.getFirstPropertyValue('summary'),
          allDay: start.isDate,
          start: start.isDate ? start.toString() : start.toJSDate().toISOString(),
          end: end.isDate ? end.toString() : end.toJSDate().toISOString(),
        };
      });
    const allDay = (uid: string, summary: string, start: string, end: string) => ({ uid, summary, allDay: true, start, end });

    it("shows approved leave and the employee's holidays as all-day events, a private type as Time off", async () => {
      const employee = await createEmployee(t, { timezone: 'UTC', country_code: 'DE' });
      const fetchFeed = await feedOf(employee);
      const conference = (await admin().post('/leave-types', { name: `Conference ${dialect}`, private: false })).body.id as string;
      const shift = await publish(employee, '2026-08-24T08:00', '2026-08-24T16:00');
      // Tuesday 25th and Wednesday 26th, private; Thursday 27th to Monday 31st (workdays 27, 28, 31), public.
      const hidden = await requestLeave({ employee, start_date: '2026-08-25', end_date: '2026-08-26', status: 'approved' });
      const shown = await requestLeave({
        employee,
        leave_type: conference,
        start_date: '2026-08-27',
        end_date: '2026-08-31',
        status: 'approved',
      });
      const pending = await requestLeave({ employee, start_date: '2026-09-07', end_date: '2026-09-07' });
      const german = (await admin().post('/holidays', { date: '2026-09-03', name: `Feiertag ${dialect}`, country: 'DE' })).body
        .id as string;
      const everyone = (await admin().post('/holidays', { date: '2026-09-04', name: `Summer ${dialect}`, portion: 'half' })).body
        .id as string;
      expect((await admin().post('/holidays', { date: '2026-09-02', name: `Fête ${dialect}`, country: 'FR' })).status).toBe(201);

      const feed = await fetchFeed();
      expect(feed.status).toBe(200);
      expect(eventsOf(feed.text)).toEqual([
        { uid: `shift-${shift}@hrm`, summary: 'Shift', allDay: false, start: '2026-08-24T08:00:00.000Z', end: '2026-08-24T16:00:00.000Z' },
        allDay(`leave-${hidden.id}-2026-08-25@hrm`, 'Time off', '2026-08-25', '2026-08-27'),
        allDay(`leave-${shown.id}-2026-08-27@hrm`, `Conference ${dialect}`, '2026-08-27', '2026-08-29'),
        allDay(`leave-${shown.id}-2026-08-31@hrm`, `Conference ${dialect}`, '2026-08-31', '2026-09-01'),
        allDay(`holiday-${german}@hrm`, `Feiertag ${dialect}`, '2026-09-03', '2026-09-04'),
        allDay(`holiday-${everyone}@hrm`, `Summer ${dialect} (half day)`, '2026-09-04', '2026-09-05'),
      ]);
      expect(feed.text).not.toContain(`leave-${pending.id}`);
      expect(feed.text).toContain('DTSTART;VALUE=DATE:20260825\r\n');

      // The same data gives the same bytes; a cancelled leave leaves the feed, and its ETag changes.
      const again = await fetchFeed();
      expect(again.text).toBe(feed.text);
      expect((await admin().post(`/leaves/${hidden.id}/cancel`)).status).toBe(200);
      const changed = await fetchFeed();
      expect(changed.headers.etag).not.toBe(feed.headers.etag);
      expect(eventsOf(changed.text).map((event) => event.uid)).not.toContain(`leave-${hidden.id}-2026-08-25@hrm`);
    });

    it('shows no leave or holiday outside the window or after the termination date', async () => {
      const employee = await createEmployee(t, { timezone: 'UTC', termination_date: '2026-08-20' });
      const fetchFeed = await feedOf(employee);
      await requestLeave({ employee, start_date: '2026-08-19', end_date: '2026-08-21', status: 'approved' });
      await requestLeave({ employee, start_date: '2026-07-13', end_date: '2026-07-13', status: 'approved' });
      expect((await admin().post('/holidays', { date: '2026-08-21', name: `After ${dialect}` })).status).toBe(201);
      const events = eventsOf((await fetchFeed()).text);
      // 2026-07-13 is more than 30 days back; the leave is cut at the termination date.
      expect(events.map((event) => [event.start, event.end])).toEqual([['2026-08-19', '2026-08-21']]);
    });
  });
});
