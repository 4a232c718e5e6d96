import type { Knex } from 'knex';
import { MIGRATIONS, type Migration } from '../../migrations';
import { CONTROL_MIGRATIONS } from '../../migrations/control';
import type { Db } from './connect';

/** A list of migrations and the table that records which of them a database has. */
interface MigrationSet {
  migrations: readonly Migration[];
  tableName: string;
}

/** An installation's (or a cloud instance's) own schema. */
export const INSTANCE_MIGRATIONS: MigrationSet = { migrations: MIGRATIONS, tableName: 'knex_migrations' };

/**
 * The cloud control database: the instance registry only. A table name of its own, so an
 * instance database can never be mistaken for a control database or the other way round.
 */
export const CONTROL_DATABASE_MIGRATIONS: MigrationSet = { migrations: CONTROL_MIGRATIONS, tableName: 'hrm_control_migrations' };

export class SchemaTooNewError extends Error {}

function sourceOf(set: MigrationSet): Knex.MigrationSource<Migration> {
  return {
    getMigrations: async () => [...set.migrations],
    getMigrationName: (migration) => migration.name,
    getMigration: async (migration) => migration,
  };
}

/** Brings the schema up to date; returns the names of the migrations it applied. */
export async function migrateToLatest(db: Db, set: MigrationSet = INSTANCE_MIGRATIONS): Promise<string[]> {
  await assertSchemaKnown(db, set);
  const [, applied] = (await db.migrate.latest({ migrationSource: sourceOf(set), tableName: set.tableName })) as [number, string[]];
  return applied;
}

/**
 * Refuses a database migrated by a newer release (docs/deployment.md): serving it could write rows the
 * newer schema does not expect.
 */
async function assertSchemaKnown(db: Db, set: MigrationSet = INSTANCE_MIGRATIONS): Promise<void> {
  if (!(await db.schema.hasTable(set.tableName))) return;
  const rows: Array<{ name: string }> = await db(set.tableName).select('name');
  const known = new Set(set.migrations.map((migration) => migration.name));
  const unknown = rows.map((row) => row.name).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new SchemaTooNewError(
      `The database schema is newer than this release knows (unknown migrations: ${unknown.join(', ')}); upgrade the server`,
    );
  }
}
