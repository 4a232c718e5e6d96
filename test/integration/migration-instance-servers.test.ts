import { CONTROL_MIGRATIONS } from '../../migrations/control';
import type { Db } from '../../src/db/connect';
import { CONTROL_DATABASE_MIGRATIONS, migrateToLatest } from '../../src/db/migrate';
import { listRegisteredInstances } from '../../src/instances/registry';
import { testDialects, useEmptyDatabase } from '../helpers/databases';

describe.each(testDialects())('control migration 0002_instance_servers on %s', (dialect) => {
  const empty = useEmptyDatabase(dialect);
  let db: Db;
  beforeEach(() => {
    db = empty.db;
  });

  it("puts the instances registered before it on the control database's own server, not moving", async () => {
    await migrateToLatest(db, { ...CONTROL_DATABASE_MIGRATIONS, migrations: CONTROL_MIGRATIONS.slice(0, 1) });
    await db('instances').insert([
      { name: 'acme', database_name: 'hrm_acme', created_at: '2026-01-05 09:00:00.000' },
      { name: 'globex', database_name: 'hrm_globex', created_at: '2026-01-06 09:00:00.000' },
    ]);

    await migrateToLatest(db, CONTROL_DATABASE_MIGRATIONS);

    expect(await listRegisteredInstances(db)).toEqual([
      {
        name: 'acme',
        databaseName: 'hrm_acme',
        server: 'default',
        movingSince: null,
        createdAt: expect.stringMatching(/^2026-01-05 09:00:00/),
      },
      {
        name: 'globex',
        databaseName: 'hrm_globex',
        server: 'default',
        movingSince: null,
        createdAt: expect.stringMatching(/^2026-01-06 09:00:00/),
      },
    ]);
  });
});
