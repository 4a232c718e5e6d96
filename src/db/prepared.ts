import type { Knex } from 'knex';
import { type Db, type Dialect, dialectOf, QUERY_TIMEOUT_MS } from './connect';
import { limitedListSql, listReadLimitOf } from './statement-time';

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

type Row = Record<string, unknown>;
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
  return async (db, args) => (await run(db, valuesOf(compiled(db), args), 'read')) as Row[];
}

/** preparedQuery for an INSERT, UPDATE or DELETE. */
export function preparedWrite(build: (db: Db) => Knex.QueryBuilder): (db: Db, args: unknown[]) => Promise<WriteResult> {
  const compiled = compiledOnce(build);
  return async (db, args) => (await run(db, valuesOf(compiled(db), args), 'write')) as WriteResult;
}

/**
 * A list read (statement-time.ts) written as SQL, run as a prepared statement like preparedQuery's
 * (a statement the server keeps per connection, so callers send only a bounded set of texts),
 * under the list statement limit when `db` has one. The SQL uses `?` placeholders and backquoted
 * names, which both dialects read. On MySQL/MariaDB outside a transaction the same read asked by
 * several requests at once is sent once for them (sharedRead): the rows it answers are shared.
 */
export async function preparedListRead(db: Db, sql: string, values: unknown[]): Promise<Row[]> {
  if (dialectOf(db) !== 'mysql') return (await run(db, { sql, values }, 'read')) as Row[];
  const limit = listReadLimitOf(db);
  const statement = { sql: limit ? limitedListSql(sql, limit.limitMs) : sql, values };
  if ((db as Knex.Transaction).isTransaction) return (await run(db, statement, 'read', limit?.timeoutMs)) as Row[];
  return sharedRead(db, statement, limit?.timeoutMs);
}

interface SharedReadState {
  out: boolean;
  /** The callers who asked while the read was out: the next read answers them. */
  waiting: { promise: Promise<Row[]>; resolve(rows: Row[]): void; reject(error: unknown): void } | undefined;
}
const sharedReads = new WeakMap<Db, Map<string, SharedReadState>>();

/**
 * The same list read (statement and values) asked by several requests at once, on MySQL/MariaDB,
 * sent once for them, as batchedLookup sends lookups: asked while none is out, it goes at once;
 * asked while the same read is out, it waits for that one to return and then goes out once for
 * everyone who asked meanwhile. Each caller so gets rows read after it asked, never an earlier
 * answer; under load, readers of the same page (page 1 of the list, mostly) pay one round trip
 * and one parse of the rows between them. The rows are shared: a caller may add to a row what it
 * derives from it alone (toEmployeeRecord's names), never change what was read.
 */
function sharedRead(db: Db, statement: { sql: string; values: unknown[] }, timeoutMs: number | undefined): Promise<Row[]> {
  let reads = sharedReads.get(db);
  if (!reads) sharedReads.set(db, (reads = new Map()));
  const key = `${statement.sql}\u0000${JSON.stringify(statement.values)}`;
  let state = reads.get(key);
  if (!state) reads.set(key, (state = { out: false, waiting: undefined }));
  const waiting = (state.waiting ??= deferredRows());
  if (!state.out) sendShared(db, reads, key, state, statement, timeoutMs);
  return waiting.promise;
}

function sendShared(
  db: Db,
  reads: Map<string, SharedReadState>,
  key: string,
  state: SharedReadState,
  statement: { sql: string; values: unknown[] },
  timeoutMs: number | undefined,
): void {
  const callers = state.waiting!;
  state.waiting = undefined;
  state.out = true;
  run(db, statement, 'read', timeoutMs)
    .then(
      (rows) => callers.resolve(rows as Row[]),
      (error: unknown) => callers.reject(error),
    )
    .finally(() => {
      state.out = false;
      if (state.waiting) sendShared(db, reads, key, state, statement, timeoutMs);
      else reads.delete(key);
    });
}

function deferredRows(): NonNullable<SharedReadState['waiting']> {
  let resolve!: (rows: Row[]) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<Row[]>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/** Most keys one batched query asks for; the IN lists are 1, 2, 4 ... this many long. */
const MAX_BATCH = 64;
const BATCH_SIZES = [1, 2, 4, 8, 16, 32, 64];

/**
 * Batched queries of one lookup in flight at a time per database. A lookup asked for while none is
 * out is sent at once, so a server under light load answers as fast as with one query per lookup;
 * one asked for meanwhile waits at most that query's round trip. One rather than two: with 16 to 64
 * clients reading employees by id on MariaDB, one in flight answered 15-33% more requests at the
 * same or lower latency (bigger batches, fewer queries), and the same with 1 and 4 clients.
 */
const MAX_BATCHES_IN_FLIGHT = 1;

interface Waiter {
  resolve(row: Row | undefined): void;
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
  keyOf: (row: Row) => K,
): (db: Db, key: K) => Promise<Row | undefined> {
  const variants = new Map(
    BATCH_SIZES.map((size) => [
      size,
      compiledOnce((db) =>
        build(
          db,
          Array.from({ length: size }, (_, index) => parameter(index)),
        ),
      ),
    ]),
  );
  const states = new WeakMap<Db, BatchState<K>>();

  const send = async (db: Db, batch: Batch<K>): Promise<void> => {
    try {
      const keys = [...batch.keys()];
      const size = BATCH_SIZES.find((candidate) => candidate >= keys.length) ?? MAX_BATCH;
      const padded = keys.concat(Array<K>(size - keys.length).fill(keys[0] as K));
      const rows = (await run(db, valuesOf(variants.get(size)!(db), padded), 'read')) as Row[];
      const byKey = new Map<K, Row>(rows.map((row) => [keyOf(row), row]));
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

/** The query `build` makes, compiled the first time it is asked for in each dialect. */
function compiledOnce(build: (db: Db) => Knex.QueryBuilder): (db: Db) => Compiled {
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

function valuesOf(query: Compiled, args: unknown[]): { sql: string; values: unknown[] } {
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

async function run(
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
