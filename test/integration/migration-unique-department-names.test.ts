import type { Db } from '../../src/db/connect';
import { migrateToLatest } from '../../src/db/migrate';
import { migrateThrough, testDialects, useEmptyDatabase } from '../helpers/databases';
import { employeeColumnsBefore0017 } from '../helpers/factories';

describe.each(testDialects())('migration 0013_unique_department_names on %s', (dialect) => {
  const empty = useEmptyDatabase(dialect);
  let db: Db;
  let warn: jest.SpyInstance;
  beforeEach(() => {
    db = empty.db;
    warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warn.mockRestore());

  it('renames later duplicates (in any case) to "<name> (<id>)", keeps the first, and nobody changes department', async () => {
    await migrateThrough(db, '0012_icehrm_numbering');
    const [first] = await db('departments').insert({ name: 'Sales' });
    const [second] = await db('departments').insert({ name: 'SALES' });
    const [third] = await db('departments').insert({ name: 'sales' });
    const [other] = await db('departments').insert({ name: 'Support' });
    const [employee] = await db('employees').insert({
      ...employeeColumnsBefore0017({ department_id: second }),
      created_at: '2026-01-05 09:00:00.000',
      updated_at: '2026-01-05 09:00:00.000',
    });

    await migrateToLatest(db);

    const names = (
      await db('departments')
        .whereIn('id', [first, second, third, other] as number[])
        .orderBy('id')
        .select('name')
    ).map((row: { name: string }) => row.name);
    expect(names).toEqual(['Sales', `SALES (${second})`, `sales (${third})`, 'Support']);
    expect((await db('employees').where({ id: employee }).first('department_id')).department_id).toBe(second);
    expect(warn.mock.calls.map(([line]) => line)).toEqual([
      `migration 0013: department ${second} "SALES" renamed to "SALES (${second})" (another department has this name)`,
      `migration 0013: department ${third} "sales" renamed to "sales (${third})" (another department has this name)`,
    ]);
  });

  it('keeps a long duplicate within the column length', async () => {
    await migrateThrough(db, '0012_icehrm_numbering');
    const long = 'D'.repeat(100);
    await db('departments').insert({ name: long });
    const [later] = await db('departments').insert({ name: long.toLowerCase() });

    await migrateToLatest(db);

    const renamed = String((await db('departments').where({ id: later }).first('name')).name);
    expect(renamed).toHaveLength(100);
    expect(renamed.endsWith(` (${later})`)).toBe(true);
  });

  it('refuses a second department of the same name in any case afterwards', async () => {
    await migrateToLatest(db);
    const indexes =
      dialect === 'mysql'
        ? ((await db.raw('SHOW INDEX FROM departments'))[0] as Array<{ Key_name: string }>).map((row) => row.Key_name)
        : ((await db.raw('PRAGMA index_list(departments)')) as Array<{ name: string }>).map((row) => row.name);
    expect(indexes).toContain('departments_name_unique');
    await db('departments').insert({ name: 'Legal' });

    const refused = await db('departments')
      .insert({ name: 'LEGAL' })
      .then(
        () => 'inserted',
        (error: unknown) => String(error),
      );
    expect(refused).toMatch(/unique|duplicate/i);
    expect(warn).not.toHaveBeenCalled();
  });
});
