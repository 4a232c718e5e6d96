import { setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createUser, type TestUser } from '../helpers/factories';
import { publishedVectors, type Vector } from '../helpers/overtime-vectors';
import { eachAtOnce, type ReplayResponse, useReplayClient } from '../helpers/replay-client';
import { useFixture, useTestApp } from '../helpers/test-app';

// Each employee is classified by THEIR pay group's rules (CONTRACT 6.5; docs/pay-periods.md, "A
// group's rules in the classification"): the published vectors with `group_rules` replayed
// through the API, each vector's employee in a group of its own holding the vector's rules, read
// back from the timesheet and the export of the period. Periods stay group 1's: weekly from
// Monday 2024-06-03, the range of every one of these vectors.

const vectors = publishedVectors().cases.filter((vector) => vector.group_rules !== undefined);
const PERIOD = '2024-06-03';
const instant = (stored: string) => `${stored.replace(' ', 'T')}Z`;
const hours = (value: number) => value.toFixed(2);
/** Requests in flight at once. */
const AT_ONCE = 8;
const MEAL_BREAK_VECTOR = 'hand: meal break 30 min after 6 h, one 9-hour record: 8.50 worked';

describe.each(testDialects())('pay-group rules through the API on %s', (dialect) => {
  const t = useTestApp(dialect);
  const client = useReplayClient(t);
  beforeAll(() => setClock(t, '2027-06-01T00:00:00.000Z'));
  const admin = useFixture<TestUser>(() => createUser(t, 'admin'));
  /** Each vector's employee id and timesheet. */
  const answers = new Map<string, { employee: string; group: number; sheet: ReplayResponse }>();
  let control: { employee: string; sheet: ReplayResponse };
  /** Each group's export of the period: an export lists the employees of its group (CONTRACT 6.5). */
  const exported = new Map<number, ReplayResponse>();

  /** An employee with the vector's records, in group `group` (moved there before any record). */
  const employeeWith = async (vector: Vector, code: string, group: number | null): Promise<string> => {
    const as = client(admin);
    const timezone = vector.records[0]?.timezone ?? 'UTC';
    const employee = await as.post('/employees', { employee_id: code, first_name: 'Rules', last_name: code, timezone });
    if (employee.status !== 201) throw new Error(`POST /employees: ${employee.status} ${JSON.stringify(employee.body)}`);
    if (group !== null) {
      const moved = await as.patch(`/employees/${employee.body.id}`, { pay_group: String(group) });
      if (moved.status !== 200) throw new Error(`PATCH pay_group: ${moved.status} ${JSON.stringify(moved.body)}`);
    }
    for (const record of vector.records) {
      const written = await as.post('/attendance', {
        employee: employee.body.id,
        in_time: instant(record.in_time_utc),
        out_time: instant(record.out_time_utc!),
      });
      if (written.status !== 201) throw new Error(`writing ${JSON.stringify(record)}: ${written.status} ${JSON.stringify(written.body)}`);
    }
    return String(employee.body.id);
  };

  beforeAll(async () => {
    const as = client(admin);
    const put = await as.put('/pay-periods/settings', { frequency: 'weekly', anchor_date: PERIOD, workweek_start: 'monday' });
    if (put.status !== 200) throw new Error(`PUT /pay-periods/settings: ${put.status} ${JSON.stringify(put.body)}`);
    // Each vector has a group and an employee of its own: they are replayed side by side.
    await eachAtOnce(vectors, AT_ONCE, async (vector, index) => {
      const number = index + 1;
      const group = await as.post('/pay-groups', {
        name: `Vector ${number}`,
        frequency: 'weekly',
        anchor_date: PERIOD,
        workweek_start: vector.workweek_start,
        overtime: vector.rules,
        ...vector.group_rules,
      });
      if (group.status !== 201) throw new Error(`POST /pay-groups: ${group.status} ${JSON.stringify(group.body)}`);
      const employee = await employeeWith(vector, `G-${number}`, Number(group.body.id));
      answers.set(vector.name, {
        employee,
        group: Number(group.body.id),
        sheet: await as.get(`/employees/${employee}/timesheets/${PERIOD}`),
      });
    });
    // The same records in group 1 (weekly 40, no rule of 6.5): what the group's rules change.
    const meal = vectors.find((vector) => vector.name === MEAL_BREAK_VECTOR)!;
    const employee = await employeeWith(meal, 'G-control', null);
    control = { employee, sheet: await as.get(`/employees/${employee}/timesheets/${PERIOD}`) };
    // One export at a time: the server streams only a few at once and refuses more (429).
    for (const group of [1, ...[...answers.values()].map((answer) => answer.group)])
      exported.set(group, await as.get(`/pay-periods/${PERIOD}/export?format=json&group=${group}`));
  }, 120_000);

  it('replays every vector with group rules: exempt, meal breaks and rounding', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(10);
    expect(vectors.some((vector) => vector.group_rules!.exempt)).toBe(true);
    expect(vectors.some((vector) => vector.group_rules!.meal_break !== null)).toBe(true);
    expect(vectors.some((vector) => vector.group_rules!.rounding !== null)).toBe(true);
  });

  it.each(vectors.map((vector) => [vector.name, vector] as const))('timesheet: %s', (_name, vector) => {
    const { sheet } = answers.get(vector.name)!;

    expect(sheet.status).toBe(200);
    const days = sheet.body.days as Array<Record<string, number | string>>;
    expect(days.map((day) => day.date)).toEqual(['03', '04', '05', '06', '07', '08', '09'].map((day) => `2024-06-${day}`));
    const shown = (day: Record<string, number | string>) => ({
      date: day.date,
      records: day.records,
      worked_hours: hours(Number(day.worked_hours)),
      regular_hours: hours(Number(day.regular_hours)),
      overtime_hours: hours(Number(day.overtime_hours)),
      double_time_hours: hours(Number(day.double_time_hours)),
      break_deducted_hours: hours(Number(day.break_deducted_hours)),
    });
    expect(days.filter((day) => Number(day.records) > 0).map(shown)).toEqual(vector.expected.days);
    const totals = sheet.body.totals as Record<string, number>;
    expect({
      worked_hours: hours(totals.worked_hours!),
      regular_hours: hours(totals.regular_hours!),
      overtime_hours: hours(totals.overtime_hours!),
      double_time_hours: hours(totals.double_time_hours!),
    }).toEqual(vector.expected.totals);
  });

  it.each(vectors.map((vector) => [vector.name, vector] as const))('export: %s', (_name, vector) => {
    const { employee, group } = answers.get(vector.name)!;
    const groupExport = exported.get(group)!;

    expect(groupExport.status).toBe(200);
    const rows = (groupExport.body.rows as Array<{ employee: string; code: string; hours: number }>).filter(
      (row) => row.employee === employee,
    );
    const sum = (code: string) => hours(rows.filter((row) => row.code === code).reduce((total, row) => total + row.hours, 0));
    expect({ regular_hours: sum('REG'), overtime_hours: sum('OT'), double_time_hours: sum('DT') }).toEqual({
      regular_hours: vector.expected.totals.regular_hours,
      overtime_hours: vector.expected.totals.overtime_hours,
      double_time_hours: vector.expected.totals.double_time_hours,
    });
  });

  it('classifies the same records in group 1 by group 1’s rules: no break deducted', () => {
    expect(control.sheet.status).toBe(200);
    expect(control.sheet.body.totals).toMatchObject({ worked_hours: 9, regular_hours: 9, overtime_hours: 0 });
    const monday = (control.sheet.body.days as Array<Record<string, unknown>>)[0];
    expect(monday).toMatchObject({ date: PERIOD, worked_hours: 9, break_deducted_hours: 0 });
    const rows = (exported.get(1)!.body.rows as Array<{ employee: string; code: string; hours: number }>).filter(
      (row) => row.employee === control.employee,
    );
    expect(rows.map((row) => [row.code, row.hours])).toEqual([['REG', 9]]);
  });
});
