import * as exportProfiles from '../../migrations/0025_export_profiles';
import { MIGRATIONS } from '../../migrations';
import { INSTANCE_MIGRATIONS, migrateToLatest } from '../../src/db/migrate';
import { findTemplate, type ExportProfile } from '../../src/export-profiles/definition';
import { writeExport } from '../../src/pay-periods/export';
import { DEFAULT_PAY_PERIOD_SETTINGS } from '../../src/pay-rules/settings';
import { createTestDatabase, type TestDatabase, testDialects } from '../helpers/databases';
import { employeeColumnsBefore0025 } from '../helpers/factories';

// Migration 0025 (payroll ids, export profiles, names frozen with a lock) on a database that
// already holds employees and a locked period.

const BEFORE_0025 = MIGRATIONS.findIndex((migration) => migration.name === '0025_export_profiles');

describe.each(testDialects())('migration 0025_export_profiles on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect, { empty: true });
  });
  afterAll(() => database.drop());

  it('keeps employees and locks; a lock taken before it writes the current names; down and up again keep the rows', async () => {
    const db = database.open();
    try {
      await migrateToLatest(db, { ...INSTANCE_MIGRATIONS, migrations: MIGRATIONS.slice(0, BEFORE_0025) });
      const now = '2026-11-05 09:00:00.000';
      const [id] = await db('employees').insert({
        ...employeeColumnsBefore0025({ employee_id: 'OLD-1', first_name: 'Olga', last_name: 'Before' }),
        created_at: now,
        updated_at: now,
      });
      await db('pay_period_locks').insert({
        period_start: '2026-10-01',
        period_end: '2026-10-31',
        locked_at: now,
        locked_by: null,
        state: 'locked',
      });
      await db('pay_period_snapshots').insert({
        period_start: '2026-10-01',
        employee_id: id,
        employee_code: 'OLD-1',
        timesheet_status: 'open',
        open_records: 0,
        days: JSON.stringify([['2026-10-05', 30600, 28800, 1800, 0, 1]]),
      });

      await migrateToLatest(db);

      expect(await db('employees').where({ id }).first('employee_id', 'payroll_id')).toEqual({ employee_id: 'OLD-1', payroll_id: null });
      expect(await db('pay_period_snapshots').where({ employee_id: id }).first('employee_fields')).toEqual({ employee_fields: null });
      await db('employees').where({ id }).update({ payroll_id: 'P-9', first_name: 'Olga Now' });
      const gusto = findTemplate('gusto')!;
      const profile: ExportProfile = { ...gusto, id: 'gusto' };
      let text = '';
      await writeExport(
        db,
        {
          start: '2026-10-01',
          end: '2026-10-31',
          status: 'locked',
          locked_at: '2026-11-05T09:00:00.000Z',
          locked_by: null,
          lock_version: 1,
        },
        { id: 1, name: 'Default', settings: DEFAULT_PAY_PERIOD_SETTINGS, storedSettings: null, exportProfile: null },
        'csv',
        { write: async (chunk) => void (text += chunk) },
        profile,
      );
      expect(text).toBe(
        'first_name,last_name,gusto_employee_id,title,regular_hours,overtime_hours,double_overtime_hours\r\nOlga Now,Before,P-9,,8.00,0.50,0.00\r\n',
      );

      await db.transaction((trx) => exportProfiles.down(trx));
      expect(await db.schema.hasTable('export_profiles')).toBe(false);
      expect(await db.schema.hasColumn('employees', 'payroll_id')).toBe(false);
      await db.transaction((trx) => exportProfiles.up(trx));
      expect(await db('employees').where({ id }).first('employee_id', 'payroll_id')).toEqual({ employee_id: 'OLD-1', payroll_id: null });
      expect(await db('pay_period_snapshots').count({ n: '*' }).first()).toEqual({ n: 1 });
      await db('employees').where({ id }).update({ payroll_id: 'Adp-1' });
      const other = { ...employeeColumnsBefore0025({ employee_id: 'OLD-2' }), payroll_id: 'ADP-1', created_at: now, updated_at: now };
      await expect(db('employees').insert(other)).rejects.toMatchObject({
        code: expect.stringMatching(/^(ER_DUP_ENTRY|SQLITE_CONSTRAINT_UNIQUE)$/),
      });
    } finally {
      await db.destroy();
    }
  });
});
