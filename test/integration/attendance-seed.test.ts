import { addDays, instantOfWallClock, todayIn, weekdayOf } from '../../src/time';
import { asUser, setClock } from '../helpers/attendance';
import { runHrm } from '../helpers/cli';
import { testDialects } from '../helpers/databases';
import { createUser } from '../helpers/factories';
import { useTestApp } from '../helpers/test-app';

describe.each(testDialects())('hrm seed --attendance-days on %s', (dialect) => {
  const t = useTestApp(dialect);

  it("adds the last D working days of closed records to each new employee, in the employee's zone", async () => {
    // A Monday: yesterday was a Sunday everywhere the seed puts people, so the last working day is Friday.
    setClock(t, '2026-11-23T12:00:00Z');
    const before = Number((await t.db('attendance').count({ n: '*' }).first())?.n);

    // More rows than one INSERT takes on either database.
    const result = await runHrm(t, ['seed', '--employees', '200', '--attendance-days', '12']);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Added 200 employees \(ids (\d+)-(\d+)\) in [\d.]+ s\.\nAdded (\d+) attendance records \(12 working days per employee\) in [\d.]+ s\.\n$/,
    );
    const [, firstId, lastId, added] = /ids (\d+)-(\d+).*\nAdded (\d+)/s.exec(result.stdout) ?? [];
    const employees = await t
      .db('employees')
      .whereBetween('id', [Number(firstId), Number(lastId)])
      .select('id', 'timezone', 'status');
    const rows = await t
      .db('attendance')
      .whereIn(
        'employee_id',
        employees.map((employee) => employee.id),
      )
      .orderBy(['employee_id', 'in_time_utc']);
    expect(rows).toHaveLength(Number(added));
    expect(Number((await t.db('attendance').count({ n: '*' }).first())?.n)).toBe(before + Number(added));

    for (const employee of employees) {
      const own = rows.filter((row) => row.employee_id === employee.id);
      // Seeded terminations lie in the past: those employees have no recent attendance.
      expect(own).toHaveLength(employee.status === 'Active' ? 12 : 0);
      if (own.length === 0) continue;
      const yesterday = addDays(todayIn(employee.timezone, t.clock.now()), -1);
      expect(own.at(-1)?.in_time_local.slice(0, 10)).toBe(addDays(yesterday, -2));
      for (const [index, row] of own.entries()) {
        const date = row.in_time_local.slice(0, 10);
        expect([1, 2, 3, 4, 5]).toContain(weekdayOf(date));
        expect(row).toMatchObject({
          timezone: employee.timezone,
          open_employee_id: null,
          out_time_local: expect.stringMatching(new RegExp(`^${date} `)),
        });
        expect(row.in_time_local.slice(11) >= '07:30:00' && row.in_time_local.slice(11) <= '10:00:59').toBe(true);
        const inUtc = instantOfWallClock(employee.timezone, row.in_time_local);
        const outUtc = instantOfWallClock(employee.timezone, row.out_time_local);
        expect(inUtc?.toISOString().slice(0, 19).replace('T', ' ')).toBe(row.in_time_utc);
        expect(outUtc?.toISOString().slice(0, 19).replace('T', ' ')).toBe(row.out_time_utc);
        const hours = ((outUtc?.getTime() ?? 0) - (inUtc?.getTime() ?? 0)) / 3_600_000;
        expect(hours >= 7.5 && hours < 9.55).toBe(true);
        if (index > 0) expect(row.in_time_utc > own[index - 1]?.out_time_utc).toBe(true);
      }
    }

    const admin = await createUser(t, 'admin');
    const active = employees.find((employee) => employee.status === 'Active');
    const listed = await asUser(t, admin).get(`/employees/${active?.id}/attendance`);
    expect(listed.body.total).toBe(12);
    expect(listed.body.data.every((record: { hours: number }) => record.hours >= 7.5)).toBe(true);
  });

  it.each([['0'], ['many'], ['3651']])('refuses --attendance-days %s and adds nothing', async (days) => {
    const before = Number((await t.db('employees').count({ n: '*' }).first())?.n);

    const result = await runHrm(t, ['seed', '--employees', '5', '--attendance-days', days]);

    expect(result).toMatchObject({ code: 1, stderr: 'hrm: --attendance-days must be a whole number from 1 to 3650\n' });
    expect(Number((await t.db('employees').count({ n: '*' }).first())?.n)).toBe(before);
  });
});
