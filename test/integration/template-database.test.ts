import { type Db, dialectOf } from '../../src/db/connect';
import { migrateToLatest } from '../../src/db/migrate';
import { MIGRATIONS } from '../../migrations';
import mysql from 'mysql2/promise';
import { createTestDatabase, describeOnMysql, type TestDatabase, testDialects } from '../helpers/databases';
import { dropStaleMysqlTemplates, templateName } from '../helpers/template-databases';

/**
 * The columns that record when the migrations ran: a template made earlier holds its own time
 * there. Nothing reads them but people.
 */
const MIGRATION_TIME_COLUMNS: Record<string, string[]> = {
  knex_migrations: ['migration_time'],
  settings: ['updated_at'],
  pay_groups: ['created_at', 'updated_at'],
};

describeOnMysql('the templates of other migrations on MySQL', () => {
  const serverUrl = process.env.HRM_TEST_MYSQL_URL!;
  // Names another checkout's templates would have; the run's own template is never touched.
  const recent = `${templateName()}_recent_${process.pid}`;
  const empty = `${templateName()}_empty_${process.pid}`;
  let connection: mysql.Connection;
  beforeAll(async () => {
    connection = await mysql.createConnection({ uri: serverUrl });
    await connection.query(`CREATE DATABASE \`${recent}\``);
    await connection.query(`CREATE TABLE \`${recent}\`.knex_migrations (id INT PRIMARY KEY)`);
    await connection.query(`CREATE DATABASE \`${empty}\``);
  });
  afterAll(async () => {
    await connection.query(`DROP DATABASE IF EXISTS \`${recent}\``);
    await connection.query(`DROP DATABASE IF EXISTS \`${empty}\``);
    await connection.end();
  });

  it('keeps one made within the day (another checkout may be copying from it) and drops one left empty', async () => {
    await dropStaleMysqlTemplates(serverUrl);

    const [rows] = await connection.query('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN (?, ?, ?)', [
      recent,
      empty,
      templateName(),
    ]);
    expect((rows as Array<{ name: string }>).map((row) => row.name).sort()).toEqual([templateName(), recent].sort());
  });
});

describe.each(testDialects())('a test database copied from the migrated template on %s', (dialect) => {
  let fresh: TestDatabase;
  let copied: TestDatabase;
  let freshDb: Db;
  let copiedDb: Db;
  let appliedToFresh: string[];
  let appliedToCopy: string[];
  beforeAll(async () => {
    fresh = await createTestDatabase(dialect, { empty: true });
    copied = await createTestDatabase(dialect);
    freshDb = fresh.open();
    copiedDb = copied.open();
    appliedToFresh = await migrateToLatest(freshDb);
    // What an app start does on it (openInstance).
    appliedToCopy = await migrateToLatest(copiedDb);
  });
  afterAll(async () => {
    await freshDb?.destroy();
    await copiedDb?.destroy();
    await fresh?.drop();
    await copied?.drop();
  });

  it('is up to date already: an app start applies no migration to it', () => {
    expect(appliedToFresh).toEqual(MIGRATIONS.map((migration) => migration.name));
    expect(appliedToCopy).toEqual([]);
  });

  it('has the schema of a freshly migrated database: tables, columns, indexes, foreign keys, counters', async () => {
    const expected = await describeSchema(freshDb);
    const actual = await describeSchema(copiedDb);

    expect(Object.keys(actual)).toEqual(Object.keys(expected));
    for (const [part, description] of Object.entries(expected)) expect({ [part]: actual[part] }).toEqual({ [part]: description });
    expect(expected.tables).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'employees' })]));
  });

  it('has the rows of a freshly migrated database in every table', async () => {
    const tables = await tablesOf(freshDb);
    const expected = await rowsOf(freshDb, tables);
    const actual = await rowsOf(copiedDb, tables);

    expect(tables).toEqual(await tablesOf(copiedDb));
    for (const table of tables) expect({ [table]: actual[table] }).toEqual({ [table]: expected[table] });
    expect(expected.countries!.length).toBeGreaterThan(200);
    expect(expected.knex_migrations).toHaveLength(MIGRATIONS.length);
  });

  it('gives the next rows the ids a freshly migrated database gives them', async () => {
    const insert = async (db: Db) => ({
      nationality: (await db('nationalities').insert({ name: 'Template Test' }))[0],
      department: (await db('departments').insert({ name: 'Template Test' }))[0],
      migration: (await db('knex_migrations').insert({ name: 'template_test', batch: 2, migration_time: new Date() }))[0],
    });

    const expected = await insert(freshDb);
    const actual = await insert(copiedDb);

    expect(actual).toEqual(expected);
    expect(expected.department).toBe(1);
  });
});

