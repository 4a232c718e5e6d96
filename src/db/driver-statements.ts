import type { Knex } from 'knex';
import { type Db, type Dialect, dialectOf, QUERY_TIMEOUT_MS } from './connect';

// Statements run on the driver itself, prepared once per dialect (and per SQLite connection), past
// Knex's query building and runner; the coalesced reads (coalesced-reads.ts) send theirs through here.

const PARAMETER = '\u0000hrm-parameter:';

/** Stands for the `index`-th argument of a prepared query while it is being built. */
export function parameter(index: number): string {
  return `${PARAMETER}${index}`;
}

type Slot = { argument: number } | { value: unknown };
export interface Compiled {
  sql: string;
  slots: Slot[];
}

export type Row = Record<string, unknown>;
/** What a prepared INSERT, UPDATE or DELETE tells. */
export interface WriteResult {
  /** The id of the row an INSERT added (auto-increment). */
  insertId: number;
  affectedRows: number;
}

interface MysqlConnection {
  execute(sql: string, values: unknown[], callback: (error: Error | null, result: unknown) => void): void;
  destroy(): void;
  __knex__disposed?: unknown;
}
interface SqliteStatement {
  all(...values: unknown[]): unknown[];
  run(...values: unknown[]): { lastInsertRowid: number | bigint; changes: number };
}
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}
interface PoolClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

const sqliteStatements = new WeakMap<object, Map<string, SqliteStatement>>();

/**
 * A query compiled to SQL once per dialect and run on the driver itself as a prepared statement
 * (mysql2 `execute`, a cached better-sqlite3 statement): no query building and no Knex runner
 * per call. For the statements on the busiest paths (authentication, punches); everything else
 * goes through Knex. Build the query with `parameter(i)` where argument i goes. `db` may be the
 * pool or a transaction, whose connection the statement then runs on.
 */
export function preparedQuery(build: (db: Db) => Knex.QueryBuilder): (db: Db, args: unknown[]) => Promise<Row[]> {
  const compiled = compiledOnce(build);
  return async (db, args) => (await runStatement(db, valuesOf(compiled(db), args), 'read')) as Row[];
}

/** preparedQuery for an INSERT, UPDATE or DELETE. */
export function preparedWrite(build: (db: Db) => Knex.QueryBuilder): (db: Db, args: unknown[]) => Promise<WriteResult> {
  const compiled = compiledOnce(build);
  return async (db, args) => (await runStatement(db, valuesOf(compiled(db), args), 'write')) as WriteResult;
}

/** The query `build` makes, compiled the first time it is asked for in each dialect. */
export function compiledOnce(build: (db: Db) => Knex.QueryBuilder): (db: Db) => Compiled {
  const compiled = new Map<Dialect, Compiled>();
  return (db) => {
    const dialect = dialectOf(db);
    let query = compiled.get(dialect);
    if (!query) {
      query = compile(build(db));
      compiled.set(dialect, query);
    }
    return query;
  };
}

export function valuesOf(query: Compiled, args: unknown[]): { sql: string; values: unknown[] } {
  return { sql: query.sql, values: query.slots.map((slot) => ('argument' in slot ? args[slot.argument] : slot.value)) };
}

function compile(builder: Knex.QueryBuilder): Compiled {
  const { sql, bindings } = builder.toSQL().toNative();
  const slots = bindings.map((binding): Slot =>
    typeof binding === 'string' && binding.startsWith(PARAMETER)
      ? { argument: Number(binding.slice(PARAMETER.length)) }
      : { value: binding },
  );
  return { sql, slots };
}

export async function runStatement(
  db: Db,
  { sql, values }: { sql: string; values: unknown[] },
  kind: 'read' | 'write',
  timeoutMs = QUERY_TIMEOUT_MS,
): Promise<Row[] | WriteResult> {
  // A finished transaction's connection is back in the pool, perhaps serving another request.
  if ((db as Knex.Transaction).isTransaction && (db as Knex.Transaction).isCompleted()) {
    throw new Error('Prepared statement on a transaction that has ended');
  }
  const client = db.client as PoolClient & { emit(event: 'query', query: { sql: string; bindings: unknown[] }): boolean };
  // Whoever listens to Knex's `query` event (a test, a debugging session) sees these statements
  // as it sees Knex's own.
  client.emit('query', { sql, bindings: values });
  // Knex's pool (the same connections, limits and acquire timeout as every other query), or
  // the transaction's own connection, which releasing leaves to the transaction.
  const connection = await client.acquireConnection();
  try {
    if (dialectOf(db) === 'mysql') {
      const result = await executeWithTimeout(connection as MysqlConnection, sql, values, timeoutMs);
      if (kind === 'read') return result as Row[];
      const { insertId, affectedRows } = result as WriteResult;
      return { insertId: Number(insertId), affectedRows };
    }
    const statement = statementFor(connection as SqliteConnection, sql);
    if (kind === 'read') return statement.all(...values) as Row[];
    const { lastInsertRowid, changes } = statement.run(...values);
    return { insertId: Number(lastInsertRowid), affectedRows: changes };
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * mysql2 `execute`, failing after QUERY_TIMEOUT_MS like every Knex query does: the connection is
 * then marked disposed (Knex's own flag), so the pool destroys it on release.
 */
function executeWithTimeout(connection: MysqlConnection, sql: string, values: unknown[], timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = Object.assign(new Error(`Query timed out after ${timeoutMs} ms`), { code: 'PROTOCOL_SEQUENCE_TIMEOUT' });
      connection.__knex__disposed = error;
      reject(error);
    }, timeoutMs);
    connection.execute(sql, values, (error, result) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(result);
    });
  });
}

function statementFor(connection: SqliteConnection, sql: string) {
  let statements = sqliteStatements.get(connection);
  if (!statements) {
    statements = new Map();
    sqliteStatements.set(connection, statements);
  }
  let statement = statements.get(sql);
  if (!statement) {
    statement = connection.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
}
