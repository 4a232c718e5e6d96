import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import type { Role } from '../caller';

/**
 * What a username may be (hrm user create), and what sign-in accepts: nothing a collation could
 * read as another user's name (MariaDB's PAD SPACE takes "carol " for "carol").
 */
export const USERNAME_PATTERN = /^[A-Za-z0-9._@-]{1,100}$/;

export interface User {
  id: number;
  username: string;
  role: Role;
  employeeId: number | null;
  disabled: boolean;
}

interface UserRow {
  id: number;
  username: string;
  role: Role;
  employee_id: number | null;
  disabled: number | boolean;
}

export async function insertUser(
  db: Db,
  user: { username: string; role: Role; employeeId: number | null; passwordHash: string | null; now: Date },
): Promise<number> {
  const now = toSqlDateTime(user.now);
  const [id] = await db('users').insert({
    username: user.username,
    role: user.role,
    employee_id: user.employeeId,
    password_hash: user.passwordHash,
    disabled: false,
    created_at: now,
    updated_at: now,
  });
  return Number(id);
}

export async function findUserByUsername(db: Db, username: string): Promise<User | undefined> {
  const row: UserRow | undefined = await db('users').where({ username }).first('id', 'username', 'role', 'employee_id', 'disabled');
  return row && { id: row.id, username: row.username, role: row.role, employeeId: row.employee_id, disabled: Boolean(row.disabled) };
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db('users').count({ count: '*' }).first();
  return Number(row?.count ?? 0);
}

/** What signing in with a password needs to know about a user. */
export interface LoginUser extends User {
  passwordHash: string | null;
  employeeStatus: string | null;
}

export async function findLoginUser(db: Db, username: string): Promise<LoginUser | undefined> {
  const row: (UserRow & { password_hash: string | null; employee_status: string | null }) | undefined = await db('users as u')
    .leftJoin('employees as e', 'e.id', 'u.employee_id')
    .where('u.username', username)
    .first('u.id', 'u.username', 'u.role', 'u.employee_id', 'u.disabled', 'u.password_hash', 'e.status as employee_status');
  if (!row) return undefined;
  return {
    id: row.id,
    username: row.username,
    role: row.role,
    employeeId: row.employee_id,
    disabled: Boolean(row.disabled),
    passwordHash: row.password_hash,
    employeeStatus: row.employee_status,
  };
}

export async function setPasswordHash(db: Db, userId: number, passwordHash: string, now: Date): Promise<void> {
  await db('users')
    .where({ id: userId })
    .update({ password_hash: passwordHash, updated_at: toSqlDateTime(now) });
}

export async function setUserDisabled(db: Db, userId: number, disabled: boolean, now: Date): Promise<void> {
  await db('users')
    .where({ id: userId })
    .update({ disabled, updated_at: toSqlDateTime(now) });
}