async function query(db: Db, sql: string): Promise<Array<Record<string, unknown>>> {
  const result = await db.raw(sql);
  return dialectOf(db) === 'mysql' ? (result as [Array<Record<string, unknown>>])[0] : (result as Array<Record<string, unknown>>);
}

async function tablesOf(db: Db): Promise<string[]> {
  const rows =
    dialectOf(db) === 'mysql'
      ? await query(
          db,
          "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE'",
        )
      : await query(db, "SELECT name FROM sqlite_master WHERE type = 'table'");
  return rows.map((row) => String(row.name)).sort();
}

/** Every row of every table (sqlite_sequence included), the migration times left out, in a stable order. */
async function rowsOf(db: Db, tables: string[]): Promise<Record<string, string[]>> {
  const rows: Record<string, string[]> = {};
  for (const table of tables) {
    const left = MIGRATION_TIME_COLUMNS[table] ?? [];
    rows[table] = (await db(table).select())
      .map((row: Record<string, unknown>) => JSON.stringify(Object.entries(row).filter(([column]) => !left.includes(column))))
      .sort();
  }
  return rows;
}

/** The schema as the dialect reports it, in parts that fail one by one. */
async function describeSchema(db: Db): Promise<Record<string, unknown>> {
  return dialectOf(db) === 'mysql' ? describeMysqlSchema(db) : describeSqliteSchema(db);
}

async function describeSqliteSchema(db: Db): Promise<Record<string, unknown>> {
  const tables = await tablesOf(db);
  const perTable = async (pragma: string) =>
    Object.fromEntries(
      await Promise.all(tables.map(async (table) => [table, await query(db, `PRAGMA ${pragma}(${JSON.stringify(table)})`)])),
    );
  const indexes = await query(db, "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name");
  return {
    tables: await query(db, 'SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name'),
    columns: await perTable('table_xinfo'),
    indexes: await perTable('index_list'),
    indexColumns: Object.fromEntries(
      await Promise.all(indexes.map(async ({ name }) => [name, await query(db, `PRAGMA index_xinfo(${JSON.stringify(name)})`)])),
    ),
    foreignKeys: await perTable('foreign_key_list'),
    settings: await Promise.all(['journal_mode', 'user_version', 'encoding', 'auto_vacuum'].map((pragma) => query(db, `PRAGMA ${pragma}`))),
  };
}

async function describeMysqlSchema(db: Db): Promise<Record<string, unknown>> {
  const tables = await tablesOf(db);
  return {
    schema: await query(
      db,
      'SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = DATABASE()',
    ),
    tables: await query(
      db,
      `SELECT TABLE_NAME AS name, TABLE_TYPE, ENGINE, ROW_FORMAT, AUTO_INCREMENT, TABLE_COLLATION, CREATE_OPTIONS, TABLE_COMMENT
       FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME`,
    ),
    columns: await query(
      db,
      `SELECT TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_DEFAULT, IS_NULLABLE, COLUMN_TYPE, CHARACTER_SET_NAME,
              COLLATION_NAME, COLUMN_KEY, EXTRA, GENERATION_EXPRESSION, COLUMN_COMMENT
       FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION`,
    ),
    indexes: await query(
      db,
      `SELECT TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NON_UNIQUE, SUB_PART, COLLATION, NULLABLE, INDEX_TYPE
       FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`,
    ),
    constraints: await query(
      db,
      `SELECT TABLE_NAME, CONSTRAINT_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS
       WHERE CONSTRAINT_SCHEMA = DATABASE() ORDER BY TABLE_NAME, CONSTRAINT_NAME`,
    ),
    // A foreign key of the copy must point into the copy, never at the template.
    foreignKeys: await query(
      db,
      `SELECT k.TABLE_NAME, k.CONSTRAINT_NAME, k.COLUMN_NAME, k.ORDINAL_POSITION, k.REFERENCED_TABLE_SCHEMA = k.TABLE_SCHEMA AS same_schema,
              k.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME, r.UPDATE_RULE, r.DELETE_RULE
       FROM information_schema.KEY_COLUMN_USAGE k
       JOIN information_schema.REFERENTIAL_CONSTRAINTS r ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME
       WHERE k.TABLE_SCHEMA = DATABASE() ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`,
    ),
    others: await query(
      db,
      `SELECT 'view' AS kind, TABLE_NAME AS name FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE()
       UNION ALL SELECT 'trigger', TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()
       UNION ALL SELECT 'routine', ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE()
       UNION ALL SELECT 'event', EVENT_NAME FROM information_schema.EVENTS WHERE EVENT_SCHEMA = DATABASE()`,
    ),
    createTable: Object.fromEntries(
      await Promise.all(tables.map(async (table) => [table, (await query(db, `SHOW CREATE TABLE \`${table}\``))[0]?.['Create Table']])),
    ),
  };
}
