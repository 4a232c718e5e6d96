import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg } from '../helpers/factories';
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
});
