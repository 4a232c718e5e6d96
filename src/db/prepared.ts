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
 * runner per call. Only for the queries on every request's path (authentication); everything else
 * goes through Knex. Build the query with `parameter(i)` where argument i goes.
 */
export function preparedQuery(
  build: (db: Db) => Knex.QueryBuilder,
): (db: Db, args: unknown[]) => Promise<Array<Record<string, unknown>>> {
  const compiled = compiledOnce(build);
  return (db, args) => run(db, valuesOf(compiled(db), args));
}

/** Most keys one batched query asks for; the IN lists are 1, 2, 4 ... this many long. */
const MAX_BATCH = 64;
const BATCH_SIZES = [1, 2, 4, 8, 16, 32, 64];

/**
 * Batched queries of one lookup in flight at a time per database. Below this, a lookup is sent at
 * once, so a server under light load answers as fast as with one query per lookup.
 */
const MAX_BATCHES_IN_FLIGHT = 2;

interface Waiter {
  resolve(row: Record<string, unknown> | undefined): void;
  reject(error: unknown): void;
}
type Batch<K> = Map<K, Waiter[]>;
interface BatchState<K> {
  inFlight: number;
  open: Batch<K> | undefined;
}

/**
 * A prepared lookup of one row by key, many keys to a query: `build` gets the placeholders of
 * the keys (use them in a whereIn) and `keyOf` says which key a row answers. With few lookups
 * under way each is sent at once; when MAX_BATCHES_IN_FLIGHT queries are already out, those asked
 * for meanwhile wait for one of them to come back and then go out together, the same key once.
 * Each lookup still reads the database after it was asked for, never an earlier answer, so a
 * change committed before a request arrives (a revoked token) is always seen. Under load this
 * saves most of the per-query cost: the round trip, the statement and its column definitions.
 */
export function batchedLookup<K extends string | number>(
  build: (db: Db, keys: string[]) => Knex.QueryBuilder,
  keyOf: (row: Record<string, unknown>) => K,
): (db: Db, key: K) => Promise<Record<string, unknown> | undefined> {
  const variants = new Map(
    BATCH_SIZES.map((size) => [size, compiledOnce((db) => build(db, Array.from({ length: size }, (_, index) => parameter(index))))]),
  );
  const states = new WeakMap<Db, BatchState<K>>();

  const send = async (db: Db, batch: Batch<K>): Promise<void> => {
    try {
      const keys = [...batch.keys()];
      const size = BATCH_SIZES.find((candidate) => candidate >= keys.length) ?? MAX_BATCH;
      const padded = keys.concat(Array<K>(size - keys.length).fill(keys[0] as K));
      const rows = await run(db, valuesOf(variants.get(size)!(db), padded));
      const byKey = new Map<K, Record<string, unknown>>(rows.map((row) => [keyOf(row), row]));
      for (const [key, waiters] of batch) {
        const row = byKey.get(key);
        // Each waiter gets a row of its own: callers may build on it.
        waiters.forEach((waiter, index) => waiter.resolve(row && index > 0 ? { ...row } : row));
      }
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
    }
  };
  const dispatch = (db: Db, state: BatchState<K>): void => {
    const batch = state.open;
    if (!batch) return;
    state.open = undefined;
    state.inFlight++;
    void send(db, batch).finally(() => {
      state.inFlight--;
      if (state.inFlight < MAX_BATCHES_IN_FLIGHT) dispatch(db, state);
    });
  };

  return (db, key) =>
    new Promise((resolve, reject) => {
      let state = states.get(db);
      if (!state) {
        state = { inFlight: 0, open: undefined };
        states.set(db, state);
      }
      const batch = (state.open ??= new Map<K, Waiter[]>());
      const waiters = batch.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else batch.set(key, [{ resolve, reject }]);
      if (state.inFlight < MAX_BATCHES_IN_FLIGHT || batch.size >= MAX_BATCH) dispatch(db, state);
    });
}

/** The query `build` makes, compiled the first time it is asked for on each database. */
function compiledOnce(build: (db: Db) => Knex.QueryBuilder): (db: Db) => Compiled {
  const compiled = new WeakMap<Db, Compiled>();
  return (db) => {
    let query = compiled.get(db);
    if (!query) {
      query = compile(build(db));
      compiled.set(db, query);
    }
    return query;
  };
}

function valuesOf(query: Compiled, args: unknown[]): { sql: string; values: unknown[] } {
  return { sql: query.sql, values: query.slots.map((slot) => ('argument' in slot ? args[slot.argument] : slot.value)) };
}

function compile(builder: Knex.QueryBuilder): Compiled {
  const { sql, bindings } = builder.toSQL().toNative();
  const slots = bindings.map((binding): Slot =>
    typeof binding === 'string' && binding.startsWith(PARAMETER) ? { argument: Number(binding.slice(PARAMETER.length)) } : { value: binding },
  );
  return { sql, slots };
}

async function run(db: Db, { sql, values }: { sql: string; values: unknown[] }): Promise<Array<Record<string, unknown>>> {
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
