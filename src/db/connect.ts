import knex, { type Knex } from 'knex';
import { isNodeNotReady } from './constraint-errors';
import { HostSelector, isUsableNode, type MysqlHost, NODE_STATUS_SQL, parseMysqlUrl } from './mysql-hosts';
import { type ModeTightened, secureSqliteFile, secureSqliteSideFiles } from './sqlite-file';
import { limitListReads } from './statement-time';

export type DatabaseConfig =
  | { client: 'sqlite'; filename: string }
  | {
      client: 'mysql';
      /** One host, or several (a Galera cluster's nodes): mysql://user:pass@h1:3306,h2:3306/db */
      url: string;
      /** On a Galera node, reads wait for the writes committed anywhere before them (default on). */
      causalReads?: boolean;
    };

export type Db = Knex;
export type Dialect = 'sqlite' | 'mysql';

/**
 * Session settings that make MariaDB 10.11 and MySQL 8 behave alike and safely: UTC for every
 * DATETIME, strict mode (too-long or invalid values are errors, never silently truncated) and no
 * zero dates.
 */
const MYSQL_SESSION_SQL =
  "SET time_zone = '+00:00', sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'";

/** How long a query waits for a pool connection before failing (503) instead of hanging. */
const ACQUIRE_TIMEOUT_MS = 10_000;

/**
 * How long a MySQL query may run. A server that stops answering (a network partition) would
 * otherwise hold the query, and its pool connection, until TCP gives up many minutes later.
 */
export const QUERY_TIMEOUT_MS = 10_000;

export interface OpenDatabaseOptions {
  /** Most connections this process keeps to a MySQL server (default 10). */
  poolMax?: number;
  /**
   * Close connections unused for this long (cloud instances). Without it a SQLite database keeps
   * its one connection open, and MySQL connections close after Knex's default 30 s.
   */
  idleTimeoutMs?: number;
  /**
   * MySQL/MariaDB: the server stops a list read (asListRead) after this long, answered 503
   * `query_timeout` (LIST_QUERY_TIMEOUT_MS); 0 or unset: no limit. SQLite cannot (statement-time.ts).
   */
  listStatementTimeoutMs?: number;
  /** SQLite: hears of each file or folder found readable by others and tightened (a warning). */
  onModeTightened?: (change: ModeTightened) => void;
}

export function openDatabase(config: DatabaseConfig, options: OpenDatabaseOptions = {}): Db {
  return config.client === 'sqlite'
    ? openSqlite(config.filename, options.idleTimeoutMs, options.onModeTightened)
    : openMysql(config, options.poolMax ?? 10, options.idleTimeoutMs, options.listStatementTimeoutMs ?? 0);
}

export function dialectOf(db: Db): Dialect {
  return db.client.config.client === 'mysql2' ? 'mysql' : 'sqlite';
}

function openSqlite(filename: string, idleTimeoutMs: number | undefined, onModeTightened = (_change: ModeTightened) => {}): Db {
  const onDisk = filename !== ':memory:';
  if (onDisk) secureSqliteFile(filename).forEach(onModeTightened);
  const db = knex({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    // A failed query's message holds its SQL with placeholders, never the values (personal data).
    compileSqlOnError: false,
    acquireConnectionTimeout: ACQUIRE_TIMEOUT_MS,
    pool: {
      // better-sqlite3 is synchronous: one connection, writes serialised by SQLite itself.
      min: idleTimeoutMs === undefined ? 1 : 0,
      max: 1,
      ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMillis: idleTimeoutMs }),
      afterCreate(
        connection: { pragma(sql: string): unknown; prepare(sql: string): unknown },
        done: (error: Error | null, connection: unknown) => void,
      ) {
        reusePreparedStatements(connection);
        connection.pragma('journal_mode = WAL');
        connection.pragma('synchronous = NORMAL');
        connection.pragma('foreign_keys = ON');
        // No waiting inside SQLite: better-sqlite3 would wait synchronously, the whole process
        // with it (retryBusyStatements waits between tries instead).
        connection.pragma('busy_timeout = 0');
        try {
          if (onDisk) secureSqliteSideFiles(filename).forEach(onModeTightened);
        } catch (error) {
          return done(error as Error, connection);
        }
        done(null, connection);
      },
    },
  });
  retryBusyStatements(db.client as QueryingClient, SQLITE_BUSY_WAIT_MS);
  withImmediateTransactions(db, SQLITE_BUSY_WAIT_MS);
  return db;
}

