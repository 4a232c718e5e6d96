import { announceAbsences } from '../../src/days/absences';
import { acquireSweepLease, releaseSweepLease, runScheduleSweep } from '../../src/days/schedule-sweep';
import { createWebhook } from '../../src/webhooks/subscriptions';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg } from '../helpers/factories';
import { useFixture, useTestApp } from '../helpers/test-app';

// The schedules sweep (docs/schedules.md "Sweeps"): day.absent once per employee and date when an
// absence becomes final, state in the database, one node at a time by a lease.

describe.each(testDialects())('the schedules sweep on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));

  it('announces day.absent once, when the last check-out window has closed, and never for a worked day', async () => {
    setClock(t, '2026-04-01T08:00:00.000Z');
    await createWebhook(t.db, { url: 'https://93.184.215.14/hooks', events: ['day.absent'] }, t.clock.now());
    const absent = await createEmployee(t, { timezone: 'UTC' });
    const worked = await createEmployee(t, { timezone: 'UTC' });
    for (const employee of [absent, worked]) {
      const res = await asUser(t, org.admin).post('/shifts', {
        employee,
        start_local: '2026-04-01T08:00',
        end_local: '2026-04-01T16:00',
        status: 'published',
      });
      expect(res.status).toBe(201);
    }
    await insertAttendanceRow(t, worked, { in: '2026-04-01T08:00:00Z', out: '2026-04-01T16:00:00Z' });

    setClock(t, '2026-04-01T16:59:00.000Z');
    expect(await announceAbsences(t.db, t.clock.now())).toBe(0);
    setClock(t, '2026-04-01T17:00:00.000Z');
    expect(await runScheduleSweep(t.db, 'node-a', t.clock.now())).toEqual({ generated: 0, absences: 1 });
    // A restart (a new run, the same database) announces nothing again.
    expect(await runScheduleSweep(t.db, 'node-a', t.clock.now())).toEqual({ generated: 0, absences: 0 });
    const events = await t.db('webhook_events').where({ type: 'day.absent' });
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].payload).data).toMatchObject({
      employee: { id: String(absent) },
      date: '2026-04-01',
      status: 'absent',
      planned_hours: 8,
      worked_hours: 0,
    });
    expect(await t.db('day_absences').where({ employee_id: absent })).toHaveLength(1);
    expect(await t.db('day_absences').where({ employee_id: worked })).toHaveLength(0);
  });

  it('runs on one node at a time: another holder waits until the lease expires', async () => {
    setClock(t, '2026-04-10T08:00:00.000Z');
    await t.db('sweep_leases').delete();
    expect(await acquireSweepLease(t.db, 'node-a', t.clock.now())).toBe(true);
    expect(await runScheduleSweep(t.db, 'node-b', t.clock.now())).toBeUndefined();
    expect(await acquireSweepLease(t.db, 'node-a', t.clock.now())).toBe(true);
    setClock(t, '2026-04-10T08:31:00.000Z');
    expect(await acquireSweepLease(t.db, 'node-b', t.clock.now())).toBe(true);
    expect(await acquireSweepLease(t.db, 'node-a', t.clock.now())).toBe(false);
  });

  it('lets the next holder in at once when the holder releases its lease, and only its own', async () => {
    setClock(t, '2026-04-11T08:00:00.000Z');
    await t.db('sweep_leases').delete();
    expect(await acquireSweepLease(t.db, 'node-a', t.clock.now())).toBe(true);
    await releaseSweepLease(t.db, 'node-b');
    expect(await acquireSweepLease(t.db, 'node-b', t.clock.now())).toBe(false);
    await releaseSweepLease(t.db, 'node-a');
    expect(await t.db('sweep_leases').select('holder')).toEqual([]);
    expect(await acquireSweepLease(t.db, 'node-b', t.clock.now())).toBe(true);
    expect(await t.db('sweep_leases').select('holder')).toEqual([{ holder: 'node-b' }]);
  });
});
