import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import type { Role } from './caller';

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
