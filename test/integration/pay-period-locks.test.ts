import { createWebhook } from '../../src/webhooks/subscriptions';
import { asUser, attendanceRowsOf, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg, createUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';
import { approveTimesheet, lockPeriod } from '../helpers/pay-periods';

describe.each(testDialects())('pay-period locks on the attendance API on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  useFixture(async () => ({
    webhook: await createWebhook(t.db, { url: 'https://93.184.215.14/hooks', events: ['*'] }, t.clock.now()),
  }));
  beforeEach(() => setClock(t, '2026-11-20T12:00:00.000Z'));
  afterEach(async () => {
    await t.db('pay_period_locks').delete();
    await t.db('timesheet_approvals').delete();
  });

  const count = async (table: string) => Number(((await t.db(table).count({ n: '*' }).first()) as { n: number | string }).n);
  /** What a refused write must leave as it was: the records, the audit log, the outbox. */
  const stateOf = async (employeeId: number) => ({
    records: await attendanceRowsOf(t, employeeId),
    audit: await count('audit_log'),
    events: await count('webhook_events'),
    approvals: await t.db('timesheet_approvals').where({ employee_id: employeeId }).select('status', 'updated_at'),
  });
  const OCTOBER = ['2026-10-01', '2026-10-31'] as const;
  const expectLocked = (res: { status: number; headers: Record<string, any>; text: string }, date: string) => {
    const body = expectProblem(res, 409, 'period_locked');
    expect(body.title).toBe('Pay period locked');
    expect(body.detail).toBe(
      `The pay period 2026-10-01 to 2026-10-31 is locked: attendance that counts on ${date} cannot change until the period is unlocked`,
    );
  };
  const reopenedEvents = async (employeeId: number) =>
    (
      await t
        .db('webhook_events')
        .where({ type: 'timesheet.reopened', resource_key: `timesheet:${employeeId}` })
        .orderBy('id')
    ).map((row) => JSON.parse(row.payload).data);
  const reopenAudits = async (employeeId: number) =>
    (await t.db('audit_log').where({ entity_type: 'timesheet', entity_id: employeeId }).orderBy('id')).map((row) => ({
      action: row.action,
      employee: Number(row.employee_id),
      fields: JSON.parse(row.fields),
      changes: JSON.parse(row.changes),
    }));
  const expectReopened = async (employeeId: number, period: readonly [string, string] = OCTOBER) => {
    expect(await t.db('timesheet_approvals').where({ employee_id: employeeId }).select('status', 'updated_at')).toEqual([
      { status: 'open', updated_at: expect.stringMatching(/^2026-11-20 12:00:00/) },
    ]);
    expect(await reopenAudits(employeeId)).toEqual([
      {
        action: 'timesheet.reopen',
        employee: employeeId,
        fields: ['status'],
        changes: { status: { from: 'approved', to: 'open' }, period_start: { from: period[0], to: period[0] } },
      },
    ]);
    expect(await reopenedEvents(employeeId)).toEqual([
      { employee: String(employeeId), period_start: period[0], period_end: period[1], status: 'open', reason: 'attendance_changed' },
    ]);
  };

  describe('punch-in', () => {
    it('is refused with 409 period_locked into a locked period, nothing written; passes after it', async () => {
      const employeeId = await createEmployee(t, { timezone: 'America/New_York' });
      await lockPeriod(t, ...OCTOBER);
      const before = await stateOf(employeeId);

      // 2026-11-01 02:30 UTC is still 2026-10-31 in New York: the record counts on October 31.
      expectLocked(
        await asUser(t, org.admin).post('/attendance/punch-in', { employee: String(employeeId), in_time: '2026-11-01T02:30:00Z' }),
        '2026-10-31',
      );
      expect(await stateOf(employeeId)).toEqual(before);

      const res = await asUser(t, org.admin).post('/attendance/punch-in', {
        employee: String(employeeId),
        in_time: '2026-11-01T05:00:00Z',
      });
      expect(res.status).toBe(201);
      expect(res.body.in_time).toBe('2026-11-01 01:00:00');
    });

    it('sends an approved timesheet of an open period back to open, audited, with timesheet.reopened', async () => {
      const employeeId = await createEmployee(t);
      await approveTimesheet(t, employeeId, ...OCTOBER);
      await approveTimesheet(t, employeeId, '2026-09-01', '2026-09-30');

      const res = await asUser(t, org.admin).post('/attendance/punch-in', { employee: String(employeeId), in_time: '2026-10-20 09:00:00' });

      expect(res.status).toBe(201);
      expect(await t.db('timesheet_approvals').where({ employee_id: employeeId }).orderBy('period_start').pluck('status')).toEqual([
        'approved',
        'open',
      ]);
      expect(await reopenedEvents(employeeId)).toEqual([
        {
          employee: String(employeeId),
          period_start: '2026-10-01',
          period_end: '2026-10-31',
          status: 'open',
          reason: 'attendance_changed',
        },
      ]);
      expect((await reopenAudits(employeeId)).map((audit) => audit.changes.period_start.to)).toEqual(['2026-10-01']);
    });
  });

  describe('punch-out', () => {
    it('is refused for a record begun in a locked period, even when it closes after it', async () => {
      const employeeId = await createEmployee(t);
      const open = await insertAttendanceRow(t, employeeId, { in: '2026-10-31T22:00:00Z', out: null });
      await lockPeriod(t, ...OCTOBER);
      const before = await stateOf(employeeId);

      expectLocked(
        await asUser(t, org.admin).post('/attendance/punch-out', { employee: String(employeeId), out_time: '2026-11-01T05:00:00Z' }),
        '2026-10-31',
      );

      expect(await stateOf(employeeId)).toEqual(before);
      expect(before.records.map((row) => [Number(row.id), row.out_time_utc])).toEqual([[open, null]]);
    });

    it('closes a record begun after the period, and reopens the approved timesheet it counts in', async () => {
      const employeeId = await createEmployee(t);
      await insertAttendanceRow(t, employeeId, { in: '2026-11-02T08:00:00Z', out: null });
      await lockPeriod(t, ...OCTOBER);
      await approveTimesheet(t, employeeId, '2026-11-01', '2026-11-30');

      const res = await asUser(t, org.admin).post('/attendance/punch-out', {
        employee: String(employeeId),
        out_time: '2026-11-02T16:00:00Z',
      });

      expect(res.status).toBe(200);
      await expectReopened(employeeId, ['2026-11-01', '2026-11-30']);
    });
  });

  describe('POST /attendance', () => {
    it('is refused into a locked period and passes outside it, reopening an approved timesheet', async () => {
      const employeeId = await createEmployee(t);
      await lockPeriod(t, ...OCTOBER);
      await approveTimesheet(t, employeeId, '2026-09-01', '2026-09-30');
      const before = await stateOf(employeeId);
      const admin = asUser(t, org.admin);

      expectLocked(
        await admin.post('/attendance', { employee: String(employeeId), in_time: '2026-10-01 00:00:00', out_time: '2026-10-01 08:00:00' }),
        '2026-10-01',
      );
      expect(await stateOf(employeeId)).toEqual(before);

      const res = await admin.post('/attendance', {
        employee: String(employeeId),
        in_time: '2026-09-30 22:00:00',
        out_time: '2026-10-01 06:00:00',
      });
      expect(res.status).toBe(201);
      await expectReopened(employeeId, ['2026-09-01', '2026-09-30']);
    });
  });

  describe('PUT and PATCH /attendance/{id}', () => {
    it('are refused for a record in a locked period, and for one moved into it, nothing written', async () => {
      const employeeId = await createEmployee(t);
      const inside = await insertAttendanceRow(t, employeeId, { in: '2026-10-10T08:00:00Z', out: '2026-10-10T16:00:00Z' });
      const after = await insertAttendanceRow(t, employeeId, { in: '2026-11-10T08:00:00Z', out: '2026-11-10T16:00:00Z' });
      await lockPeriod(t, ...OCTOBER);
      const before = await stateOf(employeeId);
      const admin = asUser(t, org.admin);

      // Out of the period (its date before the write is in it).
      expectLocked(
        await admin.patch(`/attendance/${inside}`, { in_time: '2026-11-11 08:00:00', out_time: '2026-11-11 16:00:00' }),
        '2026-10-10',
      );
      // A note only, still a write into the period.
      expectLocked(await admin.put(`/attendance/${inside}`, { note: 'paid already' }), '2026-10-10');
      // Into the period (its date after the write is in it).
      expectLocked(
        await admin.patch(`/attendance/${after}`, { in_time: '2026-10-31 08:00:00', out_time: '2026-10-31 16:00:00' }),
        '2026-10-31',
      );
      expect(await stateOf(employeeId)).toEqual(before);

      const res = await admin.patch(`/attendance/${after}`, { out_time: '2026-11-10 17:00:00' });
      expect(res.status).toBe(200);
      expect(res.body.out_time).toBe('2026-11-10 17:00:00');
    });

    it('reopen an approved timesheet when times change, and leave it approved for a note', async () => {
      const employeeId = await createEmployee(t);
      const id = await insertAttendanceRow(t, employeeId, { in: '2026-10-10T08:00:00Z', out: '2026-10-10T16:00:00Z' });
      await approveTimesheet(t, employeeId, ...OCTOBER);
      const admin = asUser(t, org.admin);

      expect((await admin.patch(`/attendance/${id}`, { note: 'a note changes no hours' })).status).toBe(200);
      expect(await t.db('timesheet_approvals').where({ employee_id: employeeId }).pluck('status')).toEqual(['approved']);

      expect((await admin.put(`/attendance/${id}`, { out_time: '2026-10-10 17:00:00' })).status).toBe(200);
      await expectReopened(employeeId);
    });
  });

  describe('DELETE /attendance/{id}', () => {
    it('is refused for a record in a locked period, nothing deleted; passes outside it, reopening', async () => {
      const employeeId = await createEmployee(t);
      const inside = await insertAttendanceRow(t, employeeId, { in: '2026-10-31T23:00:00Z', out: '2026-11-01T07:00:00Z' });
      const outside = await insertAttendanceRow(t, employeeId, { in: '2026-09-30T08:00:00Z', out: '2026-09-30T16:00:00Z' });
      await lockPeriod(t, ...OCTOBER);
      await approveTimesheet(t, employeeId, '2026-09-01', '2026-09-30');
      const before = await stateOf(employeeId);
      const admin = asUser(t, org.admin);

      expectLocked(await admin.delete(`/attendance/${inside}`), '2026-10-31');
      expect(await stateOf(employeeId)).toEqual(before);

      expect((await admin.delete(`/attendance/${outside}`)).status).toBe(200);
      expect((await attendanceRowsOf(t, employeeId)).map((row) => Number(row.id))).toEqual([inside]);
      await expectReopened(employeeId, ['2026-09-01', '2026-09-30']);
    });

    it('still answers 404 for a missing record and 403 for a manager', async () => {
      const employeeId = await createEmployee(t, { supervisor_id: org.manager.employeeId });
      const id = await insertAttendanceRow(t, employeeId, { in: '2026-11-10T08:00:00Z', out: '2026-11-10T16:00:00Z' });

      expectProblem(await asUser(t, org.admin).delete('/attendance/999999'), 404, 'not_found');
      expectProblem(await asUser(t, org.manager).delete(`/attendance/${id}`), 403, 'forbidden');
      expect((await attendanceRowsOf(t, employeeId)).map((row) => Number(row.id))).toEqual([id]);
    });
  });

  // October 2026 locked; the workweek of Monday 2026-09-28 runs to Sunday 2026-10-04. Under the
  // default weekly rule (40 hours) the hours of September 28 to 30 decide how much of October 1 to
  // 4 is overtime (CONTRACT 6.5, "Frozen means frozen").
  describe('a workweek that continues into a locked period', () => {
    const crossingDetail =
      'The pay period 2026-10-01 to 2026-10-31 is locked: attendance that counts on 2026-09-30 is in a workweek that continues into it, and its weekly and seventh-day hours cannot change until the period is unlocked';
    const september30 = (employeeId: number) => ({
      employee: String(employeeId),
      in_time: '2026-09-30 08:00:00',
      out_time: '2026-09-30 16:00:00',
    });
    /** An employee with a record on Friday 2026-10-02, in the locked part of that workweek. */
    const employeeWorkingOctober2 = async () => {
      const employeeId = await createEmployee(t);
      await insertAttendanceRow(t, employeeId, { in: '2026-10-02T08:00:00Z', out: '2026-10-02T18:00:00Z' });
      return employeeId;
    };
    afterEach(async () => {
      await t.db('pay_groups').where({ id: 1 }).update({ settings: null });
    });

    it('refuses a record dated before the period in that workweek, nothing written', async () => {
      const employeeId = await employeeWorkingOctober2();
      await lockPeriod(t, ...OCTOBER);
      const before = await stateOf(employeeId);

      const body = expectProblem(await asUser(t, org.admin).post('/attendance', september30(employeeId)), 409, 'period_locked');
      expect(body.detail).toBe(crossingDetail);
      expect(await stateOf(employeeId)).toEqual(before);
    });

    it('refuses a correction and a deletion of a record dated before the period in that workweek', async () => {
      const employeeId = await employeeWorkingOctober2();
      const created = await asUser(t, org.admin).post('/attendance', september30(employeeId));
      expect(created.status).toBe(201);
      await lockPeriod(t, ...OCTOBER);
      const before = await stateOf(employeeId);

      const corrected = await asUser(t, org.admin).patch(`/attendance/${created.body.id}`, { out_time: '2026-09-30 18:00:00' });
      expect(expectProblem(corrected, 409, 'period_locked').detail).toBe(crossingDetail);
      expect(expectProblem(await asUser(t, org.admin).delete(`/attendance/${created.body.id}`), 409, 'period_locked').detail).toBe(
        crossingDetail,
      );
      expect(await stateOf(employeeId)).toEqual(before);
    });

    it("refuses a terminal's punches on that date, and takes them for the workweek before", async () => {
      const employeeId = await employeeWorkingOctober2();
      await lockPeriod(t, ...OCTOBER);
      const upload = (log: string, date: string) =>
        asUser(t, org.admin).post('/attendance/punch-logs', {
          entries: [
            { log_id: `${log}-in-${employeeId}`, employee: employeeId, time: `${date}T08:00:00Z`, direction: 'in' },
            { log_id: `${log}-out-${employeeId}`, employee: employeeId, time: `${date}T16:00:00Z`, direction: 'out' },
          ],
        });

      const crossing = await upload('crossing', '2026-09-30');
      expect(crossing.status).toBe(200);
      expect(crossing.body.results.map((result: { result: string; code?: string }) => [result.result, result.code])).toEqual([
        ['rejected', 'period_locked'],
        ['rejected', 'period_locked'],
      ]);
      const earlier = await upload('earlier', '2026-09-25');
      expect(earlier.body.results.map((result: { result: string }) => result.result)).toEqual(['created', 'created']);
    });

    it('reopens an approved timesheet of the next period through that workweek, not one a week later', async () => {
      const employeeId = await employeeWorkingOctober2();
      await approveTimesheet(t, employeeId, ...OCTOBER);

      expect(
        (
          await asUser(t, org.admin).post('/attendance', {
            ...september30(employeeId),
            in_time: '2026-09-27 08:00:00',
            out_time: '2026-09-27 16:00:00',
          })
        ).status,
      ).toBe(201);
      expect(await reopenedEvents(employeeId)).toEqual([]);
      expect((await asUser(t, org.admin).post('/attendance', september30(employeeId))).status).toBe(201);
      await expectReopened(employeeId);
    });

    it('takes a record there when the employee has none in the locked part of the workweek', async () => {
      const employeeId = await createEmployee(t);
      await insertAttendanceRow(t, employeeId, { in: '2026-10-06T08:00:00Z', out: '2026-10-06T16:00:00Z' });
      await lockPeriod(t, ...OCTOBER);

      expect((await asUser(t, org.admin).post('/attendance', september30(employeeId))).status).toBe(201);
    });

    it('takes a record there when no rule carries hours across the workweek (no weekly, no seventh-day rule)', async () => {
      const employeeId = await employeeWorkingOctober2();
      const daily = { daily_after_hours: 8, daily_double_after_hours: null, weekly_after_hours: null, seventh_day: false };
      await t
        .db('pay_groups')
        .where({ id: 1 })
        .update({ settings: JSON.stringify({ overtime: daily }) });
      await lockPeriod(t, ...OCTOBER);

      expect((await asUser(t, org.admin).post('/attendance', september30(employeeId))).status).toBe(201);
    });
  });

  describe('DELETE /employees/{id}', () => {
    it('is refused while one of their records counts in a locked period (their attendance would go with them)', async () => {
      const employeeId = await createEmployee(t, { timezone: 'America/New_York' });
      // 2026-11-01 02:30 UTC is October 31 in New York.
      await insertAttendanceRow(t, employeeId, { in: '2026-11-01T02:30:00Z', out: '2026-11-01T06:00:00Z', timezone: 'America/New_York' });
      await lockPeriod(t, ...OCTOBER);
      const before = await stateOf(employeeId);

      expectLocked(await asUser(t, org.admin).delete(`/employees/${employeeId}`), '2026-10-31');
      expect(await stateOf(employeeId)).toEqual(before);
      expect(await t.db('employees').where({ id: employeeId }).first('id')).toBeDefined();

      await t.db('pay_period_locks').delete();
      expect((await asUser(t, org.admin).delete(`/employees/${employeeId}`)).status).toBe(200);
    });

    it('passes when their records are all outside locked periods', async () => {
      const employeeId = await createEmployee(t);
      await insertAttendanceRow(t, employeeId, { in: '2026-11-02T08:00:00Z', out: '2026-11-02T16:00:00Z' });
      await lockPeriod(t, ...OCTOBER);

      expect((await asUser(t, org.admin).delete(`/employees/${employeeId}`)).status).toBe(200);
      expect(await t.db('employees').where({ id: employeeId }).first('id')).toBeUndefined();
    });
  });

  it('a lock of another period refuses nothing, and a refused write of one employee leaves the others free', async () => {
    const employeeId = await createEmployee(t);
    await lockPeriod(t, '2026-08-01', '2026-08-31');
    await lockPeriod(t, '2026-11-01', '2026-11-30');

    expect(
      (
        await asUser(t, org.admin).post('/attendance', {
          employee: String(employeeId),
          in_time: '2026-10-05 09:00:00',
          out_time: '2026-10-05 17:00:00',
        })
      ).status,
    ).toBe(201);
    expectProblem(await asUser(t, org.admin).post('/attendance/punch-in', { employee: String(employeeId) }), 409, 'period_locked');
  });
});

