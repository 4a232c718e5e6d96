import { type Db, dialectOf } from '../../src/db/connect';

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
