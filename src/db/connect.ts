import fs from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import type { DatabaseConfig } from '../config';

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
}

export function openDatabase(config: DatabaseConfig, options: OpenDatabaseOptions = {}): Db {
  return config.client === 'sqlite'
    ? openSqlite(config.filename, options.idleTimeoutMs)
    : openMysql(config.url, options.poolMax ?? 10, options.idleTimeoutMs);
}

export function dialectOf(db: Db): Dialect {
  return db.client.config.client === 'mysql2' ? 'mysql' : 'sqlite';
}

function openSqlite(filename: string, idleTimeoutMs: number | undefined): Db {
  if (filename !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
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
      afterCreate(connection: { pragma(sql: string): unknown }, done: (error: Error | null, connection: unknown) => void) {
        connection.pragma('journal_mode = WAL');
        connection.pragma('synchronous = NORMAL');
        connection.pragma('foreign_keys = ON');
        // No waiting inside SQLite: better-sqlite3 would wait synchronously, the whole process
        // with it (withBusyRetries waits between tries instead).
        connection.pragma('busy_timeout = 0');
        done(null, connection);
      },
    },
  });
  withImmediateTransactions(db);
  withBusyRetries(db, SQLITE_BUSY_WAIT_MS);
  return db;
}

/** How long a SQLite statement waits for another connection's write lock before failing (503). */
export const SQLITE_BUSY_WAIT_MS = 5000;

/**
 * Retries a SQLite statement that found the database locked (SQLITE_BUSY) after a short timer,
 * for up to `waitMs`, so that the event loop keeps serving other requests (health checks, reads
 * of other instances) while another process holds the write lock. SQLite's own busy_timeout
 * would sleep in the thread that runs JavaScript. A statement that failed with SQLITE_BUSY did
 * nothing, and every transaction here is IMMEDIATE, so BUSY comes from its BEGIN or from a
 * statement outside a transaction: trying it again is safe.
 */
function withBusyRetries(db: Db, waitMs: number): void {
  type Query = (connection: unknown, query: unknown) => Promise<unknown>;
  const client = db.client as { _query: Query };
  const query = client._query.bind(client);
  client._query = async (connection, statement) => {
    const deadline = Date.now() + waitMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await query(connection, statement);
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
        const pause = Math.min(2 ** attempt, 50, Math.max(1, deadline - Date.now()));
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  };
}

/**
 * Begins every SQLite transaction with BEGIN IMMEDIATE. Every transaction here writes (a write
 * runs whole in one, from its first read: src/idempotency/idempotent.ts), and a deferred one
 * that reads first fails with SQLITE_BUSY_SNAPSHOT, at once, when another process commits
 * between that read and its first write. IMMEDIATE takes the write lock at the start instead,
 * waiting for another process's write like any statement does. Knex has no setting for it, so
 * each new transaction's `begin` is replaced (nested ones use savepoints and never begin).
 */
function withImmediateTransactions(db: Db): void {
  type Transaction = { begin(connection: unknown): unknown; query(connection: unknown, sql: string): unknown };
  const client = db.client as { transaction(...args: unknown[]): Transaction };
  const transaction = client.transaction.bind(client);
  client.transaction = (...args) => {
    const trx = transaction(...args);
    trx.begin = (connection) => trx.query(connection, 'BEGIN IMMEDIATE;');
    return trx;
  };
}

function openMysql(url: string, poolMax: number, idleTimeoutMs: number | undefined): Db {
  const parsed = new URL(url);
  const db = knex({
    client: 'mysql2',
    connection: {
      host: parsed.hostname,
      port: parsed.port ? Number(parsed.port) : 3306,
      user: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password),
      database: decodeURIComponent(parsed.pathname.slice(1)),
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
      afterCreate(
        connection: { query(sql: string, callback: (error: Error | null) => void): void },
        done: (error: Error | null, connection: unknown) => void,
      ) {
        connection.query(MYSQL_SESSION_SQL, (error) => done(error, connection));
      },
    },
  });
  withDefaultQueryTimeout(db, QUERY_TIMEOUT_MS);
  return db;
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
  client.query = (connection, obj) => {
    if (obj !== null && typeof obj === 'object' && !(obj as { timeout?: number }).timeout) {
      (obj as { timeout?: number }).timeout = timeoutMs;
    }
    return query(connection, obj);
  };
}
