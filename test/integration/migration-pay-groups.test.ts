import type { Db } from '../../src/db/connect';
import { migrateToLatest } from '../../src/db/migrate';
import { down } from '../../migrations/0027_pay_groups';
import { migrateThrough, testDialects, useEmptyDatabase } from '../helpers/databases';
import { employeeColumns } from '../helpers/factories';

describe.each(testDialects())('migration 0027_pay_groups on %s', (dialect) => {
  const empty = useEmptyDatabase(dialect);
  let db: Db;
  beforeEach(() => {
    db = empty.db;
  });

  const STAMP = '2026-11-01 09:00:00.000';
  /** Whether the database refuses the statement. */
  const refused = (query: PromiseLike<unknown>) =>
    Promise.resolve(query).then(
      () => false,
      () => true,
    );
  const SETTINGS = JSON.stringify({ frequency: 'weekly', overtime: { daily_after_hours: 8 } });
  const insertEmployee = async (code: string) =>
    Number((await db('employees').insert({ ...employeeColumns({ employee_id: code }), created_at: STAMP, updated_at: STAMP }))[0]);
  const seedLockedOctober = async (employee: number) => {
    await db('pay_period_locks').insert({
      period_start: '2026-10-01',
      period_end: '2026-10-31',
      locked_at: STAMP,
      locked_by_name: 'admin',
      state: 'locked',
    });
    await db('pay_period_snapshots').insert({
      period_start: '2026-10-01',
      employee_id: employee,
      employee_code: 'G1',
      timesheet_status: 'approved',
      open_records: 0,
      days: '[]',
    });
    await db('timesheet_approvals').insert({
      employee_id: employee,
      period_start: '2026-10-01',
      period_end: '2026-10-31',
      status: 'approved',
      updated_at: STAMP,
    });
  };

  it('makes group 1 from the pay_periods settings row, which goes, and puts everything before in group 1', async () => {
    await migrateThrough(db, '0026_missed_punch_out');
    await db('settings').insert({ name: 'pay_periods', value: SETTINGS, updated_at: STAMP });
    const employee = await insertEmployee('G1');
    await seedLockedOctober(employee);
    await db('attendance').insert({
      employee_id: employee,
      in_time_utc: '2026-10-05 08:00:00',
      in_time_local: '2026-10-05 08:00:00',
      out_time_utc: '2026-10-05 16:00:00',
      out_time_local: '2026-10-05 16:00:00',
      timezone: 'UTC',
      created_at: STAMP,
      updated_at: STAMP,
    });

    await migrateToLatest(db);

    const groups = await db('pay_groups').select('id', 'name', 'settings', 'exempt', 'export_profile');
    expect(groups.map((row) => ({ ...row, id: Number(row.id), exempt: Boolean(row.exempt) }))).toEqual([
      { id: 1, name: 'Default', settings: SETTINGS, exempt: false, export_profile: null },
    ]);
    expect(await db('settings').where({ name: 'pay_periods' }).first()).toBeUndefined();
    expect(Number((await db('employees').where({ id: employee }).first('pay_group_id')).pay_group_id)).toBe(1);
    expect(Number((await db('pay_period_locks').first('group_id')).group_id)).toBe(1);
    expect(Number((await db('pay_period_snapshots').first('group_id')).group_id)).toBe(1);
    expect(Number((await db('timesheet_approvals').first('group_id')).group_id)).toBe(1);
    // Nothing an employee owns goes while their table gains the column.
    expect(await db('attendance').count({ n: '*' })).toEqual([{ n: 1 }]);
  });

  it('keys locks, snapshots and approvals by group: the same period of another group is another row', async () => {
    await migrateToLatest(db);
    const employee = await insertEmployee('G2');
    await seedLockedOctober(employee);
    const now = STAMP;
    await db('pay_groups').insert({ id: 2, name: 'Weekly', exempt: false, created_at: now, updated_at: now });
    await db('pay_period_locks').insert({
      group_id: 2,
      period_start: '2026-10-01',
      period_end: '2026-10-07',
      locked_at: STAMP,
      locked_by_name: 'admin',
      state: 'locked',
    });
    await db('pay_period_snapshots').insert({
      group_id: 2,
      period_start: '2026-10-01',
      employee_id: employee,
      employee_code: 'G2',
      timesheet_status: 'open',
      open_records: 0,
      days: '[]',
    });
    await db('timesheet_approvals').insert({
      group_id: 2,
      employee_id: employee,
      period_start: '2026-10-01',
      period_end: '2026-10-07',
      status: 'approved',
      updated_at: STAMP,
    });
    expect(
      await refused(
        db('pay_period_locks').insert({
          group_id: 2,
          period_start: '2026-10-01',
          period_end: '2026-10-07',
          locked_at: STAMP,
          state: 'locked',
        }),
      ),
    ).toBe(true);
    // A snapshot needs its group's lock; an employee's group must exist; the lock's deletion takes its snapshots.
    expect(
      await refused(
        db('pay_period_snapshots').insert({
          group_id: 2,
          period_start: '2026-11-01',
          employee_id: employee,
          employee_code: 'G2',
          timesheet_status: 'open',
          open_records: 0,
          days: '[]',
        }),
      ),
    ).toBe(true);
    if (dialect === 'mysql') {
      // On SQLite the writes hold this (the migration says why).
      expect(await refused(db('employees').where({ id: employee }).update({ pay_group_id: 99 }))).toBe(true);
      await db('employees').where({ id: employee }).update({ pay_group_id: 2 });
      expect(await refused(db('pay_groups').where({ id: 2 }).delete())).toBe(true);
      await db('employees').where({ id: employee }).update({ pay_group_id: 1 });
    }
    await db('pay_period_locks').where({ group_id: 2 }).delete();
    expect((await db('pay_period_snapshots').select('group_id')).map((row) => Number(row.group_id))).toEqual([1]);
  });

  it('goes down to the settings row and the keys of one group', async () => {
    await migrateThrough(db, '0026_missed_punch_out');
    await db('settings').insert({ name: 'pay_periods', value: SETTINGS, updated_at: STAMP });
    const employee = await insertEmployee('G3');
    await seedLockedOctober(employee);
    await migrateToLatest(db);

    await down(db);

    expect((await db('settings').where({ name: 'pay_periods' }).first('value')).value).toBe(SETTINGS);
    expect(await db.schema.hasTable('pay_groups')).toBe(false);
    expect(await db.schema.hasColumn('employees', 'pay_group_id')).toBe(false);
    expect(await db('pay_period_snapshots').count({ n: '*' })).toEqual([{ n: 1 }]);
    await db('pay_period_locks').delete();
    expect(await db('pay_period_snapshots').count({ n: '*' })).toEqual([{ n: 0 }]);
  });
});
