import { readLeaveHours } from '../../src/leave/days';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser, type TestUser } from '../helpers/factories';
import { useTestApp } from '../helpers/test-app';

// Leave and holidays in payroll (CONTRACT 6.8 "Into payroll", docs/leave.md "A worked month"):
// the adapter every payroll reader calls, and the timesheet's days and totals. December 2026,
// monthly periods: Monday 2026-12-07 to Friday 2026-12-11, Friday 2026-12-25 is Christmas.

describe.each(testDialects())('leave in payroll on %s', (dialect) => {
  const t = useTestApp(dialect);
  let admin: TestUser;
  let ana: number;
  let ben: number;
  beforeAll(async () => {
    setClock(t, '2026-11-28T09:00:00Z');
    admin = await createUser(t, 'admin');
    ana = await createEmployee(t, { country_code: 'DE', first_name: 'Ana' });
    ben = await createEmployee(t, { country_code: 'FR', first_name: 'Ben' });
    await asUser(t, admin).put('/pay-periods/settings', {
      overtime: { daily_after_hours: 8, daily_double_after_hours: null, weekly_after_hours: null, seventh_day: false },
    });
    const vacation = (await asUser(t, admin).post('/leave-types', { name: 'Vacation', code: 'VAC' })).body.id;
    const unpaid = (await asUser(t, admin).post('/leave-types', { name: 'Unpaid', paid: false })).body.id;
    await asUser(t, admin).post('/holidays', { date: '2026-12-25', name: 'Christmas', country: 'DE' });
    await asUser(t, admin).post('/holidays', { date: '2026-12-24', name: 'Company afternoon', portion: 'half' });
    const leave = (body: Record<string, unknown>) => asUser(t, admin).post('/leaves', { employee: ana, ...body });
    expect((await leave({ leave_type: vacation, start_date: '2026-12-07', end_date: '2026-12-08', status: 'approved' })).status).toBe(201);
    expect(
      (
        await leave({
          leave_type: vacation,
          start_date: '2026-12-09',
          end_date: '2026-12-09',
          days: [{ date: '2026-12-09', portion: 'hours', hours: 2 }],
          status: 'approved',
        })
      ).status,
    ).toBe(201);
    expect((await leave({ leave_type: vacation, start_date: '2026-12-14', end_date: '2026-12-14' })).status).toBe(201);
    expect((await leave({ leave_type: unpaid, start_date: '2026-12-15', end_date: '2026-12-15', status: 'approved' })).status).toBe(201);
    // Ana works 10 hours on the 9th besides her 2 hours off: the leave adds no overtime.
    await insertAttendanceRow(t, ana, { in: '2026-12-09T08:00:00Z', out: '2026-12-09T18:00:00Z' });
  });

  it('readLeaveHours: approved paid leave under its code, paid holidays of the country and of everyone', async () => {
    const hours = await readLeaveHours(t.db, [ana, ben], '2026-12-01', '2026-12-31');
    expect(hours.get(ana)).toEqual([
      { date: '2026-12-07', leave_hours: 8, holiday_hours: 0, code: 'VAC' },
      { date: '2026-12-08', leave_hours: 8, holiday_hours: 0, code: 'VAC' },
      { date: '2026-12-09', leave_hours: 2, holiday_hours: 0, code: 'VAC' },
      { date: '2026-12-24', leave_hours: 0, holiday_hours: 4, code: null },
      { date: '2026-12-25', leave_hours: 0, holiday_hours: 8, code: null },
    ]);
    // Ben is in France: Germany's Christmas row is not his; the company afternoon is everyone's.
    expect(hours.get(ben)).toEqual([{ date: '2026-12-24', leave_hours: 0, holiday_hours: 4, code: null }]);
  });

  it("the timesheet's days and totals carry leave_hours, holiday_hours and the leave's code, outside overtime", async () => {
    const res = await asUser(t, admin).get(`/employees/${ana}/timesheets/2026-12-01`);
    expect(res.status).toBe(200);
    const day = (date: string) => res.body.days.find((entry: { date: string }) => entry.date === date);
    expect(day('2026-12-07')).toMatchObject({ worked_hours: 0, leave_hours: 8, holiday_hours: 0, code: 'VAC' });
    expect(day('2026-12-09')).toEqual({
      date: '2026-12-09',
      worked_hours: 10,
      regular_hours: 8,
      overtime_hours: 2,
      double_time_hours: 0,
      records: 1,
      break_deducted_hours: 0,
      leave_hours: 2,
      holiday_hours: 0,
      code: 'VAC',
    });
    expect(day('2026-12-14')).toMatchObject({ leave_hours: 0, code: null });
    expect(day('2026-12-15')).toMatchObject({ leave_hours: 0, code: null });
    expect(day('2026-12-25')).toMatchObject({ leave_hours: 0, holiday_hours: 8, code: null });
    expect(res.body.totals).toEqual({
      worked_hours: 10,
      regular_hours: 8,
      overtime_hours: 2,
      double_time_hours: 0,
      leave_hours: 18,
      holiday_hours: 12,
    });
    const list = await asUser(t, admin).get(`/timesheets?period=2026-12-01&employee=${ben}`);
    expect(list.body.data[0].totals).toMatchObject({ leave_hours: 0, holiday_hours: 4 });
  });

  it('the export writes paid leave under its code and holidays as HOL in every profile, outside overtime', async () => {
    const csv = await asUser(t, admin).get('/pay-periods/2026-12-01/export');
    expect(csv.status).toBe(200);
    const code = (id: number) => t.db('employees').where({ id }).first('employee_id');
    const [anaCode, benCode] = [(await code(ana)).employee_id, (await code(ben)).employee_id];
    expect(
      csv.text
        .split('\r\n')
        .filter((line: string) => line.startsWith(`${anaCode},`) || line.startsWith(`${benCode},`))
        .sort(),
    ).toEqual(
      [
        `${anaCode},${ana},2026-12-07,VAC,8.00,open`,
        `${anaCode},${ana},2026-12-08,VAC,8.00,open`,
        `${anaCode},${ana},2026-12-09,REG,8.00,open`,
        `${anaCode},${ana},2026-12-09,OT,2.00,open`,
        `${anaCode},${ana},2026-12-09,VAC,2.00,open`,
        `${anaCode},${ana},2026-12-24,HOL,4.00,open`,
        `${anaCode},${ana},2026-12-25,HOL,8.00,open`,
        `${benCode},${ben},2026-12-24,HOL,4.00,open`,
      ].sort(),
    );
    const wide = await asUser(t, admin).post('/export-profiles', {
      name: 'Wide with leave',
      layout: 'wide',
      columns: [
        { header: 'Code', value: 'employee_id' },
        { header: 'Regular', value: 'hours:REG' },
        { header: 'Overtime', value: 'hours:OT' },
        { header: 'Vacation', value: 'hours:VAC' },
        { header: 'Holiday', value: 'hours:HOL' },
        { header: 'Total', value: 'total_hours' },
      ],
      codes: { HOL: 'Holiday pay' },
    });
    expect(wide.status).toBe(201);
    const file = await asUser(t, admin).get(`/pay-periods/2026-12-01/export?profile=${wide.body.id}`);
    expect(file.text).toContain(`${anaCode},8.00,2.00,18.00,12.00,40.00\r\n`);
    expect(file.text).toContain(`${benCode},0.00,0.00,0.00,4.00,4.00\r\n`);
    const unknown = await asUser(t, admin).post('/export-profiles', {
      ...wide.body,
      id: undefined,
      template: undefined,
      name: 'Bad',
      codes: { SICK: 'x' },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual([{ field: 'codes.SICK', message: 'is not a code (REG, OT, DT, PTO, HOL, VAC)' }]);
  });
});
