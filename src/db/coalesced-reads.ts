import type { Knex } from 'knex';
import { type Db, dialectOf } from './connect';
import { compiledOnce, parameter, type Row, runStatement, valuesOf } from './driver-statements';
import { limitedListSql, listReadLimitOf } from './statement-time';

// Reads that several requests asking at once share one query for: the same list read
// (preparedListRead) and lookups of one row by key (batchedLookup). The rule for both: rows are
// shaped once (the caller's `shape`, e.g. toEmployeeRecord's names) and frozen, then shared by
// every caller of that read. A change throws instead of reaching another request, and the rows
// are parsed and shaped once however many requests asked for them (docs/performance.md,
// "Coalesced reads' rows"). A list read that only one caller got is not frozen (no other request
// can see it, and the freeze is a few percent of a one-connection list page), except under jest
// (NODE_ENV=test), where every read is, so a test on either dialect fails on a caller that
// changes its rows.
const FREEZE_UNSHARED = process.env.NODE_ENV === 'test';

/** A list read's rows, shaped once and frozen (each row and its nested objects, and the list). */
function frozenRows(rows: Row[], shape: ((row: Row) => unknown) | undefined): readonly Row[] {
  for (const row of rows) {
    if (shape) shape(row);
    for (const value of Object.values(row)) if (value !== null && typeof value === 'object') Object.freeze(value);
    Object.freeze(row);
  }
  return Object.freeze(rows);
}

/** A list read's rows for `callers` callers: shaped once, and frozen when shared (see above). */
function listRows(rows: Row[], shape: ((row: Row) => unknown) | undefined, callers = 1): readonly Row[] {
  if (callers > 1 || FREEZE_UNSHARED) return frozenRows(rows, shape);
  if (shape) for (const row of rows) shape(row);
  return rows;
}

/**
 * A list read (statement-time.ts) written as SQL, run as a prepared statement like preparedQuery's
 * (a statement the server keeps per connection, so callers send only a bounded set of texts),
 * under the list statement limit when `db` has one. The SQL uses `?` placeholders and backquoted
 * names, which both dialects read. On MySQL/MariaDB outside a transaction the same read asked by
 * several requests at once is sent once for them (sharedRead), each getting rows of its own.
 */
export async function preparedListRead(db: Db, sql: string, values: unknown[], shape?: (row: Row) => unknown): Promise<readonly Row[]> {
  if (dialectOf(db) !== 'mysql') return listRows((await runStatement(db, { sql, values }, 'read')) as Row[], shape);
  const limit = listReadLimitOf(db);
  const statement = { sql: limit ? limitedListSql(sql, limit.limitMs) : sql, values };
  if ((db as Knex.Transaction).isTransaction) {
    return listRows((await runStatement(db, statement, 'read', limit?.timeoutMs)) as Row[], shape);
  }
  return sharedRead(db, statement, limit?.timeoutMs, shape);
}

interface RowsWaiter {
  resolve(rows: readonly Row[]): void;
  reject(error: unknown): void;
}
interface SharedReadState {
  out: boolean;
  /** The callers who asked while the read was out: the next read answers them. */
  waiting: RowsWaiter[];
  /** How the read's rows are shaped: one statement's callers (one call site) pass the same. */
  shape: ((row: Row) => unknown) | undefined;
}
const sharedReads = new WeakMap<Db, Map<string, SharedReadState>>();

/**
 * The same list read (statement and values) asked by several requests at once, on MySQL/MariaDB,
 * sent once for them, as batchedLookup sends lookups: asked while none is out, it goes at once;
 * asked while the same read is out, it waits for that one to return and then goes out once for
 * everyone who asked meanwhile. Each caller so gets rows read after it asked, never an earlier
 * answer; under load, readers of the same page (page 1 of the list, mostly) pay one round trip
 * and one parse of the rows between them.
 */
function sharedRead(
  db: Db,
  statement: { sql: string; values: unknown[] },
  timeoutMs: number | undefined,
  shape: ((row: Row) => unknown) | undefined,
): Promise<readonly Row[]> {
  let reads = sharedReads.get(db);
  if (!reads) sharedReads.set(db, (reads = new Map()));
  const key = `${statement.sql}\u0000${JSON.stringify(statement.values)}`;
  let state = reads.get(key);
  if (!state) reads.set(key, (state = { out: false, waiting: [], shape }));
  const rows = new Promise<readonly Row[]>((resolve, reject) => state.waiting.push({ resolve, reject }));
  if (!state.out) sendShared(db, reads, key, state, statement, timeoutMs);
  return rows;
}

/** How many callers got each list read's rows, when more than one did. */
const sharedBy = new WeakMap<readonly Row[], number>();

/**
 * How many callers got these rows from one list read (preparedListRead): 1 unless several asked
 * at once. What a caller makes of shared rows (a page's JSON) is worth keeping for the others only then.
 */
export function readersOf(rows: readonly object[]): number {
  return sharedBy.get(rows as readonly Row[]) ?? 1;
}

function sendShared(
  db: Db,
  reads: Map<string, SharedReadState>,
  key: string,
  state: SharedReadState,
  statement: { sql: string; values: unknown[] },
  timeoutMs: number | undefined,
): void {
  const callers = state.waiting;
  state.waiting = [];
  state.out = true;
  runStatement(db, statement, 'read', timeoutMs)
    .then(
      (rows) => {
        const shared = listRows(rows as Row[], state.shape, callers.length);
        if (callers.length > 1) sharedBy.set(shared, callers.length);
        for (const caller of callers) caller.resolve(shared);
      },
      (error: unknown) => callers.forEach((caller) => caller.reject(error)),
    )
    .finally(() => {
      state.out = false;
      if (state.waiting.length > 0) sendShared(db, reads, key, state, statement, timeoutMs);
      else reads.delete(key);
    });
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
 * A row is shaped once (`shape`) and frozen, and every caller asking for its key shares it.
 */
export function batchedLookup<K extends string | number>(
  build: (db: Db, keys: string[]) => Knex.QueryBuilder,
  keyOf: (row: Row) => K,
  shape?: (row: Row) => unknown,
): (db: Db, key: K) => Promise<Readonly<Row> | undefined> {
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
      const rows = (await runStatement(db, valuesOf(variants.get(size)!(db), padded), 'read')) as Row[];
      const byKey = new Map<K, Row>(frozenRows(rows, shape).map((row) => [keyOf(row), row]));
      for (const [key, waiters] of batch) {
        const row = byKey.get(key);
        for (const waiter of waiters) waiter.resolve(row);
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
