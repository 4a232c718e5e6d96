import type { Knex } from 'knex';
import { MIGRATIONS, type Migration } from '../../migrations';
import type { Db } from './connect';

const MIGRATIONS_TABLE = 'knex_migrations';

export class SchemaTooNewError extends Error {}

const migrationSource: Knex.MigrationSource<Migration> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: (migration) => migration.name,
  getMigration: async (migration) => migration,
};

/** Brings the schema up to date; returns the names of the migrations it applied. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  await assertSchemaKnown(db);
  const [, applied] = (await db.migrate.latest({ migrationSource, tableName: MIGRATIONS_TABLE })) as [number, string[]];
  return applied;
}

/**
 * Refuses a database migrated by a newer release (CONTRACT §9): serving it could write rows the
 * newer schema does not expect.
 */
export async function assertSchemaKnown(db: Db): Promise<void> {
  if (!(await db.schema.hasTable(MIGRATIONS_TABLE))) return;
  const rows: Array<{ name: string }> = await db(MIGRATIONS_TABLE).select('name');
  const known = new Set(MIGRATIONS.map((migration) => migration.name));
  const unknown = rows.map((row) => row.name).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new SchemaTooNewError(
      `The database schema is newer than this release knows (unknown migrations: ${unknown.join(', ')}); upgrade the server`,
    );
  }
}
