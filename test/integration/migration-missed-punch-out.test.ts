import type { Db } from '../../src/db/connect';
import { migrateToLatest } from '../../src/db/migrate';
import { migrateThrough, testDialects, useEmptyDatabase } from '../helpers/databases';
import { employeeColumns } from '../helpers/factories';

describe.each(testDialects())('migration 0026_missed_punch_out on %s', (dialect) => {
  const empty = useEmptyDatabase(dialect);
  let db: Db;
  beforeEach(() => {
    db = empty.db;
  });

  const STAMP = '2026-11-01 09:00:00.000';
  const insertEmployee = async (code: string) =>
    Number((await db('employees').insert({ ...employeeColumns({ employee_id: code }), created_at: STAMP, updated_at: STAMP }))[0]);
  const insertRecord = async (employee: number, inTime: string, outTime: string | null) =>
    Number(
      (
        await db('attendance').insert({
          employee_id: employee,
          in_time_utc: inTime,
          in_time_local: inTime,
          out_time_utc: outTime,
          out_time_local: outTime,
          timezone: 'UTC',
          open_employee_id: outTime === null ? employee : null,
          created_at: STAMP,
          updated_at: STAMP,
        })
      )[0],
    );

  it('makes the open records of locked periods missed punch-outs, and leaves every other record as it was', async () => {
    await migrateThrough(db, '0025_export_profiles');
    const [locked, unlocked, locking] = [await insertEmployee('M1'), await insertEmployee('M2'), await insertEmployee('M3')];
    const closed = await insertRecord(locked, '2026-10-05 08:00:00', '2026-10-05 16:00:00');
    const stuck = await insertRecord(locked, '2026-10-31 22:00:00', null);
    const open = await insertRecord(unlocked, '2026-11-02 08:00:00', null);
    const claimed = await insertRecord(locking, '2026-09-30 08:00:00', null);
    await db('pay_period_locks').insert([
      { period_start: '2026-10-01', period_end: '2026-10-31', locked_at: STAMP, locked_by_name: 'admin', state: 'locked' },
      { period_start: '2026-09-01', period_end: '2026-09-30', locked_at: STAMP, locked_by_name: 'admin', state: 'locking' },
    ]);

    await migrateToLatest(db);

    const rows = await db('attendance').orderBy('id').select('id', 'open_employee_id', 'missed_punch_out', 'out_time_utc', 'updated_at');
    expect(rows.map((row) => [Number(row.id), row.open_employee_id, Boolean(row.missed_punch_out), row.out_time_utc])).toEqual([
      [closed, null, false, '2026-10-05 16:00:00'],
      [stuck, null, true, null],
      [open, unlocked, false, null],
      [claimed, locking, false, null],
    ]);
    expect(rows.filter((row) => Number(row.id) !== stuck).map((row) => String(row.updated_at).slice(0, 23))).toEqual([STAMP, STAMP, STAMP]);
    expect(String(rows.find((row) => Number(row.id) === stuck).updated_at) > STAMP).toBe(true);

    // The employee can punch in again: a second record without an out_time is no second open one.
    await insertRecord(locked, '2026-11-03 08:00:00', null);
    expect(await db('attendance').where({ open_employee_id: locked }).count({ n: '*' })).toEqual([{ n: 1 }]);
  });
});
