import Holidays from 'date-holidays';
import { asUser, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg, type Org } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useTestApp } from '../helpers/test-app';

// Holidays and the work week (CONTRACT 6.8, docs/leave.md "Holidays", "Settings").

/** The public holidays date-holidays computes, as the import should store them. */
function publicHolidays(country: string, year: number, region?: string): Array<{ date: string; name: string }> {
  const calendar = region ? new Holidays(country, region) : new Holidays(country);
  return calendar
    .getHolidays(year, 'en')
    .filter((holiday) => holiday.type === 'public')
    .map((holiday) => ({ date: holiday.date.slice(0, 10), name: holiday.name }));
}

describe.each(testDialects())('holidays on %s', (dialect) => {
  const t = useTestApp(dialect);
  let org: Org;
  beforeAll(async () => {
    setClock(t, '2026-11-28T09:00:00Z');
    org = await createOrg(t);
  });

  describe('/holidays', () => {
    it('admins add and delete holidays; everyone reads them, by country or of everyone', async () => {
      const everyone = await asUser(t, org.admin).post('/holidays', { date: '2030-12-24', name: 'Company day', portion: 'half' });
      expect(everyone.status).toBe(201);
      expect(everyone.headers.location).toBe(t.api(`/holidays/${everyone.body.id}`));
      expect(everyone.body).toEqual({
        id: expect.stringMatching(/^\d+$/),
        date: '2030-12-24',
        name: 'Company day',
        portion: 'half',
        country: null,
        paid: true,
      });
      const french = await asUser(t, org.admin).post('/holidays', {
        date: '2030-07-14',
        name: 'Fête nationale',
        country: 'fr',
        paid: false,
      });
      expect(french.body).toMatchObject({ country: 'FR', portion: 'full', paid: false });

      const all = await asUser(t, org.report).get('/holidays?from=2030-01-01&to=2030-12-31');
      expect(all.status).toBe(200);
      expect(all.body).toEqual({ data: [french.body, everyone.body], total: 2, nextPage: null });
      expect((await asUser(t, org.report).get('/holidays?from=2030-01-01&country=FR')).body.data).toEqual([french.body]);
      expect((await asUser(t, org.report).get('/holidays?from=2030-01-01&country=none')).body.data).toEqual([everyone.body]);

      expectProblem(await asUser(t, org.manager).delete(`/holidays/${french.body.id}`), 403, 'forbidden');
      const deleted = await asUser(t, org.admin).delete(`/holidays/${french.body.id}`);
      expect(deleted.body).toEqual({ id: french.body.id });
      expectProblem(await asUser(t, org.admin).delete(`/holidays/${french.body.id}`), 404, 'not_found');
    });

    it('refuses bad holidays with 422 naming each field, and writes nothing', async () => {
      const before = await t.db('holidays').count({ n: '*' }).first();
      const res = await asUser(t, org.admin).post('/holidays', {
        date: '2030-02-30',
        name: ' ',
        portion: 'quarter',
        country: 'XYZ',
        paid: 'yes',
      });
      const problem = expectProblem(res, 422, 'validation_failed');
      expect(problem.errors.map((error: { field: string }) => error.field).sort()).toEqual(['country', 'date', 'name', 'paid', 'portion']);
      expectProblem(await asUser(t, org.manager).post('/holidays', { date: '2030-01-01', name: 'Mine' }), 403, 'forbidden');
      expectProblem(await asUser(t, org.admin).get('/holidays?country=germany'), 400, 'invalid_query');
      expect(await t.db('holidays').count({ n: '*' }).first()).toEqual(before);
    });
  });

  describe('POST /holidays/import', () => {
    it("stores a country's public holidays of a year once: a second import adds nothing and changes no stored row", async () => {
      const expected = publicHolidays('DE', 2031);
      expect(expected.length).toBeGreaterThan(5);
      const first = await asUser(t, org.admin).post('/holidays/import', { country: 'de', year: 2031 });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ imported: expected.length, skipped: 0 });
      const stored = await asUser(t, org.report).get('/holidays?from=2031-01-01&to=2031-12-31&country=DE&limit=500');
      expect(stored.body.data.map((holiday: { date: string; name: string }) => ({ date: holiday.date, name: holiday.name }))).toEqual(
        [...expected].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)),
      );
      expect(
        stored.body.data.every(
          (holiday: Record<string, unknown>) => holiday.country === 'DE' && holiday.portion === 'full' && holiday.paid,
        ),
      ).toBe(true);

      // An admin's change to an imported row stays through the next import.
      await t.db('holidays').where({ country: 'DE', date: expected[0]!.date }).update({ paid: false });
      const second = await asUser(t, org.admin).post('/holidays/import', { country: 'DE', year: 2031 });
      expect(second.body).toEqual({ imported: 0, skipped: expected.length });
      expect(await t.db('holidays').where({ country: 'DE' }).whereBetween('date', ['2031-01-01', '2031-12-31'])).toHaveLength(
        expected.length,
      );
      const kept = await t.db('holidays').where({ country: 'DE', date: expected[0]!.date }).first();
      expect(Number(kept.paid)).toBe(0);

      // A region adds its own public holidays to the country's.
      const bavaria = publicHolidays('DE', 2031, 'BY');
      const regional = await asUser(t, org.admin).post('/holidays/import', { country: 'DE', region: 'BY', year: 2031 });
      expect(regional.body).toEqual({ imported: bavaria.length - expected.length, skipped: expected.length });
    });

    it('stores a holiday of several days on each of its dates, and payroll pays each of them', async () => {
      // date-holidays gives South Korea's New Year and Thanksgiving of 2026 three days each.
      const first = await asUser(t, org.admin).post('/holidays/import', { country: 'KR', year: 2026 });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ imported: 20, skipped: 0 });
      const rows = (name: string) =>
        t
          .db('holidays')
          .where({ country: 'KR', name })
          .orderBy('date')
          .select('date', 'portion', 'paid')
          .then((found) => found.map((row) => [String(row.date).slice(0, 10), row.portion, Boolean(Number(row.paid))]));
      expect(await rows('Korean New Year')).toEqual([
        ['2026-02-17', 'full', true],
        ['2026-02-18', 'full', true],
        ['2026-02-19', 'full', true],
      ]);
      expect(await rows('Korean Thanksgiving')).toEqual([
        ['2026-09-24', 'full', true],
        ['2026-09-25', 'full', true],
        ['2026-09-26', 'full', true],
      ]);
      const second = await asUser(t, org.admin).post('/holidays/import', { country: 'KR', year: 2026 });
      expect(second.body).toEqual({ imported: 0, skipped: 20 });

      // Tuesday to Thursday of the New Year: three working days of holiday pay.
      const employee = await createEmployee(t, { country_code: 'KR' });
      const sheet = await asUser(t, org.admin).get(`/employees/${employee}/timesheets/2026-02-01`);
      expect(sheet.status).toBe(200);
      expect(sheet.body.totals.holiday_hours).toBe(24);
      expect(
        sheet.body.days.filter((day: { holiday_hours: number }) => day.holiday_hours > 0).map((day: { date: string }) => day.date),
      ).toEqual(['2026-02-17', '2026-02-18', '2026-02-19']);
    });

    it('refuses an unknown country or region, a bad year, and non-admins; nothing is written', async () => {
      const before = await t.db('holidays').count({ n: '*' }).first();
      const unknown = expectProblem(
        await asUser(t, org.admin).post('/holidays/import', { country: 'XX', year: 2031 }),
        422,
        'validation_failed',
      );
      expect(unknown.errors).toEqual([{ field: 'country', message: expect.any(String) }]);
      const region = expectProblem(
        await asUser(t, org.admin).post('/holidays/import', { country: 'DE', region: 'ZZ', year: 2031 }),
        422,
        'validation_failed',
      );
      expect(region.errors).toEqual([{ field: 'region', message: expect.any(String) }]);
      const year = expectProblem(
        await asUser(t, org.admin).post('/holidays/import', { country: 'DE', year: 1900 }),
        422,
        'validation_failed',
      );
      expect(year.errors).toEqual([{ field: 'year', message: expect.any(String) }]);
      expectProblem(await asUser(t, org.manager).post('/holidays/import', { country: 'DE', year: 2031 }), 403, 'forbidden');
      expect(await t.db('holidays').count({ n: '*' }).first()).toEqual(before);
    });
  });

  describe('/leave-settings', () => {
    it('reads the defaults, lets admins change them, and the work week decides the default days of a leave', async () => {
      expect((await asUser(t, org.report).get('/leave-settings')).body).toEqual({
        work_week: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
        standard_day_hours: 8,
      });
      expectProblem(await asUser(t, org.manager).put('/leave-settings', { standard_day_hours: 7 }), 403, 'forbidden');
      const bad = expectProblem(
        await asUser(t, org.admin).put('/leave-settings', { work_week: ['monday', 'funday', 'monday'], standard_day_hours: 25 }),
        422,
        'validation_failed',
      );
      expect(bad.errors.map((error: { field: string }) => error.field)).toContain('standard_day_hours');
      expect(bad.errors.some((error: { field: string }) => error.field.startsWith('work_week'))).toBe(true);
      expect(await t.db('settings').whereIn('name', ['work_week', 'standard_day_hours'])).toEqual([]);

      const changed = await asUser(t, org.admin).put('/leave-settings', {
        work_week: ['saturday', 'tuesday', 'wednesday', 'thursday', 'friday'],
      });
      expect(changed.body).toEqual({ work_week: ['tuesday', 'wednesday', 'thursday', 'friday', 'saturday'], standard_day_hours: 8 });
      expect((await asUser(t, org.admin).put('/leave-settings', { standard_day_hours: 7.5 })).body.standard_day_hours).toBe(7.5);

      const type = (await asUser(t, org.admin).post('/leave-types', { name: 'Week test' })).body.id;
      const employee = await createEmployee(t);
      // Sunday 2030-03-03 to Sunday 2030-03-10 with Monday off.
      const leave = await asUser(t, org.admin).post('/leaves', {
        employee,
        leave_type: type,
        start_date: '2030-03-03',
        end_date: '2030-03-10',
      });
      expect(leave.body.days.map((day: { date: string }) => day.date)).toEqual([
        '2030-03-05',
        '2030-03-06',
        '2030-03-07',
        '2030-03-08',
        '2030-03-09',
      ]);
      const hours = expectProblem(
        await asUser(t, org.admin).post('/leaves', {
          employee,
          leave_type: type,
          start_date: '2030-03-12',
          end_date: '2030-03-12',
          days: [{ date: '2030-03-12', portion: 'hours', hours: 8 }],
        }),
        422,
        'validation_failed',
      );
      expect(hours.errors).toEqual([{ field: 'days.0.hours', message: "must be at most the day's 7.5 hours" }]);
      await asUser(t, org.admin).put('/leave-settings', {
        work_week: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
        standard_day_hours: 8,
      });
    });
  });
});
