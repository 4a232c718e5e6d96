/**
 * @jest-environment ./test/helpers/timezone-environment.js
 * @timezone America/New_York
 */
import { asUser, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

describe.each(testDialects())('attendance times across zones, daylight saving and midnight on %s', (dialect) => {
  const t = useTestApp(dialect);
  const admin = useFixture(() => createUser(t, 'admin'));

  const api = () => asUser(t, admin);
  const punchIn = (body: object) => api().post('/attendance/punch-in', body);
  const punchOut = (body: object) => api().post('/attendance/punch-out', body);

  it('runs in the process time zone its docblock sets, so nothing below can lean on UTC', () => {
    expect(new Date(Date.UTC(2026, 0, 1)).getTimezoneOffset()).toBe(300);
  });

  describe('in Europe/Berlin', () => {
    let employee: number;
    beforeEach(async () => {
      employee = await createEmployee(t, { timezone: 'Europe/Berlin' });
    });

    it('counts the night shift 2026-03-28 22:00 to 2026-03-29 06:00 across the spring change as 7 hours', async () => {
      setClock(t, '2026-03-29T04:00:00Z');

      const opened = await punchIn({ employee, in_time: '2026-03-28 22:00:00' });
      const closed = await punchOut({ employee, out_time: '2026-03-29 06:00:00' });

      expect(opened.body).toMatchObject({ in_time: '2026-03-28 22:00:00', in_time_utc: '2026-03-28T21:00:00Z' });
      expect(closed.body).toMatchObject({ out_time: '2026-03-29 06:00:00', out_time_utc: '2026-03-29T04:00:00Z', hours: 7 });
    });

    it('counts the night shift 2026-10-24 22:00 to 2026-10-25 06:00 across the autumn change as 9 hours', async () => {
      setClock(t, '2026-10-25T06:00:00Z');

      await punchIn({ employee, in_time: '2026-10-24 22:00:00' });
      const closed = await punchOut({ employee, out_time: '2026-10-25 06:00:00' });

      expect(closed.body).toMatchObject({ in_time_utc: '2026-10-24T20:00:00Z', out_time_utc: '2026-10-25T05:00:00Z', hours: 9 });
    });

    it('reads 2026-10-25 02:30, shown twice, as the earlier instant; an offset selects the later one', async () => {
      setClock(t, '2026-10-25T12:00:00Z');
      const later = await createEmployee(t, { timezone: 'Europe/Berlin' });

      const ambiguous = await punchIn({ employee, in_time: '2026-10-25 02:30:00' });
      const withOffset = await punchIn({ employee: later, in_time: '2026-10-25T02:30:00+01:00' });

      expect(ambiguous.body).toMatchObject({ in_time: '2026-10-25 02:30:00', in_time_utc: '2026-10-25T00:30:00Z' });
      expect(withOffset.body).toMatchObject({ in_time: '2026-10-25 02:30:00', in_time_utc: '2026-10-25T01:30:00Z' });
    });

    it('refuses 2026-03-29 02:30, which the spring change skips, on every write path', async () => {
      setClock(t, '2026-03-30T12:00:00Z');
      const opened = await punchIn({ employee, in_time: '2026-03-29 01:00:00' });
      const skipped = 'does not exist in Europe/Berlin: the clocks skip it for daylight saving time; send the time with its offset';

      const out = await punchOut({ employee, out_time: '2026-03-29 02:30:00' });
      const created = await api().post('/attendance', { employee, in_time: '2026-03-28 02:30:00', out_time: '2026-03-29 02:59:59' });
      const corrected = await api().patch(`/attendance/${opened.body.id}`, { in_time: '2026-03-29 02:00:00' });

      expect(expectProblem(out, 422, 'validation_failed').errors).toEqual([{ field: 'out_time', message: skipped }]);
      expect(expectProblem(created, 422, 'validation_failed').errors).toEqual([{ field: 'out_time', message: skipped }]);
      expect(expectProblem(corrected, 422, 'validation_failed').errors).toEqual([{ field: 'in_time', message: skipped }]);
    });

    it('measures max_shift_hours in elapsed hours, not on the wall clock, across a change', async () => {
      setClock(t, '2026-10-26T12:00:00Z');

      // 23.5 hours on the wall clock, 24.5 elapsed: the clocks fell back an hour.
      const tooLong = await api().post('/attendance', { employee, in_time: '2026-10-24 12:00:00', out_time: '2026-10-25 11:30:00' });
      // 24.5 hours on the wall clock, 23.5 elapsed: the clocks jumped forward an hour.
      const fits = await api().post('/attendance', { employee, in_time: '2026-03-28 12:00:00', out_time: '2026-03-29 12:30:00' });

      expect(expectProblem(tooLong, 422, 'validation_failed').errors).toEqual([
        { field: 'out_time', message: 'must be at most 24 hours after in_time (max_shift_hours)' },
      ]);
      expect(fits.status).toBe(201);
      expect(fits.body.hours).toBe(23.5);
    });
  });

  it("punches in without a time at the server's instant, shown on the employee's wall clock, across midnight", async () => {
    setClock(t, '2026-11-19T23:30:00Z');
    const employee = await createEmployee(t, { timezone: 'Asia/Kolkata' });

    const res = await punchIn({ employee });

    expect(res.body).toMatchObject({ in_time: '2026-11-20 05:00:00', in_time_utc: '2026-11-19T23:30:00Z', timezone: 'Asia/Kolkata' });
  });

  it('lets a shift cross midnight and files it under the date it began on', async () => {
    setClock(t, '2026-11-20T12:00:00Z');
    const employee = await createEmployee(t, { timezone: 'Asia/Tokyo' });
    await punchIn({ employee, in_time: '2026-11-18 22:00:00' });
    const closed = await punchOut({ employee, out_time: '2026-11-19 06:15:00' });
    const list = (from: string, to: string) => api().get(`/employees/${employee}/attendance?from=${from}&to=${to}`);

    const started = await list('2026-11-18', '2026-11-18');
    const ended = await list('2026-11-19', '2026-11-19');

    expect(closed.body).toMatchObject({ in_time: '2026-11-18 22:00:00', out_time: '2026-11-19 06:15:00', hours: 8.25 });
    expect(started.body).toMatchObject({ total: 1, data: [{ id: closed.body.id }] });
    expect(ended.body).toEqual({ data: [], total: 0, nextPage: null });
  });

  it("reads from and to as dates in the employee's zone, not in UTC", async () => {
    setClock(t, '2026-11-20T12:00:00Z');
    const employee = await createEmployee(t, { timezone: 'Pacific/Auckland' });
    // 08:00 on the 19th in Auckland is 19:00 on the 18th in UTC.
    const record = await api().post('/attendance', { employee, in_time: '2026-11-19 08:00:00', out_time: '2026-11-19 16:00:00' });

    const onThe19th = await api().get(`/employees/${employee}/attendance?from=2026-11-19&to=2026-11-19`);
    const onThe18th = await api().get(`/attendance?employee=${employee}&from=2026-11-18&to=2026-11-18`);

    expect(record.body.in_time_utc).toBe('2026-11-18T19:00:00Z');
    expect(onThe19th.body.data.map((entry: { id: string }) => entry.id)).toEqual([record.body.id]);
    expect(onThe18th.body.total).toBe(0);
  });

  it("answers open-punch-in for today in the employee's zone, with their wall-clock time", async () => {
    // 18:00 on the 19th in Los Angeles.
    setClock(t, '2026-11-20T02:00:00Z');
    const employee = await createEmployee(t, { timezone: 'America/Los_Angeles' });
    const opened = await punchIn({ employee, in_time: '2026-11-19 17:00:00' });

    const today = await api().get(`/employee/${employee}/open-punch-in/today`);

    expect(today.status).toBe(200);
    expect(today.body).toEqual({ attendance: opened.body, time: '2026-11-19 18:00:00' });
  });
});
