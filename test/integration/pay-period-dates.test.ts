import request from 'supertest';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { runHrm } from '../helpers/cli';
import { testDialects } from '../helpers/databases';
import { createOrg } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// Dates at the ends of the calendar (docs/security.md, "Third review"): a period walk or lock
// near 9999-12-31 answers at once, and the server keeps answering meanwhile.

/** Runs `work` beside a /healthz request; both must be done well within a second. */
async function quickly<T>(t: { app: Parameters<typeof request>[0] }, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const [result, health] = await Promise.all([work(), request(t.app).get('/healthz')]);
  expect(health.status).toBe(200);
  expect(Date.now() - started).toBeLessThan(1000);
  return result;
}

describe.each(testDialects())('pay-period dates at the calendar ends on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  beforeEach(() => setClock(t, '2026-12-05T12:00:00.000Z'));
  afterEach(async () => {
    await t.db('pay_groups').where({ id: 1 }).update({ settings: null });
    t.instance.settings.invalidate();
  });

  const weekly = async () => {
    expect((await asUser(t, org.admin).put('/pay-periods/settings', { frequency: 'weekly' })).status).toBe(200);
  };
  const lockRows = async () => Number((await t.db('pay_period_locks').count({ n: '*' }))[0]?.n);

  it('lists the periods up to 9999-12-31 at once, the last one cut at that date', async () => {
    await weekly();

    const res = await quickly(t, () => asUser(t, org.manager).get('/pay-periods?to=9999-12-31&limit=2'));

    expect(res.status).toBe(200);
    expect(res.body.data[0]).toMatchObject({ start: '9999-12-27', end: '9999-12-31', status: 'open' });
    expect(res.body.data[1]).toMatchObject({ start: '9999-12-20', end: '9999-12-26' });
  });

  it.each([
    ['from=0001-01-01&to=9999-12-31', 'to'],
    ['to=10000-01-01', 'to'],
    ['from=0000-12-31', 'from'],
    ['from=9999-12-31&to=9999-12-30', 'to'],
  ])('answers 400 naming the parameter for %s', async (query, field) => {
    const res = await quickly(t, () => asUser(t, org.manager).get(`/pay-periods?${query}`));

    expectProblem(res, 400, 'invalid_query');
    expect(res.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('answers the period starting 9999-12-27 with its end cut at 9999-12-31, and 409 period_not_ended to its lock, writing nothing', async () => {
    await weekly();
    const before = await lockRows();

    const period = await asUser(t, org.manager).get('/pay-periods/9999-12-27');
    const res = await quickly(t, () => asUser(t, org.admin).post('/pay-periods/9999-12-27/lock'));

    expect(period.body).toMatchObject({ start: '9999-12-27', end: '9999-12-31', status: 'open' });
    expectProblem(res, 409, 'period_not_ended');
    expect(res.body.detail).toContain('9999-12-31');
    expect(await lockRows()).toBe(before);
  });

  it("counts a record on 9999-12-31 in the last period's timesheet, whose end has no next day", async () => {
    await weekly();
    const employee = org.report.employeeId as number;
    await insertAttendanceRow(t, employee, { in: '9999-12-31T08:00:00.000Z', out: '9999-12-31T10:30:00.000Z' });

    const res = await quickly(t, () => asUser(t, org.admin).get(`/employees/${employee}/timesheets/9999-12-27`));

    expect(res.status).toBe(200);
    expect(res.body.days.at(-1)).toMatchObject({ date: '9999-12-31', worked_hours: 2.5, regular_hours: 2.5 });
    expect(res.body.totals).toMatchObject({ worked_hours: 2.5 });
  });

  it('lists the first periods of the calendar from 0001-01-01, the first one cut at that date', async () => {
    const res = await quickly(t, () => asUser(t, org.manager).get('/pay-periods?from=0001-01-01&to=0001-02-10'));

    expect(res.status).toBe(200);
    expect(res.body.data.map((period: { start: string; end: string }) => [period.start, period.end])).toEqual([
      ['0001-02-01', '0001-02-28'],
      ['0001-01-01', '0001-01-31'],
    ]);
  });

  describe('hrm pay-period', () => {
    it('lists up to 9999-12-31 at once', async () => {
      await weekly();

      const result = await quickly(t, () => runHrm(t, ['pay-period', 'list', '--to', '9999-12-31']));

      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/9999-12-27 +9999-12-31 +open/);
    });

    it('refuses a range of more than ten years with a message, at once', async () => {
      const result = await quickly(t, () => runHrm(t, ['pay-period', 'list', '--from', '0001-01-01', '--to', '9999-12-31']));

      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('must be at most 3660 days after from');
    });

    it('refuses a date past 9999-12-31 with a message', async () => {
      const result = await runHrm(t, ['pay-period', 'list', '--to', '10000-01-01']);

      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('--to must be a date YYYY-MM-DD');
    });

    it('refuses to lock the period starting 9999-12-27, which has not ended, writing nothing', async () => {
      await weekly();
      const before = await lockRows();

      const result = await quickly(t, () => runHrm(t, ['pay-period', 'lock', '--start', '9999-12-27']));

      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('period_not_ended');
      expect(await lockRows()).toBe(before);
    });
  });
});
