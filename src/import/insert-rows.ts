import { type Db, dialectOf } from '../db/connect';
import { parameter, preparedWrite, type WriteResult } from '../db/driver-statements';

/** Rows per MySQL statement: 1,000 rows of the widest table (employees, 42 columns) stay under 65,535 placeholders. */
const MYSQL_ROWS = 1000;

type Row = Record<string, unknown>;

/**
 * Inserts many rows of one shape, the import's hot path. Knex would build (and SQLite prepare)
 * a new statement of hundreds of rows for every batch, which cost more than running it; here the
 * SQL is written once: on SQLite one prepared single-row statement, run per row inside the
 * caller's transaction; on MySQL a prepared statement of MYSQL_ROWS rows (and one per size of
 * the last, shorter chunk). `upsert` turns rows whose key exists into updates of those columns.
 */
export function rowInserter(
  table: string,
  columns: readonly string[],
  upsert?: { key: readonly string[]; update: readonly string[] },
): (db: Db, rows: Row[]) => Promise<void> {
  const statements = new Map<number, (db: Db, args: unknown[]) => Promise<WriteResult>>();
  const statementFor = (size: number) => {
    let statement = statements.get(size);
    if (!statement) {
      statement = preparedWrite((db) => {
        const values = Array.from({ length: size }, (_, row) =>
          Object.fromEntries(columns.map((column, index) => [column, parameter(row * columns.length + index)])),
        );
        const insert = db(table).insert(values);
        return upsert ? insert.onConflict([...upsert.key]).merge([...upsert.update]) : insert;
      });
      statements.set(size, statement);
    }
    return statement;
  };
  return async (db, rows) => {
    const size = dialectOf(db) === 'sqlite' ? 1 : MYSQL_ROWS;
    for (let start = 0; start < rows.length; start += size) {
      const chunk = rows.slice(start, start + size);
      await statementFor(chunk.length)(
        db,
        chunk.flatMap((row) => columns.map((column) => row[column] ?? null)),
      );
    }
  };
}
