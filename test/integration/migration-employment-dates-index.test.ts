import type { Db } from '../../src/db/connect';
import { migrateToLatest } from '../../src/db/migrate';
import { migrateThrough, testDialects, useEmptyDatabase } from '../helpers/databases';
import { employeeColumns } from '../helpers/factories';
import * as employmentDatesIndex from '../../migrations/0036_employment_dates_index';

/** The names of the indexes on employees. */
async function employeeIndexes(db: Db, dialect: string): Promise<string[]> {
  if (dialect === 'sqlite') return ((await db.raw("PRAGMA index_list('employees')")) as Array<{ name: string }>).map((row) => row.name);
  const [rows] = (await db.raw('SHOW INDEX FROM employees')) as [Array<{ Key_name: string }>];
  return [...new Set(rows.map((row) => row.Key_name))];
}

describe.each(testDialects())('migration 0036_employment_dates_index on %s', (dialect) => {
  const empty = useEmptyDatabase(dialect);
  let db: Db;
  beforeEach(() => {
    db = empty.db;
  });

  it('indexes the employment dates of the employees already stored, and its down removes only that index', async () => {
    await migrateThrough(db, '0035_frozen_leave_hours');
    const stamp = '2026-11-01 09:00:00.000';
    await db('employees').insert({
      ...employeeColumns({ employee_id: 'D1', joined_date: '2026-01-05' }),
      created_at: stamp,
      updated_at: stamp,
    });
    const before = await employeeIndexes(db, dialect);

    await migrateToLatest(db);

    expect((await employeeIndexes(db, dialect)).sort()).toEqual([...before, 'employees_employment_dates_index'].sort());
    const employed = await db('employees')
      .where((joined) => joined.whereNull('joined_date').orWhere('joined_date', '<=', '2026-10-15'))
      .where((left) => left.whereNull('termination_date').orWhere('termination_date', '>=', '2026-10-15'))
      .count({ n: '*' });
    expect(Number(employed[0]?.n)).toBe(1);

    await employmentDatesIndex.down(db);

    expect((await employeeIndexes(db, dialect)).sort()).toEqual([...before].sort());
  });
});
