// The one place that recognises constraint violations in driver errors, for both dialects, so
// the database can enforce invariants and the error handler can answer 409 instead of 500.

interface DriverError {
  code?: unknown;
  errno?: unknown;
  message?: unknown;
  sqlMessage?: unknown;
}

interface UniqueViolation {
  /**
   * What the driver names: the index (MySQL, e.g. "employees_employee_id_unique") or the
   * columns (SQLite, e.g. "employees.employee_id" or "provinces.country_code, provinces.name").
   */
  key: string;
}

export function asUniqueViolation(error: unknown): UniqueViolation | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, sqlMessage } = error as DriverError;
  if (code === 'ER_DUP_ENTRY' && typeof sqlMessage === 'string') {
    // MariaDB: "... for key 'employees_employee_id_unique'"; MySQL 8: "... for key 'employees.employees_employee_id_unique'"
    const key = /for key '(?:[^'.]+\.)?([^']+)'/.exec(sqlMessage)?.[1];
    return { key: key ?? 'unknown' };
  }
  if ((code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') && typeof message === 'string') {
    // "UNIQUE constraint failed: employees.employee_id" or "...: index 'employees_employee_id_unique'"
    const key = /index '([^']+)'/.exec(message)?.[1] ?? /failed: (.+)$/.exec(message)?.[1];
    return { key: key ?? 'unknown' };
  }
  return undefined;
}

export function isForeignKeyViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code } = error as DriverError;
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === 'ER_NO_REFERENCED_ROW_2' || code === 'ER_ROW_IS_REFERENCED_2';
}

/**
 * A list query the server stopped at its statement time limit (src/db/statement-time.ts):
 * MariaDB's max_statement_time (1969, which mysql2 has no name for) or MySQL's
 * MAX_EXECUTION_TIME (3024, ER_QUERY_TIMEOUT).
 */
export function isStatementTimeout(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errno } = error as DriverError;
  return errno === 1969 || errno === 3024 || code === 'ER_QUERY_TIMEOUT' || code === 'ER_STATEMENT_TIMEOUT';
}

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  // A Galera node outside the primary component, or still joining: "WSREP has not yet prepared
  // node for application use" (1047). Another node may answer.
  'ER_UNKNOWN_COM_ERROR',
  // A certification conflict (or deadlock) that outlived its retries (src/db/retry-conflicts.ts).
  'ER_LOCK_DEADLOCK',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
]);

/** The database is unreachable or overloaded: a 503 the client may retry, not a bug. */
export function isUnavailableError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code } = error as DriverError;
  if (typeof code === 'string' && (CONNECTION_ERROR_CODES.has(code) || code.startsWith('SQLITE_BUSY'))) return true;
  // mysql2 marks errors that end the connection fatal; some carry no code ("Can't add new command
  // when connection is in closed state": a statement, or a transaction's ROLLBACK, sent on a
  // connection whose database server just died).
  if ((error as { fatal?: unknown }).fatal === true) return true;
  // Knex's pool gives up waiting for a connection with a KnexTimeoutError.
  return (error as Error).name === 'KnexTimeoutError';
}

/**
 * A transaction the database rolled back because it lost a race, which runs again safely: an
 * InnoDB deadlock, or on a Galera cluster a certification conflict with a write committed
 * through another node, both reported as 1213 at any statement or at commit.
 */
export function isConflictAbort(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errno } = error as DriverError;
  return code === 'ER_LOCK_DEADLOCK' || errno === 1213;
}

/** A Galera node that cannot serve (1047): nothing ran, so another node may take the transaction. */
export function isNodeNotReady(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errno } = error as DriverError;
  return code === 'ER_UNKNOWN_COM_ERROR' || errno === 1047;
}
