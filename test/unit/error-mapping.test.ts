import Database from 'better-sqlite3';
import { AppError, NotFoundError, UnauthorizedError } from '../../src/errors';
import { toAppError as mapError } from '../../src/http/error-handler';

const toAppError = (error: unknown) => mapError(error, { bodyLimitBytes: 102400 });

function sqliteError(sql: string): unknown {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE employees (id INTEGER PRIMARY KEY, employee_id TEXT UNIQUE, parent INTEGER REFERENCES employees(id))');
  db.exec('PRAGMA foreign_keys = ON');
  db.exec("INSERT INTO employees (id, employee_id) VALUES (1, 'E1')");
  try {
    db.exec(sql);
  } catch (error) {
    return error;
  } finally {
    db.close();
  }
  throw new Error('expected the statement to fail');
}

describe('toAppError', () => {
  it('keeps AppErrors as they are', () => {
    const error = new NotFoundError({ detail: 'No such employee' });

    expect(toAppError(error)).toBe(error);
  });

  it('maps a SQLite unique violation of employee_id to 409 duplicate naming the field', () => {
    const mapped = toAppError(sqliteError("INSERT INTO employees (employee_id) VALUES ('E1')"));

    expect(mapped).toMatchObject({ status: 409, code: 'duplicate', errors: [{ field: 'employee_id', message: 'is already in use' }] });
  });

  it.each([
    ["Duplicate entry 'E1' for key 'employees_employee_id_unique'"],
    ["Duplicate entry 'E1' for key 'employees.employees_employee_id_unique'"],
  ])('maps the MariaDB and MySQL 8 duplicate-key error %j to 409 duplicate', (sqlMessage) => {
    expect(toAppError({ code: 'ER_DUP_ENTRY', errno: 1062, sqlMessage })).toMatchObject({ status: 409, code: 'duplicate' });
  });

  it('leaves a unique violation of an index no client can cause as an unexpected error', () => {
    expect(toAppError({ code: 'ER_DUP_ENTRY', sqlMessage: "Duplicate entry '1' for key 'PRIMARY'" })).toBeUndefined();
  });

  it('maps foreign key violations to 409', () => {
    expect(toAppError(sqliteError("INSERT INTO employees (employee_id, parent) VALUES ('E2', 99)"))).toMatchObject({
      status: 409,
      code: 'conflict',
    });
    expect(toAppError({ code: 'ER_ROW_IS_REFERENCED_2' })).toMatchObject({ status: 409 });
  });

  it.each([
    { code: 'ECONNREFUSED' },
    { code: 'PROTOCOL_CONNECTION_LOST' },
    Object.assign(new Error('pool'), { name: 'KnexTimeoutError' }),
    // A Galera node outside the primary component, a conflict that outlived its retries, and a
    // statement sent on a connection whose server just died (mysql2: fatal, no code).
    { code: 'ER_UNKNOWN_COM_ERROR', errno: 1047 },
    { code: 'ER_LOCK_DEADLOCK', errno: 1213 },
    Object.assign(new Error("ROLLBACK - Can't add new command when connection is in closed state"), { fatal: true }),
  ])('maps an unreachable database (%j) to 503 with Retry-After', (error) => {
    expect(toAppError(error)).toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'Retry-After': '5' } });
  });

  it.each([
    // MariaDB's max_statement_time (mysql2 has no name for 1969) and MySQL's MAX_EXECUTION_TIME.
    { errno: 1969, sqlState: '70100', sqlMessage: 'Query execution was interrupted (max_statement_time exceeded)' },
    { code: 'ER_QUERY_TIMEOUT', errno: 3024, sqlMessage: 'Query execution was interrupted, maximum statement execution time exceeded' },
  ])('maps a list query stopped at its time limit (%j) to 503 query_timeout with Retry-After', (error) => {
    expect(toAppError(error)).toMatchObject({ status: 503, code: 'query_timeout', headers: { 'Retry-After': '5' } });
  });

  it.each([
    [{ type: 'entity.parse.failed', status: 400 }, 400, 'malformed_json'],
    [{ type: 'entity.too.large', status: 413 }, 413, 'payload_too_large'],
    [{ type: 'charset.unsupported', status: 415 }, 415, 'unsupported_media_type'],
    [{ type: 'request.size.invalid', status: 400 }, 400, 'bad_request'],
    [Object.assign(new URIError("Failed to decode param '%E0%A4%A'"), { status: 400 }), 400, 'bad_request'],
  ])('maps the request-reading error %j to %i %s', (error, status, code) => {
    expect(toAppError(error)).toMatchObject({ status, code });
  });

  it('says how large a body may be', () => {
    expect(toAppError({ type: 'entity.too.large' })?.detail).toBe('The body may be at most 102400 bytes');
  });

  it('returns undefined for anything else, which the handler answers with a generic 500', () => {
    expect(toAppError(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBeUndefined();
    expect(toAppError(sqliteError('SELECT nope FROM employees'))).toBeUndefined();
    expect(toAppError('a string')).toBeUndefined();
  });
});

describe('UnauthorizedError', () => {
  it('challenges with the realm, adding error="invalid_token" only when a token was sent', () => {
    const missing = new UnauthorizedError({ realm: 'acme', tokenSent: false });
    const invalid = new UnauthorizedError({ realm: 'hrm', tokenSent: true, detail: 'The token has expired' });

    expect(missing).toBeInstanceOf(AppError);
    expect(missing).toMatchObject({ status: 401, code: 'unauthorized', headers: { 'WWW-Authenticate': 'Bearer realm="acme"' } });
    expect(invalid).toMatchObject({
      status: 401,
      code: 'invalid_token',
      detail: 'The token has expired',
      headers: { 'WWW-Authenticate': 'Bearer realm="hrm", error="invalid_token"' },
    });
  });
});
