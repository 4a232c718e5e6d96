import request from 'supertest';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// Findings of the third security review on pay periods (docs/security.md, "Third review"):
// formula injection in the CSV export, and settings hours that only looked like 2 decimals.

describe.each(testDialects())('pay periods after the third review on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  beforeEach(() => setClock(t, '2026-12-05T12:00:00.000Z'));

  const settingsRow = async () => (await t.db('pay_groups').where({ id: 1 }).first('settings'))?.settings ?? undefined;

  describe('settings hours', () => {
    afterEach(async () => {
      await t.db('pay_groups').where({ id: 1 }).update({ settings: null });
    });

    it.each([1e-9, 8.004, 0.001, 168.01])('refuses %p hours with 422 naming the key once, and writes nothing', async (hours) => {
      const res = await asUser(t, org.admin).put('/pay-periods/settings', { overtime: { daily_after_hours: hours } });

      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors).toEqual([
        { field: 'overtime.daily_after_hours', message: 'must be null or a number of hours above 0, at most 168, with at most 2 decimals' },
      ]);
      expect(await settingsRow()).toBeUndefined();
    });

    it('accepts hours with 2 decimals', async () => {
      const res = await asUser(t, org.admin).put('/pay-periods/settings', {
        overtime: { daily_after_hours: 0.01, weekly_after_hours: 37.45 },
      });

      expect(res.status).toBe(200);
      expect(res.body.overtime).toMatchObject({ daily_after_hours: 0.01, weekly_after_hours: 37.45 });
    });
  });

  describe('CSV export', () => {
    const codes = ['=HYPERLINK("x")', '+1', '-2', '@SUM(A1)', '\tTAB', '\rCR', 'PLAIN'];
    const employees = useFixture(async () => {
      const ids: number[] = [];
      for (const code of codes) {
        const id = await createEmployee(t, { employee_id: code });
        await insertAttendanceRow(t, id, { in: '2026-11-02T08:00:00Z', out: '2026-11-02T10:00:00Z' });
        ids.push(id);
      }
      return ids;
    });

    it("writes a leading ' before a code beginning with =, +, -, @, tab or CR, and numbers as they are", async () => {
      const res = await request(t.app)
        .get(t.api('/pay-periods/2026-11-01/export'))
        .auth(org.admin.token, { type: 'bearer' })
        .buffer(true)
        .parse((response, done) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => done(null, Buffer.concat(chunks).toString('utf8')));
        });

      expect(res.status).toBe(200);
      const lines = (res.body as string).split('\r\n');
      const lineOf = (index: number) => lines.find((line) => line.includes(`,${employees[index]},2026-11-02,REG,`));
      expect(lineOf(0)).toBe(`"'=HYPERLINK(""x"")",${employees[0]},2026-11-02,REG,2.00,open`);
      expect(lineOf(1)).toBe(`'+1,${employees[1]},2026-11-02,REG,2.00,open`);
      expect(lineOf(2)).toBe(`'-2,${employees[2]},2026-11-02,REG,2.00,open`);
      expect(lineOf(3)).toBe(`'@SUM(A1),${employees[3]},2026-11-02,REG,2.00,open`);
      expect(lineOf(4)).toBe(`'\tTAB,${employees[4]},2026-11-02,REG,2.00,open`);
      expect(res.body).toContain(`"'\rCR",${employees[5]},2026-11-02,REG,2.00,open`);
      expect(lineOf(6)).toBe(`PLAIN,${employees[6]},2026-11-02,REG,2.00,open`);
    });

    it('keeps the JSON export as the codes are', async () => {
      const res = await asUser(t, org.admin).get('/pay-periods/2026-11-01/export?format=json');

      expect(res.status).toBe(200);
      const codesOf = new Map(res.body.rows.map((row: { employee: string; employee_id: string }) => [row.employee, row.employee_id]));
      expect(codesOf.get(String(employees[0]))).toBe('=HYPERLINK("x")');
      expect(codesOf.get(String(employees[2]))).toBe('-2');
    });
  });

  describe('lock ?require_approved=', () => {
    const locks = async () => Number((await t.db('pay_period_locks').count({ n: '*' }))[0]?.n);

    it('takes true and false (a generated client sends a boolean as that text), and refuses anything else naming it', async () => {
      await createEmployee(t, { employee_id: 'UNAPPROVED-LOCK' }).then((id) =>
        insertAttendanceRow(t, id, { in: '2026-10-05T08:00:00Z', out: '2026-10-05T12:00:00Z' }),
      );
      const before = await locks();

      const refused = await asUser(t, org.admin).post('/pay-periods/2026-10-01/lock?require_approved=yes');
      expectProblem(refused, 400, 'invalid_query');
      expect(refused.body.errors).toEqual([{ field: 'require_approved', message: 'must be true or false' }]);
      expectProblem(await asUser(t, org.admin).post('/pay-periods/2026-10-01/lock?require_approved=true'), 409, 'unapproved_timesheets');
      expect(await locks()).toBe(before);

      const locked = await asUser(t, org.admin).post('/pay-periods/2026-10-01/lock?require_approved=false');
      expect(locked.status).toBe(200);
      expect(locked.body).toMatchObject({ start: '2026-10-01', status: 'locked' });
      expect((await asUser(t, org.admin).post('/pay-periods/2026-10-01/unlock')).status).toBe(200);
    });
  });
});
