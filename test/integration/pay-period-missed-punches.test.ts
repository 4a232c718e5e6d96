import { lockInTwoSteps } from '../../src/pay-periods/lock';
import { SETTING, writeSetting } from '../../src/settings/repository';
import { createWebhook } from '../../src/webhooks/subscriptions';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { runHrm } from '../helpers/cli';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg, unique } from '../helpers/factories';
import { checkComponent } from '../helpers/openapi-check';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// The period end, step by step (docs/pay-periods.md): records left without a punch-out refuse the
// lock (409 open_records) or, with allow_open_records=true, become missed punch-outs; and a period
// has ended only once the next day has begun on every employee's wall clock.

const LA = 'America/Los_Angeles';
const NY = 'America/New_York';

describe.each(testDialects())('missed punch-outs and the period end on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  useFixture(async () => ({
    webhook: await createWebhook(t.db, { url: 'https://93.184.215.14/hooks', events: ['*'] }, t.clock.now()),
  }));
  beforeEach(() => setClock(t, '2026-12-05T12:00:00.000Z'));
  afterEach(async () => {
    await t.db('pay_period_snapshots').delete();
    await t.db('pay_period_locks').delete();
    await t.db('timesheet_approvals').delete();
    await t.db('attendance').delete();
  });

  const count = async (table: string) => Number(((await t.db(table).count({ n: '*' }).first()) as { n: number | string }).n);
  /** What a refused lock must leave as it was. */
  const stateOf = async () => ({
    locks: await count('pay_period_locks'),
    snapshots: await count('pay_period_snapshots'),
    audit: await count('audit_log'),
    events: await count('webhook_events'),
    records: await t.db('attendance').orderBy('id'),
  });
  const lock = (query = '') => asUser(t, org.admin).post(`/pay-periods/2026-11-01/lock${query}`);

  /**
   * Two employees punched in on November 30 on their own wall clocks and never out: one in Los
   * Angeles (with an 8-hour shift earlier in the month), one in New York whose punch is December 1
   * in UTC. A third punched in on December 1, after the period.
   */
  async function leftPunchedIn() {
    const la = await createEmployee(t, { timezone: LA, employee_id: unique('LA-') });
    const ny = await createEmployee(t, { timezone: NY });
    const december = await createEmployee(t);
    const closed = await insertAttendanceRow(t, la, { in: '2026-11-02T16:00:00Z', out: '2026-11-03T00:00:00Z', timezone: LA });
    const laOpen = await insertAttendanceRow(t, la, { in: '2026-11-30T23:00:00Z', out: null, timezone: LA });
    const nyOpen = await insertAttendanceRow(t, ny, { in: '2026-12-01T03:00:00Z', out: null, timezone: NY });
    const decemberOpen = await insertAttendanceRow(t, december, { in: '2026-12-01T09:00:00Z', out: null });
    const listed = [
      { employee: String(la), attendance: String(laOpen), in_time: '2026-11-30 15:00:00' },
      { employee: String(ny), attendance: String(nyOpen), in_time: '2026-11-30 22:00:00' },
    ];
    return { la, ny, december, closed, laOpen, nyOpen, decemberOpen, listed };
  }

  describe('POST /pay-periods/{start}/lock while records of the period are open', () => {
    it('refuses with 409 open_records listing each (employee, attendance, in_time), and writes nothing', async () => {
      const { la, ny, laOpen, nyOpen, listed } = await leftPunchedIn();
      const before = await stateOf();

      const res = await lock();

      const body = expectProblem(res, 409, 'open_records');
      expect(body.detail).toBe(
        '2 records of the period have no punch-out: punch out or correct them, or lock with allow_open_records=true to pass them over as missed punch-outs',
      );
      expect(body.open_records).toEqual(listed);
      expect(body.errors).toEqual([
        { field: 'attendance', message: `${laOpen} of employee ${la}, in at 2026-11-30 15:00:00, has no punch-out` },
        { field: 'attendance', message: `${nyOpen} of employee ${ny}, in at 2026-11-30 22:00:00, has no punch-out` },
      ]);
      expect(checkComponent('Problem', body)).toBeUndefined();
      expect(await stateOf()).toEqual(before);
    });

    it('claims nothing while it will refuse: the punch-out that closes an open record meanwhile goes through', async () => {
      const { la } = await leftPunchedIn();
      const context = { caller: undefined, now: t.clock.now(), defaultTimezone: 'UTC' };

      // Between the lock's two steps (src/pay-periods/lock.ts), where a claimed period refuses every write.
      const punchedOut = await lockInTwoSteps(t.db, '2026-11-01', context, () =>
        asUser(t, org.admin).post('/attendance/punch-out', { employee: String(la), out_time: '2026-11-30 23:00:00' }),
      );

      expect(punchedOut.status).toBe(200);
      expect(punchedOut.body).toMatchObject({ out_time: '2026-11-30 23:00:00', hours: 8 });
      expect(await count('pay_period_locks')).toBe(0);
    });

    it('refuses allow_open_records other than true or false with 400 naming it, and writes nothing', async () => {
      await leftPunchedIn();
      const before = await stateOf();

      for (const junk of ['yes', '1', 'TRUE', '']) {
        const body = expectProblem(await lock(`?allow_open_records=${junk}`), 400, 'invalid_query');
        expect(body.errors).toEqual([{ field: 'allow_open_records', message: 'must be true or false' }]);
      }
      expectProblem(await lock('?allow_open_records=false'), 409, 'open_records');
      expect(await stateOf()).toEqual(before);
    });

    it('with allow_open_records=true locks, makes each a missed punch-out, and lists them in the answer, event, timesheet and export', async () => {
      const { la, decemberOpen, december, closed, laOpen, nyOpen, listed } = await leftPunchedIn();

      const res = await lock('?allow_open_records=true');

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        start: '2026-11-01',
        end: '2026-11-30',
        status: 'locked',
        locked_at: '2026-12-05T12:00:00.000Z',
        locked_by: org.admin.username,
        lock_version: expect.any(Number),
        open_records: listed,
      });
      const rows = await t
        .db('attendance')
        .whereIn('id', [laOpen, nyOpen, decemberOpen])
        .orderBy('id')
        .select('out_time_utc', 'open_employee_id', 'missed_punch_out', 'updated_at');
      expect(
        rows.map((row) => [row.out_time_utc, row.open_employee_id, Boolean(row.missed_punch_out), row.updated_at.slice(0, 19)]),
      ).toEqual([
        [null, null, true, '2026-12-05 12:00:00'],
        [null, null, true, '2026-12-05 12:00:00'],
        [null, december, false, expect.any(String)],
      ]);

      const listedAs = async (open: boolean) =>
        (await asUser(t, org.admin).get(`/attendance?employee=${la}&open=${open}`)).body.data.map((record: { id: string }) => record.id);
      expect(await listedAs(true)).toEqual([]);
      expect(await listedAs(false)).toEqual([String(laOpen), String(closed)]);
      const read = await asUser(t, org.admin).get(`/attendance/${laOpen}`);
      expect(read.body).toMatchObject({ id: String(laOpen), out_time: null, hours: null, missed_punch_out: true });
      expect((await asUser(t, org.admin).get(`/attendance/${closed}`)).body).not.toHaveProperty('missed_punch_out');

      const audits = await t.db('audit_log').where({ entity_type: 'attendance', action: 'missed_punch_out' }).orderBy('entity_id');
      expect(audits.map((row) => [Number(row.entity_id), row.actor_username, JSON.parse(row.fields), JSON.parse(row.changes)])).toEqual([
        [laOpen, org.admin.username, ['missed_punch_out'], { missed_punch_out: { from: false, to: true } }],
        [nyOpen, org.admin.username, ['missed_punch_out'], { missed_punch_out: { from: false, to: true } }],
      ]);
      const corrected = await t.db('webhook_events').where({ type: 'attendance.corrected', resource_key: `attendance:${laOpen}` });
      expect(corrected.map((event) => JSON.parse(event.payload))).toEqual([{ data: read.body, changed_fields: ['missed_punch_out'] }]);
      const locked = await t.db('webhook_events').where({ type: 'pay_period.locked' }).orderBy('id', 'desc').first();
      expect(JSON.parse(locked.payload).data).toEqual({ ...res.body, group: '1' });

      const sheet = await asUser(t, org.admin).get(`/employees/${la}/timesheets/2026-11-01`);
      expect(sheet.body).toMatchObject({ open_records: 1, totals: { worked_hours: 8, regular_hours: 8 } });
      const json = await asUser(t, org.admin).get('/pay-periods/2026-11-01/export?format=json');
      expect(json.status).toBe(200);
      expect(json.body.open_records).toEqual(listed);
      expect(json.body.rows.filter((row: { employee: string }) => row.employee === String(la))).toEqual([
        {
          employee_id: expect.stringMatching(/^LA-/),
          employee: String(la),
          date: '2026-11-02',
          code: 'REG',
          hours: 8,
          timesheet_status: 'open',
        },
      ]);
      expect((await asUser(t, org.admin).get('/pay-periods/2026-11-01/export?format=json')).text).toBe(json.text);
    });

    it('lets the employees passed over punch again: punch-in opens a new record, punch-out closes that one, never the missed one', async () => {
      const { la, ny, laOpen } = await leftPunchedIn();
      expect((await lock('?allow_open_records=true')).status).toBe(200);

      const punchedIn = await asUser(t, org.admin).post('/attendance/punch-in', { employee: String(la) });
      setClock(t, '2026-12-05T20:00:00.000Z');
      const punchedOut = await asUser(t, org.admin).post('/attendance/punch-out', { employee: String(la) });
      const again = await asUser(t, org.admin).post('/attendance/punch-out', { employee: String(la) });

      expect(punchedIn.status).toBe(201);
      expect(punchedIn.body).toMatchObject({ in_time: '2026-12-05 04:00:00', out_time: null });
      expect(punchedIn.body).not.toHaveProperty('missed_punch_out');
      expect(punchedOut.status).toBe(200);
      expect(punchedOut.body).toMatchObject({ id: punchedIn.body.id, out_time: '2026-12-05 12:00:00', hours: 8 });
      expectProblem(again, 409, 'not_punched_in');
      expectProblem(await asUser(t, org.admin).post('/attendance/punch-out', { employee: String(ny) }), 409, 'not_punched_in');
      expect(await t.db('attendance').where({ id: laOpen }).first('out_time_utc', 'open_employee_id')).toEqual({
        out_time_utc: null,
        open_employee_id: null,
      });
    });

    it('lets a terminal batch open a new record past a missed punch-out, and never close the missed one', async () => {
      const { ny, nyOpen } = await leftPunchedIn();
      expect((await lock('?allow_open_records=true')).status).toBe(200);
      const entry = (log_id: string, time: string, direction: string) => ({
        log_id: unique(log_id),
        employee: String(ny),
        time,
        direction,
      });
      const entries = [
        entry('out', '2026-12-02T13:00:00Z', 'out'),
        entry('in', '2026-12-02T14:00:00Z', 'auto'),
        entry('end', '2026-12-02T22:00:00Z', 'auto'),
      ];

      const res = await asUser(t, org.admin).post('/attendance/punch-logs', { entries });

      expect(res.status).toBe(200);
      expect(
        res.body.results.map((result: { result: string; code?: string; action?: string }) => [result.result, result.code ?? result.action]),
      ).toEqual([
        ['rejected', 'not_punched_in'],
        ['created', 'opened'],
        ['created', 'closed'],
      ]);
      const rows = await t
        .db('attendance')
        .where({ employee_id: ny })
        .orderBy('in_time_utc')
        .select('id', 'out_time_utc', 'missed_punch_out');
      expect(rows.map((row) => [Number(row.id), row.out_time_utc, Boolean(row.missed_punch_out)])).toEqual([
        [nyOpen, null, true],
        [Number(res.body.results[1].attendance), '2026-12-02 22:00:00', false],
      ]);
    });

    it('keeps them missed after an unlock: they refuse no approval or later lock, overlap what spans them, and a correction with out_time ends one', async () => {
      const { la, laOpen, nyOpen, listed } = await leftPunchedIn();
      expect((await lock('?allow_open_records=true')).status).toBe(200);
      expect((await asUser(t, org.admin).post('/pay-periods/2026-11-01/unlock')).status).toBe(200);

      expect((await asUser(t, org.admin).get(`/attendance/${laOpen}`)).body.missed_punch_out).toBe(true);
      expect((await asUser(t, org.admin).post(`/employees/${la}/timesheets/2026-11-01/approve`)).status).toBe(200);
      const spanning = await asUser(t, org.admin).post('/attendance', {
        employee: String(la),
        in_time: '2026-11-30 14:00:00',
        out_time: '2026-11-30 16:00:00',
      });
      expectProblem(spanning, 409, 'overlap');
      const relocked = await lock();
      expect(relocked.status).toBe(200);
      expect(relocked.body.open_records).toEqual(listed);
      expect((await asUser(t, org.admin).post('/pay-periods/2026-11-01/unlock')).status).toBe(200);

      const corrected = await asUser(t, org.admin).patch(`/attendance/${laOpen}`, { out_time: '2026-11-30 23:00:00' });

      expect(corrected.status).toBe(200);
      expect(corrected.body).toMatchObject({ out_time: '2026-11-30 23:00:00', hours: 8 });
      expect(corrected.body).not.toHaveProperty('missed_punch_out');
      expect(await t.db('attendance').where({ id: laOpen }).first('open_employee_id', 'missed_punch_out')).toEqual({
        open_employee_id: null,
        missed_punch_out: 0,
      });
      const audit = await t.db('audit_log').where({ entity_type: 'attendance', entity_id: laOpen, action: 'update' }).first();
      expect(JSON.parse(audit.changes)).toMatchObject({ missed_punch_out: { from: true, to: false } });
      const sheet = await asUser(t, org.admin).get(`/employees/${la}/timesheets/2026-11-01`);
      expect(sheet.body).toMatchObject({ status: 'open', open_records: 0, totals: { worked_hours: 16 } });
      expect((await lock()).body.open_records).toEqual([
        { employee: listed[1]?.employee, attendance: String(nyOpen), in_time: '2026-11-30 22:00:00' },
      ]);
    });
  });

  describe('hrm pay-period lock with open records', () => {
    it('refuses with one line naming them, and locks with --allow-open-records, printing them', async () => {
      const { la, ny, laOpen, nyOpen } = await leftPunchedIn();

      const refused = await runHrm(t, ['pay-period', 'lock', '--start', '2026-11-01']);
      const locked = await runHrm(t, ['pay-period', 'lock', '--start', '2026-11-01', '--allow-open-records']);

      expect(refused).toMatchObject({ code: 1, stdout: '' });
      expect(refused.stderr).toBe(
        `hrm: open_records: 2 records of the period have no punch-out: punch out or correct them, or lock with allow_open_records=true to pass them over as missed punch-outs (${laOpen} of employee ${la}, in at 2026-11-30 15:00:00, has no punch-out; ${nyOpen} of employee ${ny}, in at 2026-11-30 22:00:00, has no punch-out)\n`,
      );
      expect(locked.code).toBe(0);
      expect(locked.stdout.split('\n')).toEqual([
        'Locked the pay period 2026-11-01 to 2026-11-30.',
        'Records without a punch-out (missed punch-outs: no hours):',
        expect.stringMatching(/^EMPLOYEE +ATTENDANCE +IN TIME$/),
        expect.stringMatching(new RegExp(`^${la} +${laOpen} +2026-11-30 15:00:00$`)),
        expect.stringMatching(new RegExp(`^${ny} +${nyOpen} +2026-11-30 22:00:00$`)),
        '',
      ]);
      expect(await t.db('attendance').whereIn('id', [laOpen, nyOpen]).pluck('open_employee_id')).toEqual([null, null]);
    });
  });

  describe("the period end on the employees' wall clocks", () => {
    it('refuses with 409 period_not_ended until the next day has begun in Los Angeles, whatever the UTC date', async () => {
      await createEmployee(t, { timezone: LA });
      await createEmployee(t, { timezone: NY });
      setClock(t, '2026-12-01T03:33:00.000Z');

      const early = await lock();

      expect(expectProblem(early, 409, 'period_not_ended').detail).toBe(
        'The pay period ends on 2026-11-30; it may be locked once the next day has begun on the wall clock of every employee of its pay group (it is 2026-11-30 in America/Los_Angeles)',
      );
      expect((await runHrm(t, ['pay-period', 'lock', '--start', '2026-11-01'])).stderr).toMatch(
        /^hrm: period_not_ended: .*it is 2026-11-30 in America\/Los_Angeles\)\n$/,
      );
      setClock(t, '2026-12-01T07:59:59.000Z');
      expectProblem(await lock(), 409, 'period_not_ended');
      expect(await count('pay_period_locks')).toBe(0);

      setClock(t, '2026-12-01T08:00:00.000Z');
      const locked = await lock();

      expect(locked.status).toBe(200);
      expect(locked.body).toMatchObject({ status: 'locked', locked_at: '2026-12-01T08:00:00.000Z' });
    });

    it("reads an employee without a usable time zone on the instance's default one", async () => {
      const zoneless = await createEmployee(t, { timezone: '' });
      await writeSetting(t.db, SETTING.defaultTimezone, 'Pacific/Honolulu', t.clock.now());
      try {
        setClock(t, '2026-12-01T09:30:00.000Z');
        expect(expectProblem(await lock(), 409, 'period_not_ended').detail).toMatch(/it is 2026-11-30 in Pacific\/Honolulu\)$/);

        setClock(t, '2026-12-01T10:00:00.000Z');
        expect((await lock()).status).toBe(200);
      } finally {
        await writeSetting(t.db, SETTING.defaultTimezone, 'UTC', t.clock.now());
        await t.db('employees').where({ id: zoneless }).delete();
        t.instance.settings.invalidate();
      }
    });
  });
});
