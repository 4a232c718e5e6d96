import type { Db } from '../../src/db/connect';
import { migrateToLatest } from '../../src/db/migrate';
import { migrateThrough, testDialects, useEmptyDatabase } from '../helpers/databases';
import { employeeColumns } from '../helpers/factories';
import * as shiftsEmployeeDateIndex from '../../migrations/0037_shifts_employee_date_index';

/** The names of the indexes on shifts. */
async function shiftIndexes(db: Db, dialect: string): Promise<string[]> {
  if (dialect === 'sqlite') return ((await db.raw("PRAGMA index_list('shifts')")) as Array<{ name: string }>).map((row) => row.name);
  const [rows] = (await db.raw('SHOW INDEX FROM shifts')) as [Array<{ Key_name: string }>];
  return [...new Set(rows.map((row) => row.Key_name))];
}

describe.each(testDialects())('migration 0037_shifts_employee_date_index on %s', (dialect) => {
  const empty = useEmptyDatabase(dialect);
  let db: Db;
  beforeEach(() => {
    db = empty.db;
  });

  it('indexes the shifts already stored by employee and date, and its down removes only that index', async () => {
    await migrateThrough(db, '0036_employment_dates_index');
    const stamp = '2026-11-01 09:00:00.000';
    const [employee] = await db('employees').insert({ ...employeeColumns({ employee_id: 'S1' }), created_at: stamp, updated_at: stamp });
    const shift = (date: string) => ({
      employee_id: Number(employee),
      date,
      start_local: `${date}T08:00`,
      end_local: `${date}T16:00`,
      timezone: 'UTC',
      start_utc: `${date} 08:00:00`,
      end_utc: `${date} 16:00:00`,
      unpaid_break_minutes: 0,
      late_grace_minutes: 0,
      early_exit_grace_minutes: 0,
      check_in_window_minutes: 60,
      check_out_window_minutes: 60,
      status: 'published',
      version: 1,
      created_at: stamp,
      updated_at: stamp,
    });
    await db('shifts').insert([shift('2026-10-14'), shift('2026-10-15'), shift('2026-10-16')]);
    const before = await shiftIndexes(db, dialect);

    await migrateToLatest(db);

    expect((await shiftIndexes(db, dialect)).sort()).toEqual([...before, 'shifts_employee_date_index'].sort());
    const onDate = await db('shifts').where('employee_id', Number(employee)).where('date', '2026-10-15').select('start_utc');
    expect(onDate.map((row) => String(row.start_utc).slice(0, 19))).toEqual(['2026-10-15 08:00:00']);

    await shiftsEmployeeDateIndex.down(db);

    expect((await shiftIndexes(db, dialect)).sort()).toEqual([...before].sort());
    expect(await db('shifts').count({ n: '*' })).toEqual([{ n: 3 }]);
  });
});