interface Entry {
  log_id: string;
  attendance_device_id?: string;
  employee?: string;
  time: string;
  direction?: 'in' | 'out' | 'auto';
}

describe.each(testDialects())('pay-period locks on terminal batches on %s', (dialect) => {
  const t = useTestApp(dialect);
  const admin = useFixture(() => createUser(t, 'admin'));
  useFixture(async () => ({
    webhook: await createWebhook(t.db, { url: 'https://93.184.215.14/hooks', events: ['*'] }, t.clock.now()),
  }));
  beforeEach(() => setClock(t, '2026-11-20T12:00:00.000Z'));
  afterEach(async () => {
    await t.db('pay_period_locks').delete();
    await t.db('timesheet_approvals').delete();
  });

  const upload = (entries: Entry[]) => asUser(t, admin).post('/attendance/punch-logs', { entries });
  const times = async (employeeId: number) =>
    (await attendanceRowsOf(t, employeeId)).map((row) => [
      String(row.in_time_utc).slice(0, 19),
      row.out_time_utc === null ? null : String(row.out_time_utc).slice(0, 19),
    ]);
  const rowsOf = async (employeeId: number) =>
    (await attendanceRowsOf(t, employeeId)).map(({ id, in_time_utc, out_time_utc, updated_at }) => ({
      id,
      in_time_utc,
      out_time_utc,
      updated_at,
    }));
  const count = async (table: string) => Number(((await t.db(table).count({ n: '*' }).first()) as { n: number | string }).n);
  const lockedMessage = (date: string) =>
    `The pay period 2026-10-01 to 2026-10-31 is locked: attendance that counts on ${date} cannot change until the period is unlocked`;
  const entry = (employeeId: number, logId: string, time: string, direction: Entry['direction']): Entry => ({
    log_id: logId,
    employee: String(employeeId),
    time,
    direction,
  });

  it('rejects the entries of a locked period with period_locked and applies the rest of the batch', async () => {
    const [a, b] = [await createEmployee(t), await createEmployee(t, { timezone: 'America/New_York' })];
    await lockPeriod(t, '2026-10-01', '2026-10-31');
    await approveTimesheet(t, a, '2026-11-01', '2026-11-30');

    const res = await upload([
      entry(a, 'a1', '2026-10-30T08:00:00Z', 'in'),
      entry(a, 'a2', '2026-10-30T16:00:00Z', 'out'),
      entry(a, 'a3', '2026-11-02T08:00:00Z', 'in'),
      entry(a, 'a4', '2026-11-02T16:00:00Z', 'out'),
      // 03:00 UTC on November 1 is October 31 in New York: locked.
      entry(b, 'b1', '2026-11-01T03:00:00Z', 'in'),
      entry(b, 'b2', '2026-11-01T13:00:00Z', 'in'),
    ]);

    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      { log_id: 'a1', result: 'rejected', code: 'period_locked', message: lockedMessage('2026-10-30') },
      { log_id: 'a2', result: 'rejected', code: 'period_locked', message: lockedMessage('2026-10-30') },
      { log_id: 'a3', result: 'created', attendance: expect.any(String), action: 'opened' },
      { log_id: 'a4', result: 'created', attendance: expect.any(String), action: 'closed' },
      { log_id: 'b1', result: 'rejected', code: 'period_locked', message: lockedMessage('2026-10-31') },
      { log_id: 'b2', result: 'created', attendance: expect.any(String), action: 'opened' },
    ]);
    expect(await times(a)).toEqual([['2026-11-02 08:00:00', '2026-11-02 16:00:00']]);
    expect(await times(b)).toEqual([['2026-11-01 13:00:00', null]]);
    // The log keeps the refusals; the approved November of A is open again.
    expect(await t.db('attendance_punch_logs').where({ code: 'period_locked' }).orderBy('log_id').pluck('log_id')).toEqual([
      'a1',
      'a2',
      'b1',
    ]);
    expect(await t.db('timesheet_approvals').where({ employee_id: a }).pluck('status')).toEqual(['open']);
    expect(await t.db('webhook_events').where({ type: 'timesheet.reopened' }).pluck('resource_key')).toEqual([`timesheet:${a}`]);
  });

  it('rejects a punch-out that would close a record begun in a locked period, leaving it open', async () => {
    const employeeId = await createEmployee(t);
    await upload([entry(employeeId, 'in', '2026-10-31T22:00:00Z', 'in')]);
    await lockPeriod(t, '2026-10-01', '2026-10-31');
    const before = { rows: await rowsOf(employeeId), audit: await count('audit_log'), events: await count('webhook_events') };

    const res = await upload([entry(employeeId, 'out', '2026-11-01T06:00:00Z', 'auto')]);

    expect(res.body.results).toEqual([{ log_id: 'out', result: 'rejected', code: 'period_locked', message: lockedMessage('2026-10-31') }]);
    expect({ rows: await rowsOf(employeeId), audit: await count('audit_log'), events: await count('webhook_events') }).toEqual(before);
  });

  it('rejects a late entry whose derivation would change a record of a locked period, and applies one that changes only later records', async () => {
    const employeeId = await createEmployee(t);
    const first = await upload([
      entry(employeeId, 'n1', '2026-10-31T20:00:00Z', 'in'),
      entry(employeeId, 'n2', '2026-11-01T04:00:00Z', 'out'),
      entry(employeeId, 'd1', '2026-11-02T08:00:00Z', 'in'),
      entry(employeeId, 'd2', '2026-11-02T16:00:00Z', 'out'),
    ]);
    expect(first.body.results.map((result: { result: string }) => result.result)).toEqual(['created', 'created', 'created', 'created']);
    await lockPeriod(t, '2026-10-01', '2026-10-31');
    const before = await rowsOf(employeeId);

    // A punch-out inside the night shift begun on October 31: it would shorten that locked record.
    const late = await upload([entry(employeeId, 'late-out', '2026-11-01T02:00:00Z', 'out')]);
    expect(late.body.results).toEqual([
      { log_id: 'late-out', result: 'rejected', code: 'period_locked', message: lockedMessage('2026-10-31') },
    ]);
    // A punch-in before it, in the locked period: it would derive the night again from 19:00.
    const earlier = await upload([entry(employeeId, 'late-in', '2026-10-31T19:00:00Z', 'auto')]);
    expect(earlier.body.results).toEqual([
      { log_id: 'late-in', result: 'rejected', code: 'period_locked', message: lockedMessage('2026-10-31') },
    ]);
    expect(await rowsOf(employeeId)).toEqual(before);

    // A lunch break on November 2 arriving late derives only that day again: applied.
    const lunch = await upload([
      entry(employeeId, 'l1', '2026-11-02T12:00:00Z', 'out'),
      entry(employeeId, 'l2', '2026-11-02T12:30:00Z', 'in'),
    ]);
    expect(lunch.body.results.map((result: { result: string }) => result.result)).toEqual(['created', 'created']);
    expect(await times(employeeId)).toEqual([
      ['2026-10-31 20:00:00', '2026-11-01 04:00:00'],
      ['2026-11-02 08:00:00', '2026-11-02 12:00:00'],
      ['2026-11-02 12:30:00', '2026-11-02 16:00:00'],
    ]);
    expect((await rowsOf(employeeId))[0]).toEqual(before[0]);
  });
});
