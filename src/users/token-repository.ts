import type { Knex } from 'knex';
import type { Db } from '../db/connect';
import { batchedLookup } from '../db/coalesced-reads';
import { fromSqlDateTime, sqlDateTimeToIso, toSqlDateTime } from '../db/sql-time';
import { type EmployeeRecord, addEmployeeNames, toEmployeeRecord } from '../employee-records/record';
import type { Role } from '../caller';

/** A token row joined with what authentication needs to know about its user. */
interface TokenPrincipal {
  tokenId: string;
  userId: number;
  username: string;
  role: Role;
  userDisabled: boolean;
  employeeId: number | null;
  employeeStatus: string | null;
  /** The employee's record, when asked for. */
  employee: EmployeeRecord | undefined;
  expiresAt: Date;
  revoked: boolean;
  lastUsedAt: Date | null;
}

export interface TokenSummary {
  id: string;
  name: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export async function insertToken(
  db: Db,
  token: { id: string; userId: number; name: string | null; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db('api_tokens').insert({
    id: token.id,
    user_id: token.userId,
    name: token.name,
    created_at: toSqlDateTime(token.createdAt),
    expires_at: toSqlDateTime(token.expiresAt),
  });
}

const principalColumns = [
  't.id as token_id',
  't.user_id as token_user_id',
  't.expires_at as token_expires_at',
  't.revoked_at as token_revoked_at',
  't.last_used_at as token_last_used_at',
  'u.username as user_username',
  'u.role as user_role',
  'u.disabled as user_disabled',
  'u.employee_id as user_employee_id',
  'e.status as employee_status',
];

function selectPrincipals(db: Db, tokenIds: string[]): Knex.QueryBuilder {
  return db('api_tokens as t')
    .join('users as u', 'u.id', 't.user_id')
    .leftJoin('employees as e', 'e.id', 'u.employee_id')
    .whereIn('t.id', tokenIds)
    .select(principalColumns);
}

// Authentication runs this on every request: a prepared statement, batched under load. The
// variant with the employee serves routes about the caller's own record (GET /employees/me) in
// one round trip.
const tokenIdOf = (row: Record<string, unknown>) => String(row.token_id);
const findPrincipal = batchedLookup(selectPrincipals, tokenIdOf);
const findPrincipalWithEmployee = batchedLookup(
  (db, tokenIds) => addEmployeeNames(selectPrincipals(db, tokenIds).select('e.*'), 'e'),
  tokenIdOf,
  toEmployeeRecord,
);

/**
 * One indexed lookup: the token, its user and the status of the user's employee; with
 * `withEmployee`, also the employee's whole record.
 */
export async function findTokenPrincipal(
  db: Db,
  tokenId: string,
  options: { withEmployee: boolean } = { withEmployee: false },
): Promise<TokenPrincipal | undefined> {
  const row = await (options.withEmployee ? findPrincipalWithEmployee : findPrincipal)(db, tokenId);
  if (!row) return undefined;
  const employeeId = row.user_employee_id === null ? null : Number(row.user_employee_id);
  return {
    tokenId: String(row.token_id),
    userId: Number(row.token_user_id),
    username: String(row.user_username),
    role: row.user_role as Role,
    userDisabled: Boolean(row.user_disabled),
    employeeId,
    employeeStatus: (row.employee_status as string | null) ?? null,
    employee: options.withEmployee && employeeId !== null ? toEmployeeRecord(row) : undefined,
    expiresAt: fromSqlDateTime(String(row.token_expires_at)),
    revoked: row.token_revoked_at !== null,
    lastUsedAt: row.token_last_used_at === null ? null : fromSqlDateTime(String(row.token_last_used_at)),
  };
}

/** A user's tokens, newest first; one page of them with `page`. */
export async function listTokensOfUser(db: Db, userId: number, page?: { offset: number; limit: number }): Promise<TokenSummary[]> {
  const query = db('api_tokens')
    .where({ user_id: userId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .select('id', 'name', 'created_at', 'expires_at', 'revoked_at', 'last_used_at');
  if (page) query.offset(page.offset).limit(page.limit);
  const rows: TokenSummary[] = await query;
  return rows.map(toTokenSummary);
}

/** One token and the user it belongs to; undefined for an unknown id. */
export async function findTokenSummary(db: Db, tokenId: string): Promise<(TokenSummary & { userId: number }) | undefined> {
  const row: (TokenSummary & { user_id: number }) | undefined = await db('api_tokens')
    .where({ id: tokenId })
    .first('id', 'user_id', 'name', 'created_at', 'expires_at', 'revoked_at', 'last_used_at');
  return row && { ...toTokenSummary(row), userId: Number(row.user_id) };
}

function toTokenSummary(row: TokenSummary): TokenSummary {
  return {
    id: row.id,
    name: row.name,
    created_at: sqlDateTimeToIso(row.created_at),
    expires_at: sqlDateTimeToIso(row.expires_at),
    revoked_at: row.revoked_at === null ? null : sqlDateTimeToIso(row.revoked_at),
    last_used_at: row.last_used_at === null ? null : sqlDateTimeToIso(row.last_used_at),
  };
}

export async function countTokensOfUser(db: Db, userId: number): Promise<number> {
  const row = await db('api_tokens').where({ user_id: userId }).count({ count: '*' }).first();
  return Number(row?.count ?? 0);
}

/** Revokes one token; false if there is no such token or it was already revoked. */
export async function revokeToken(db: Db, tokenId: string, now: Date): Promise<boolean> {
  const changed = await db('api_tokens')
    .where({ id: tokenId })
    .whereNull('revoked_at')
    .update({ revoked_at: toSqlDateTime(now) });
  return changed > 0;
}

export async function revokeTokensOfUser(db: Db, userId: number, now: Date): Promise<number> {
  return db('api_tokens')
    .where({ user_id: userId })
    .whereNull('revoked_at')
    .update({ revoked_at: toSqlDateTime(now) });
}

export async function touchToken(db: Db, tokenId: string, now: Date): Promise<void> {
  await db('api_tokens')
    .where({ id: tokenId })
    .update({ last_used_at: toSqlDateTime(now) });
}

/** The user a token belongs to; undefined for an unknown id. */
export async function findTokenOwner(db: Db, tokenId: string): Promise<number | undefined> {
  const row: { user_id: number } | undefined = await db('api_tokens').where({ id: tokenId }).first('user_id');
  return row && Number(row.user_id);
}