/** Statements a SQLite connection keeps prepared, the most recently used. */
const KEPT_STATEMENTS = 500;

/**
 * Knex prepares every query's statement anew, and compiling it is a good part of a short query's
 * time: the connection keeps the statements it prepared by SQL text. A statement is never in use
 * twice at once: better-sqlite3 runs one at a time, to the end (nothing here iterates).
 */
function reusePreparedStatements(connection: { prepare(sql: string): unknown }): void {
  const prepare = connection.prepare.bind(connection);
  const kept = new Map<string, unknown>();
  connection.prepare = (sql: string) => {
    let statement = kept.get(sql);
    if (statement === undefined) {
      statement = prepare(sql);
      if (kept.size >= KEPT_STATEMENTS) kept.delete(kept.keys().next().value as string);
    } else {
      kept.delete(sql);
    }
    kept.set(sql, statement);
    return statement;
  };
}

/** How long a SQLite statement waits for another connection's write lock before failing (503). */
const SQLITE_BUSY_WAIT_MS = 5000;

/**
 * Retries a SQLite statement that found the database locked (SQLITE_BUSY) after a short timer,
 * for up to `waitMs`, so that the event loop keeps serving other requests (health checks, reads
 * of other instances) while another process holds the write lock. SQLite's own busy_timeout
 * would sleep in the thread that runs JavaScript. A statement that failed with SQLITE_BUSY did
 * nothing, and every transaction here is IMMEDIATE, so BUSY comes from its BEGIN or from a
 * statement outside a transaction: trying it again is safe. Knex runs a transaction's statements,
 * its BEGIN included, on a client of its own made from the class, not from `client`: each
 * transaction's client gets the retries too (withImmediateTransactions).
 */
function retryBusyStatements(client: QueryingClient, waitMs: number): void {
  const query = client._query.bind(client);
  client._query = async (connection, statement) => {
    const deadline = Date.now() + waitMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await query(connection, statement);
      } catch (error) {
        if (!isRetriableBusy(error) || Date.now() >= deadline) throw error;
        // Short pauses: another process's writes are short, and a waiter that sleeps long keeps
        // missing the moments the lock is free while that process takes it again and again.
        const pause = Math.min(2 ** attempt, 10, Math.max(1, deadline - Date.now()));
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  };
}

/** The Knex client method every statement goes through (Knex's own, not a public API). */
type QueryingClient = { _query(connection: unknown, query: unknown): Promise<unknown> };

/**
 * SQLITE_BUSY and its extended codes (SQLITE_BUSY_RECOVERY while another process recovers the
 * WAL after a crash, SQLITE_BUSY_TIMEOUT), but not SQLITE_BUSY_SNAPSHOT: that one needs its whole
 * transaction run again, not the statement.
 */
function isRetriableBusy(error: unknown): boolean {
  const { code } = error as { code?: unknown };
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY') && code !== 'SQLITE_BUSY_SNAPSHOT';
}

/**
 * Begins every SQLite transaction with BEGIN IMMEDIATE. Every transaction here writes (a write
 * runs whole in one, from its first read: src/idempotency/idempotent.ts), and a deferred one
 * that reads first fails with SQLITE_BUSY_SNAPSHOT, at once, when another process commits
 * between that read and its first write. IMMEDIATE takes the write lock at the start instead,
 * waiting for another process's write like any statement does. Knex has no setting for it, so
 * each new transaction's `begin` is replaced (nested ones use savepoints and never begin).
 */
