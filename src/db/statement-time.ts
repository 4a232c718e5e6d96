import type { Knex } from 'knex';

/** What a list read carries in its Knex query context. */
interface ListReadContext {
  hrmListRead?: boolean;
}

/**
 * Marks `builder` as a list read: on MySQL/MariaDB, a database opened with a list statement time
 * limit (LIST_QUERY_TIMEOUT_MS, limitListReads) stops it there, and the error handler answers 503
 * `query_timeout`. For the lists whose cost grows with the table (a sort without an index, a
 * search, their counts); SQLite cannot stop a statement (docs/decisions.md, "One caller cannot
 * starve the others").
 */
export function asListRead<T extends Knex.QueryBuilder>(builder: T): T {
  const context = (builder.queryContext() ?? {}) as ListReadContext;
  return builder.queryContext({ ...context, hrmListRead: true }) as T;
}

/**
 * The SQL of a list read, stopped by the server after `limitMs`: MariaDB's `SET STATEMENT
 * max_statement_time=<seconds> FOR`, in a comment only MariaDB (10.1.2 and later) executes, and
 * MySQL's `MAX_EXECUTION_TIME(<ms>)` hint after the first SELECT, which MariaDB (before 12)
 * reads as a comment. One text for both, so the connection need not know which server it has.
 */
export function limitedListSql(sql: string, limitMs: number): string {
  if (!/^\s*select\b/i.test(sql)) return sql;
  const hinted = sql.replace(/^\s*select\b/i, `select /*+ MAX_EXECUTION_TIME(${limitMs}) */`);
  return `/*M!100102 SET STATEMENT max_statement_time=${(limitMs / 1000).toFixed(3)} FOR */ ${hinted}`;
}

/** Per Knex client (shared by its transactions): the list statement limit limitListReads set. */
const listReadLimits = new WeakMap<object, { limitMs: number; timeoutMs: number }>();

/**
 * The list statement limit of `db` (limitListReads) and the client timeout that goes with it, for
 * list reads sent past Knex (src/db/coalesced-reads.ts); undefined when list reads have no limit.
 */
export function listReadLimitOf(db: Knex): { limitMs: number; timeoutMs: number } | undefined {
  return listReadLimits.get(db.client as object);
}

/**
 * Runs every list read (asListRead) of `db`, a MySQL/MariaDB pool, under a statement time limit of
 * `limitMs`. Its Knex timeout (the client giving up on the server, QUERY_TIMEOUT_MS in connect.ts)
 * is made to fall after the server's limit, so that the server stops the statement (and frees
 * its connection) rather than the client abandoning a query still running. Knex has no hook for
 * it, so its client's query method is wrapped, as for the default timeout.
 */
export function limitListReads(db: Knex, limitMs: number, clientTimeoutMs: number): void {
  const client = db.client as { query(connection: unknown, query: unknown): Promise<unknown> };
  const query = client.query.bind(client);
  const timeoutMs = Math.max(clientTimeoutMs, limitMs + 1000);
  listReadLimits.set(db.client as object, { limitMs, timeoutMs });
  client.query = (connection, obj) => {
    if (obj !== null && typeof obj === 'object') {
      const statement = obj as { sql?: unknown; timeout?: number; queryContext?: ListReadContext };
      if (statement.queryContext?.hrmListRead && typeof statement.sql === 'string') {
        statement.sql = limitedListSql(statement.sql, limitMs);
        if (!statement.timeout) statement.timeout = timeoutMs;
      }
    }
    return query(connection, obj);
  };
}
