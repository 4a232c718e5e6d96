import { type Db, dialectOf } from '../../src/db/connect';
import { runStatement } from '../../src/db/driver-statements';

/**
 * What a request may change without having changed anything a client could see: knex's own
 * bookkeeping, rate-limit counters, and a token's last_used_at (written on use, even by a request
 * that is then refused).
 */
const IGNORED_TABLES = new Set(['knex_migrations', 'knex_migrations_lock', 'rate_limits']);
const IGNORED_COLUMNS: Record<string, string[]> = { api_tokens: ['last_used_at'] };

/** Every row of every table, as one comparable text per table. */
export type DatabaseSnapshot = Map<string, string>;

export async function tablesOf(db: Db): Promise<string[]> {
  const names =
    dialectOf(db) === 'mysql'
      ? ((await db.raw('SHOW TABLES'))[0] as Array<Record<string, string>>).map((row) => Object.values(row)[0]!)
      : ((await db.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")) as Array<{ name: string }>).map(
          (row) => row.name,
        );
  return names.filter((name) => !IGNORED_TABLES.has(name)).sort();
}

export async function snapshotDatabase(db: Db, tables: string[]): Promise<DatabaseSnapshot> {
  const snapshot: DatabaseSnapshot = new Map();
  for (const table of tables) {
    const rows = (await db(table).select()) as Array<Record<string, unknown>>;
    const ignored = IGNORED_COLUMNS[table] ?? [];
    const texts = rows.map((row) => JSON.stringify(Object.entries(row).filter(([column]) => !ignored.includes(column)))).sort();
    snapshot.set(table, texts.join('\n'));
  }
  return snapshot;
}

/** The tables whose rows differ between two snapshots. */
export function changedTables(before: DatabaseSnapshot, after: DatabaseSnapshot): string[] {
  return [...after.keys()].filter((table) => before.get(table) !== after.get(table));
}

/**
 * snapshotDatabase's snapshot in one round trip instead of one query per table, for a test that
 * takes one after every request: a single statement reads every row of every table, each written
 * by the database as one text that tells apart any two different rows (the ignored columns left
 * out). The statement is built once, from the columns the tables have now.
 */
export async function prepareSnapshot(db: Db, tables: string[]): Promise<() => Promise<DatabaseSnapshot>> {
  const mysql = dialectOf(db) === 'mysql';
  const columns = mysql
    ? ((
        await db.raw(
          'SELECT TABLE_NAME AS `table`, COLUMN_NAME AS `column` FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION',
        )
      )[0] as Array<{ table: string; column: string }>)
    : ((await db.raw(
        `SELECT m.name AS "table", c.name AS "column" FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table' ORDER BY m.name, c.cid`,
      )) as Array<{ table: string; column: string }>);
  const quoteName = (name: string) => (mysql ? `\`${name.replace(/`/g, '``')}\`` : `"${name.replace(/"/g, '""')}"`);
  const selects = tables.map((table, index) => {
    const ignored = IGNORED_COLUMNS[table] ?? [];
    const names = columns.filter((row) => row.table === table && !ignored.includes(row.column)).map((row) => quoteName(row.column));
    if (names.length === 0) throw new Error(`No columns found for table ${table}`);
    // MariaDB's JSON escapes every string (NUL included) and keeps a decimal's digits; SQLite's
    // quote() would stop a text at a NUL, so each value is its type and the hex of its bytes.
    const row = mysql
      ? `CAST(JSON_ARRAY(${names.join(', ')}) AS CHAR)`
      : names.map((name) => `typeof(${name}) || ':' || hex(${name})`).join(" || ',' || ");
    return `SELECT ${index} AS t, ${row} AS r FROM ${quoteName(table)}`;
  });
  const statement = { sql: selects.join(' UNION ALL '), values: [] };
  return async () => {
    // Prepared once (per connection), as the app's busiest statements are: compiling a statement
    // of this size costs more than running it.
    const rows = (await runStatement(db, statement, 'read')) as Array<{ t: number | string; r: string }>;
    const texts = tables.map((): string[] => []);
    for (const row of rows) texts[Number(row.t)]!.push(row.r);
    return new Map(tables.map((table, index) => [table, texts[index]!.sort().join('\n')]));
  };
}