function withImmediateTransactions(db: Db, busyWaitMs: number): void {
  type Transaction = { trxClient: QueryingClient; begin(connection: unknown): unknown; query(connection: unknown, sql: string): unknown };
  const client = db.client as { transaction(...args: unknown[]): Transaction };
  const transaction = client.transaction.bind(client);
  client.transaction = (...args) => {
    const trx = transaction(...args);
    trx.begin = (connection) => {
      // The transaction's own client exists by now: while another process writes, BEGIN
      // IMMEDIATE waits for the lock like any statement instead of failing at once (503).
      retryBusyStatements(trx.trxClient, busyWaitMs);
      return trx.query(connection, 'BEGIN IMMEDIATE;');
    };
    return trx;
  };
}

type RawConnection = { query(sql: string, callback: (error: Error | null, rows?: unknown) => void): void; destroy(): void };

function openMysql(
  config: Extract<DatabaseConfig, { client: 'mysql' }>,
  poolMax: number,
  idleTimeoutMs: number | undefined,
  listStatementTimeoutMs: number,
): Db {
  const url = parseMysqlUrl(config.url);
  const first = url.hosts[0] as MysqlHost;
  // Several hosts: the selector picks the node new connections go to (src/db/mysql-hosts.ts).
  const selector = url.hosts.length > 1 ? new HostSelector(url) : undefined;
  const causalReads = config.causalReads ?? true;
  const db = knex({
    client: 'mysql2',
    connection: {
      host: first.host,
      port: first.port,
      user: url.user,
      password: url.password,
      database: url.database,
      charset: 'utf8mb4',
      timezone: 'Z',
      // DATETIME and DATE come back as the strings stored, exactly as SQLite returns them.
      dateStrings: true,
      connectTimeout: 5000,
    },
    acquireConnectionTimeout: ACQUIRE_TIMEOUT_MS,
    compileSqlOnError: false,
    pool: {
      min: 0,
      max: poolMax,
      ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMillis: idleTimeoutMs }),
      afterCreate(connection: RawConnection, done: (error: Error | null, connection: unknown) => void) {
        prepareSession(connection, causalReads).then(
          () => done(null, connection),
          (error: Error) => done(error, connection),
        );
      },
      // A connection to a host other than the preferred one is dropped when next lent out: the
      // pool moves away from a node that left the cluster, and back once an earlier one is synced.
      ...(selector ? { validate: (connection: { hrmHostIndex?: number }) => connection.hrmHostIndex === selector.preferred() } : {}),
    },
  });
  withDefaultQueryTimeout(db, QUERY_TIMEOUT_MS);
  // After the default timeout: a list read's own, longer one is set first.
  if (listStatementTimeoutMs > 0) limitListReads(db, listStatementTimeoutMs, QUERY_TIMEOUT_MS);
  if (selector) withHostFailover(db, selector);
  return db;
}

/**
 * UTC, strict mode and, on a Galera node, causal reads: `wsrep_sync_wait = 3` makes each read,
 * UPDATE and DELETE wait until the node has applied every write the cluster committed before it
 * began, so a token revoked or a record written through one node is seen through any other in the
 * next request. UPDATE is included because an attendance write's first statement is an UPDATE of
 * the employee's row (src/attendance/repository.ts): run before the node applied the employee's
 * creation, it would change no row and leave the row out of the write set.
 *
 * The session also learns whether its server certifies writes against other primaries (a Galera
 * node, a Group Replication member): only there do row locks fail to order two writes, and
 * writes that rely on them write the row instead (certifiesWrites). The question goes to the
 * server the connection reached, so a cluster behind a load balancer answers it too.
 */
async function prepareSession(connection: RawConnection & SessionFacts, causalReads: boolean): Promise<void> {
  const query = (sql: string) =>
    new Promise<unknown>((resolve, reject) => connection.query(sql, (error, rows) => (error ? reject(error) : resolve(rows))));
  await query(MYSQL_SESSION_SQL);
  const rows = (await query(CLUSTER_VARIABLES_SQL)) as Array<{ Variable_name: string; Value: string }>;
  const variables = new Map(rows.map((row) => [row.Variable_name.toLowerCase(), row.Value]));
  const galera = variables.get('wsrep_on') === 'ON';
  connection.hrmCertifiesWrites = galera || Boolean(variables.get('group_replication_group_name'));
  if (galera && causalReads) await query('SET SESSION wsrep_sync_wait = 3');
}

