import * as attendanceTerminals from '../../migrations/0017_attendance_terminals';
import { migrateToLatest } from '../../src/db/migrate';
import { insertEmployee } from '../../src/employees/repository';
import { createTestDatabase, type TestDatabase, testDialects } from '../helpers/databases';
import { employeeColumns } from '../helpers/factories';

describe.each(testDialects())('migration 0017_attendance_terminals on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect, { empty: true });
  });
  afterAll(() => database.drop());

  it('keeps existing employees when it goes down and up again, and makes badge numbers unique regardless of case', async () => {
    const db = database.open();
    try {
      await migrateToLatest(db);
      const now = '2026-01-05 09:00:00.000';
      const id = await insertEmployee(db, { ...employeeColumns({ attendance_device_id: 'Card-7' }), created_at: now, updated_at: now });

      await db.transaction((trx) => attendanceTerminals.down(trx));
      expect(await db.schema.hasTable('attendance_punch_logs')).toBe(false);
      expect(await db.schema.hasColumn('employees', 'attendance_device_id')).toBe(false);
      await db.transaction((trx) => attendanceTerminals.up(trx));

      const [row] = await db('employees').where({ id });
      expect(row).toMatchObject({ id, attendance_device_id: null });
      await db('employees').where({ id }).update({ attendance_device_id: 'Card-7' });
      const other = { ...employeeColumns({ attendance_device_id: 'CARD-7' }), created_at: now, updated_at: now };
      await expect(insertEmployee(db, other)).rejects.toMatchObject({
        code: expect.stringMatching(/^(ER_DUP_ENTRY|SQLITE_CONSTRAINT_UNIQUE)$/),
      });
    } finally {
      await db.destroy();
    }
  });
});
