import type { Db } from '../../src/db/connect';
import { migrateToLatest } from '../../src/db/migrate';
import { snapshotLeaveOf } from '../../src/pay-periods/timesheets';
import { migrateThrough, testDialects, useEmptyDatabase } from '../helpers/databases';
import { employeeColumns } from '../helpers/factories';

describe.each(testDialects())('migration 0035_frozen_leave_hours on %s', (dialect) => {
  const empty = useEmptyDatabase(dialect);
  let db: Db;
  beforeEach(() => {
    db = empty.db;
  });

  const STAMP = '2026-11-01 09:00:00.000';

  it('keeps the snapshots of earlier locks without frozen leave, which then read leave and holidays live', async () => {
    await migrateThrough(db, '0032_calendar_feeds_and_rotations');
    const employee = Number(
      (await db('employees').insert({ ...employeeColumns({ employee_id: 'F1' }), created_at: STAMP, updated_at: STAMP }))[0],
    );
    await db('pay_period_locks').insert({ period_start: '2026-10-01', period_end: '2026-10-31', locked_at: STAMP, state: 'locked' });
    const snapshot = { period_start: '2026-10-01', employee_code: 'F1', timesheet_status: 'open', days: '[]' };
    await db('pay_period_snapshots').insert({ ...snapshot, employee_id: employee, open_records: 0 });
    await db('pay_period_version_snapshots').insert({ ...snapshot, employee_id: employee, lock_version: 1 });
    // A holiday of everyone on Monday 12 October, stored after that lock.
    await db('holidays').insert({ date: '2026-10-12', name: 'Founders', portion: 'full', country: null, paid: true, created_at: STAMP });

    await migrateToLatest(db);

    expect(await db('pay_period_snapshots').select('employee_id', 'leave')).toEqual([{ employee_id: employee, leave: null }]);
    expect(await db('pay_period_version_snapshots').select('leave')).toEqual([{ leave: null }]);
    const rows = await db('pay_period_snapshots').select('employee_id', 'leave');
    expect(await snapshotLeaveOf(db, rows, { start: '2026-10-01', end: '2026-10-31' })).toEqual(
      new Map([[employee, [{ date: '2026-10-12', leave_hours: 0, holiday_hours: 8, code: null }]]]),
    );
    // A frozen row reads what the lock stored, whatever is stored since.
    expect(
      await snapshotLeaveOf(db, [{ employee_id: employee, leave: '[["2026-10-05",8,0,"PTO"]]' }], {
        start: '2026-10-01',
        end: '2026-10-31',
      }),
    ).toEqual(new Map([[employee, [{ date: '2026-10-05', leave_hours: 8, holiday_hours: 0, code: 'PTO' }]]]));
  });
});
