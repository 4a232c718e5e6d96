import type { Knex } from 'knex';
import { type Db, dialectOf, QUERY_TIMEOUT_MS } from './connect';

const PARAMETER = '\u0000hrm-parameter:';

/** Stands for the `index`-th argument of a prepared query while it is being built. */
export function parameter(index: number): string {
  return `${PARAMETER}${index}`;
}

type Slot = { argument: number } | { value: unknown };
interface Compiled {
  sql: string;
  slots: Slot[];
}

interface MysqlConnection {
  execute(sql: string, values: unknown[], callback: (error: Error | null, rows: unknown) => void): void;
  destroy(): void;
  __knex__disposed?: unknown;
}
interface SqliteConnection {
  prepare(sql: string): { all(...values: unknown[]): unknown[] };
}
interface PoolClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

const sqliteStatements = new WeakMap<object, Map<string, ReturnType<SqliteConnection['prepare']>>>();

/**
 * A read query compiled to SQL once per database and run on the driver itself as a prepared
 * statement (mysql2 `execute`, a cached better-sqlite3 statement): no query building and no Knex
 * runner per call. Only for the query on every request's path (authentication); everything else
 * goes through Knex. Build the query with `parameter(i)` where argument i goes.
 */
export function preparedQuery(
  build: (db: Db) => Knex.QueryBuilder,
): (db: Db, args: unknown[]) => Promise<Array<Record<string, unknown>>> {
  const compiled = new WeakMap<Db, Compiled>();
  return async (db, args) => {
    let query = compiled.get(db);
    if (!query) {
      query = compile(build(db));
      compiled.set(db, query);
    }
    const values = query.slots.map((slot) => ('argument' in slot ? args[slot.argument] : slot.value));
    return run(db, query.sql, values);
  };
}

function compile(builder: Knex.QueryBuilder): Compiled {
  const { sql, bindings } = builder.toSQL().toNative();
  const slots = bindings.map((binding): Slot =>
    typeof binding === 'string' && binding.startsWith(PARAMETER) ? { argument: Number(binding.slice(PARAMETER.length)) } : { value: binding },
  );
  return { sql, slots };
}

async function run(db: Db, sql: string, values: unknown[]): Promise<Array<Record<string, unknown>>> {
  if ((db as Knex.Transaction).isTransaction) throw new Error('Prepared queries run on the pool, not inside a transaction');
  const client = db.client as PoolClient;
  // Knex's pool: the same connections, limits and acquire timeout as every other query.
  const connection = await client.acquireConnection();
  try {
    if (dialectOf(db) === 'mysql') return await executeWithTimeout(connection as MysqlConnection, sql, values);
    return statementFor(connection as SqliteConnection, sql).all(...values) as Array<Record<string, unknown>>;
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * mysql2 `execute`, failing after QUERY_TIMEOUT_MS like every Knex query does: the connection is
 * then marked disposed (Knex's own flag), so the pool destroys it on release.
 */
function executeWithTimeout(connection: MysqlConnection, sql: string, values: unknown[]): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = Object.assign(new Error(`Query timed out after ${QUERY_TIMEOUT_MS} ms`), { code: 'PROTOCOL_SEQUENCE_TIMEOUT' });
      connection.__knex__disposed = error;
      reject(error);
    }, QUERY_TIMEOUT_MS);
    connection.execute(sql, values, (error, rows) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(rows as Array<Record<string, unknown>>);
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
