import type { Db } from '../../src/db/connect';
import { migrateToLatest } from '../../src/db/migrate';
import { migrateThrough, testDialects, useEmptyDatabase } from '../helpers/databases';
import { employeeColumns } from '../helpers/factories';

describe.each(testDialects())('migration 0028_lock_versions on %s', (dialect) => {
  const empty = useEmptyDatabase(dialect);
  let db: Db;
  beforeEach(() => {
    db = empty.db;
  });

  const STAMP = '2026-11-01 09:00:00.000';

  it('makes every lock in force version 1, leaves a lock being taken alone, and keeps the approvals without numbers', async () => {
    await migrateThrough(db, '0026_missed_punch_out');
    const employee = Number(
      (await db('employees').insert({ ...employeeColumns({ employee_id: 'V1' }), created_at: STAMP, updated_at: STAMP }))[0],
    );
    await db('pay_period_locks').insert([
      { period_start: '2026-10-01', period_end: '2026-10-31', locked_at: STAMP, locked_by_name: 'admin', state: 'locked' },
      { period_start: '2026-09-01', period_end: '2026-09-30', locked_at: STAMP, locked_by_name: 'cli', state: 'locking' },
    ]);
    await db('timesheet_approvals').insert({
      employee_id: employee,
      period_start: '2026-11-01',
      period_end: '2026-11-30',
      status: 'approved',
      approved_at: STAMP,
      updated_at: STAMP,
    });

    await migrateToLatest(db);

    const locks = await db('pay_period_locks').orderBy('period_start').select('period_start', 'lock_version');
    expect(locks.map((row) => [String(row.period_start).slice(0, 10), Number(row.lock_version)])).toEqual([
      ['2026-09-01', 1],
      ['2026-10-01', 1],
    ]);
    const versions = await db('pay_period_lock_versions').select(
      'group_id',
      'period_start',
      'lock_version',
      'period_end',
      'locked_by_name',
    );
    expect(
      versions.map((row) => ({
        ...row,
        period_start: String(row.period_start).slice(0, 10),
        period_end: String(row.period_end).slice(0, 10),
      })),
    ).toEqual([{ group_id: 1, period_start: '2026-10-01', lock_version: 1, period_end: '2026-10-31', locked_by_name: 'admin' }]);
    expect(await db('pay_period_version_snapshots').count({ n: '*' })).toEqual([{ n: 0 }]);
    expect(await db('timesheet_approvals').first('status', 'approved_days', 'reopened_reason')).toEqual({
      status: 'approved',
      approved_days: null,
      reopened_reason: null,
    });
  });
});