const CLUSTER_VARIABLES_SQL = "SHOW VARIABLES WHERE Variable_name IN ('wsrep_on', 'group_replication_group_name')";

/** What prepareSession learnt about a MySQL connection's server. */
interface SessionFacts {
  hrmCertifiesWrites?: boolean;
}

/**
 * Whether the transaction `trx` runs on a server that certifies writes against other primaries
 * (Galera, Group Replication): there a row lock taken on one node does not stop a write through
 * another, and only rows written are compared at commit. Never on SQLite.
 */
export async function certifiesWrites(trx: Db): Promise<boolean> {
  if (dialectOf(trx) !== 'mysql') return false;
  const client = trx.client as { acquireConnection(): Promise<SessionFacts>; releaseConnection(connection: unknown): Promise<unknown> };
  // The transaction's own connection; releasing it leaves it to the transaction.
  const connection = await client.acquireConnection();
  await client.releaseConnection(connection);
  return connection.hrmCertifiesWrites === true;
}

/**
 * Opens each new connection on the first usable host (src/db/mysql-hosts.ts): a host that
 * refuses, times out or is not a synced member of the primary component is skipped and marked,
 * and the health check marks it usable again. Knex reads its connection settings when it
 * connects, so the host is set on them just before each attempt.
 */
function withHostFailover(db: Db, selector: HostSelector): void {
  type Client = { connectionSettings: Record<string, unknown>; acquireRawConnection(): Promise<RawConnection & { hrmHostIndex?: number }> };
  const client = db.client as Client;
  const connect = client.acquireRawConnection.bind(client);
  client.acquireRawConnection = async () => {
    let lastError: unknown;
    for (const index of selector.candidates()) {
      const host = selector.hosts[index] as MysqlHost;
      client.connectionSettings = { ...client.connectionSettings, host: host.host, port: host.port };
      let connection: (RawConnection & { hrmHostIndex?: number }) | undefined;
      try {
        connection = await connect();
        const rows = await new Promise<unknown>((resolve, reject) =>
          connection?.query(NODE_STATUS_SQL, (error, result) => (error ? reject(error) : resolve(result))),
        );
        if (isUsableNode(rows as Array<{ Variable_name: string; Value: string }>)) {
          selector.mark(index, true);
          connection.hrmHostIndex = index;
          return connection;
        }
        lastError = Object.assign(new Error(`${host.host}:${host.port} is not a synced cluster member`), { code: 'ER_SERVER_SHUTDOWN' });
        connection.destroy();
      } catch (error) {
        lastError = error;
        connection?.destroy();
      }
      selector.mark(index, false);
    }
    throw lastError;
  };
  selector.start();
  // db.destroy() ends here (Knex's own function is read-only).
  const clientWithDestroy = db.client as { destroy(...args: unknown[]): unknown };
  const destroy = clientWithDestroy.destroy.bind(clientWithDestroy);
  clientWithDestroy.destroy = (...args) => {
    selector.stop();
    return destroy(...args);
  };
}

/**
 * Gives every query Knex's own `.timeout()` unless it has one: on expiry the query fails
 * (KnexTimeoutError, answered 503) and Knex marks its connection disposed, so the pool drops it
 * instead of lending out a connection still waiting for an answer. Knex has no setting for a
 * default, so its client's query method is wrapped; the runner reads `timeout` right after.
 */
function withDefaultQueryTimeout(db: Db, timeoutMs: number): void {
  const client = db.client as { query(connection: unknown, query: unknown): Promise<unknown> };
  const query = client.query.bind(client);
  client.query = async (connection, obj) => {
    if (obj !== null && typeof obj === 'object' && !(obj as { timeout?: number }).timeout) {
      (obj as { timeout?: number }).timeout = timeoutMs;
    }
    try {
      return await query(connection, obj);
    } catch (error) {
      // A Galera node that left the primary component still answers, with 1047 to every
      // statement: the pool must not lend this connection again.
      if (isNodeNotReady(error)) (connection as { __knex__disposed?: unknown }).__knex__disposed = error;
      throw error;
    }
  };
}
