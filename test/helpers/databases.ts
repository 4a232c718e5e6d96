import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { type Migration, MIGRATIONS } from '../../migrations';
import { type DatabaseConfig, type Db, openDatabase, type OpenDatabaseOptions } from '../../src/db/connect';
import { cloneMysqlTemplate, cloneSqliteTemplate } from './template-databases';

export type TestDialect = 'sqlite' | 'mysql';

/** SQLite always; MySQL too when global-setup found a server. */
export function testDialects(): TestDialect[] {
  return process.env.HRM_TEST_MYSQL_URL ? ['sqlite', 'mysql'] : ['sqlite'];
}

/**
 * `describe` for suites that only make sense on MySQL/MariaDB (a second server, a race across
 * processes); `describe.skip` when global-setup found none, which only happens outside CI (under
 * CI=true an unreachable MySQL fails the run), and the run's last line says why it skipped.
 */
export const describeOnMysql: jest.Describe = process.env.HRM_TEST_MYSQL_URL ? describe : describe.skip;

export interface TestDatabase {
  config: DatabaseConfig;
  /** DATABASE_URL of this database, for code that reads configuration (the CLI, a child server). */
  url: string;
  open(options?: OpenDatabaseOptions): Db;
  drop(): Promise<void>;
}

export interface CreateTestDatabaseOptions {
  /**
   * An empty database, for what must run the migrations itself: the migration tests, and the
   * first start of a server process or CLI on a new database. Without it the database is a copy
   * of the migrated template (template-databases.ts), as up to date as a migrated one.
   */
  empty?: boolean;
}

/** A new database of its own: a temporary SQLite file or a MySQL schema, migrated unless `empty`. */
export async function createTestDatabase(dialect: TestDialect, { empty = false }: CreateTestDatabaseOptions = {}): Promise<TestDatabase> {
  const name = `hrm_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  if (dialect === 'sqlite') {
    const filename = path.join(os.tmpdir(), `${name}.sqlite`);
    if (!empty) await cloneSqliteTemplate(filename);
    return {
      config: { client: 'sqlite', filename },
      url: `sqlite:${filename}`,
      open: (options) => openDatabase({ client: 'sqlite', filename }, options),
      drop: async () => {
        for (const suffix of ['', '-wal', '-shm']) fs.rmSync(filename + suffix, { force: true });
      },
    };
  }
  const serverUrl = process.env.HRM_TEST_MYSQL_URL;
  if (!serverUrl) throw new Error('No MySQL server for the tests (see test/helpers/global-setup.ts)');
  if (empty) await onServer(serverUrl, `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  else await cloneMysqlTemplate(serverUrl, name);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const config: DatabaseConfig = { client: 'mysql', url: url.toString() };
  return {
    config,
    url: url.toString(),
    open: (options) => openDatabase(config, options),
    drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS \`${name}\``),
  };
}

async function onServer(serverUrl: string, sql: string): Promise<void> {
  const connection = await mysql.createConnection({ uri: serverUrl });
  try {
    await connection.query(sql);
  } finally {
    await connection.end();
  }
}

/** Applies the migrations up to and including `last`, as a database of that release has them. */
export async function migrateThrough(db: Db, last: string): Promise<void> {
  const migrations = MIGRATIONS.slice(0, MIGRATIONS.findIndex((migration) => migration.name === last) + 1);
  await db.migrate.latest({
    tableName: 'knex_migrations',
    migrationSource: {
      getMigrations: async () => migrations,
      getMigrationName: (migration: Migration) => migration.name,
      getMigration: async (migration: Migration) => migration,
    },
  });
}

/**
 * For each test of the enclosing describe, a new database with no migration applied and a
 * connection to it (the migration tests take it step by step), dropped after the test. Read
 * `db` in hooks and tests: it is set when the test's own beforeEach hooks run.
 */
export function useEmptyDatabase(dialect: TestDialect): { readonly db: Db } {
  let database: TestDatabase | undefined;
  const current = { db: undefined as unknown as Db };
  beforeEach(async () => {
    database = await createTestDatabase(dialect, { empty: true });
    current.db = database.open();
  });
  afterEach(async () => {
    await current.db.destroy();
    await database?.drop();
  });
  return current;
}
