import type { Db } from '../db/connect';
import { fromSqlDateTime, sqlDateTimeToIso, toSqlDateTime } from '../db/sql-time';
import type { Role } from './caller';

/** A token row joined with what authentication needs to know about its user. */
export interface TokenPrincipal {
  tokenId: string;
  userId: number;
  username: string;
  role: Role;
  userDisabled: boolean;
  employeeId: number | null;
  employeeStatus: string | null;
  expiresAt: Date;
  revoked: boolean;
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

interface PrincipalRow {
  id: string;
  user_id: number;
  expires_at: string;
  revoked_at: string | null;
  username: string;
  role: Role;
  disabled: number | boolean;
  employee_id: number | null;
  employee_status: string | null;
}

/** One indexed lookup: the token, its user and the status of the user's employee. */
export async function findTokenPrincipal(db: Db, tokenId: string): Promise<TokenPrincipal | undefined> {
  const row: PrincipalRow | undefined = await db('api_tokens as t')
    .join('users as u', 'u.id', 't.user_id')
    .leftJoin('employees as e', 'e.id', 'u.employee_id')
    .where('t.id', tokenId)
    .first(
      't.id',
      't.user_id',
      't.expires_at',
      't.revoked_at',
      'u.username',
      'u.role',
      'u.disabled',
      'u.employee_id',
      'e.status as employee_status',
    );
  if (!row) return undefined;
  return {
    tokenId: row.id,
    userId: row.user_id,
    username: row.username,
    role: row.role,
    userDisabled: Boolean(row.disabled),
    employeeId: row.employee_id,
    employeeStatus: row.employee_status,
    expiresAt: fromSqlDateTime(row.expires_at),
    revoked: row.revoked_at !== null,
  };
}

export async function listTokensOfUser(db: Db, userId: number): Promise<TokenSummary[]> {
  const rows: Array<Omit<TokenSummary, 'id'> & { id: string }> = await db('api_tokens')
    .where({ user_id: userId })
    .orderBy('created_at', 'desc')
    .select('id', 'name', 'created_at', 'expires_at', 'revoked_at', 'last_used_at');
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    created_at: sqlDateTimeToIso(row.created_at),
    expires_at: sqlDateTimeToIso(row.expires_at),
    revoked_at: row.revoked_at === null ? null : sqlDateTimeToIso(row.revoked_at),
    last_used_at: row.last_used_at === null ? null : sqlDateTimeToIso(row.last_used_at),
  }));
}

/** Revokes one token; false if there is no such token or it was already revoked. */
export async function revokeToken(db: Db, tokenId: string, now: Date): Promise<boolean> {
  const changed = await db('api_tokens').where({ id: tokenId }).whereNull('revoked_at').update({ revoked_at: toSqlDateTime(now) });
  return changed > 0;
}

export async function revokeTokensOfUser(db: Db, userId: number, now: Date): Promise<number> {
  return db('api_tokens').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: toSqlDateTime(now) });
}
