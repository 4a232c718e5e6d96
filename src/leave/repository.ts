import type { Knex } from 'knex';
import type { Caller } from '../caller';
import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import { whereVisible } from '../employees/access';
import type { Portion } from '../leave-rules/hours';

// The rows of leave_types, leaves and leave_days (migration 0029): plain objects, booleans and
// dates mapped here, nothing of HTTP.

export interface LeaveType {
  id: number;
  name: string;
  paid: boolean;
  code: string | null;
  private: boolean;
  include_holidays: boolean;
}

export type LeaveTypeColumns = Omit<LeaveType, 'id'>;

export type LeaveStatus = 'pending' | 'approved' | 'rejected' | 'cancelled';

/** Pending and approved leaves hold their dates; rejected and cancelled ones release them. */
export const LIVE_STATUSES: readonly LeaveStatus[] = ['pending', 'approved'];

export interface StoredLeaveDay {
  date: string;
  portion: Portion;
  hours: number | null;
}

export interface Leave {
  id: number;
  employee_id: number;
  employee_display: string;
  supervisor_id: number | null;
  leave_type_id: number;
  leave_type_name: string;
  start_date: string;
  end_date: string;
  status: LeaveStatus;
  note: string | null;
  decided_by: number | null;
  decided_by_display: string | null;
  decided_at: string | null;
  created_at: string;
  updated_at: string;
  days: StoredLeaveDay[];
}

const asDate = (value: unknown) => String(value).slice(0, 10);
const asBoolean = (value: unknown) => value === true || Number(value) === 1;

function toLeaveType(row: Record<string, unknown>): LeaveType {
  return {
    id: Number(row.id),
    name: String(row.name),
    paid: asBoolean(row.paid),
    code: row.code == null ? null : String(row.code),
    private: asBoolean(row.private),
    include_holidays: asBoolean(row.include_holidays),
  };
}

const TYPE_COLUMNS = ['id', 'name', 'paid', 'code', 'private', 'include_holidays'];

export async function findLeaveType(db: Db, id: number): Promise<LeaveType | undefined> {
  const row = (await db('leave_types').where({ id }).first(TYPE_COLUMNS)) as Record<string, unknown> | undefined;
  return row && toLeaveType(row);
}

export async function listLeaveTypes(db: Db, offset: number, limit: number): Promise<{ rows: LeaveType[]; total: number }> {
  const [rows, counted] = await Promise.all([
    db('leave_types').orderBy('id').offset(offset).limit(limit).select(TYPE_COLUMNS) as Promise<Array<Record<string, unknown>>>,
    db('leave_types').count({ n: '*' }).first() as Promise<{ n: number | string } | undefined>,
  ]);
  return { rows: rows.map(toLeaveType), total: Number(counted?.n ?? 0) };
}

export async function insertLeaveType(db: Db, columns: LeaveTypeColumns, now: Date): Promise<number> {
  const at = toSqlDateTime(now);
  const [id] = await db('leave_types').insert({ ...columns, created_at: at, updated_at: at });
  return Number(id);
}

export async function updateLeaveType(db: Db, id: number, columns: LeaveTypeColumns, now: Date): Promise<void> {
  await db('leave_types')
    .where({ id })
    .update({ ...columns, updated_at: toSqlDateTime(now) });
}

export async function deleteLeaveType(db: Db, id: number): Promise<void> {
  await db('leave_types').where({ id }).delete();
}

export async function isLeaveTypeUsed(db: Db, id: number): Promise<boolean> {
  return (await db('leaves').where({ leave_type_id: id }).first('id')) !== undefined;
}

/** The employees holding approved leave of the type (the live days of it). */
export async function employeesWithApprovedLeaveOf(db: Db, typeId: number): Promise<number[]> {
  const rows = (await db('leave_days as d')
    .join('leaves as l', 'l.id', 'd.leave_id')
    .where('l.leave_type_id', typeId)
    .where('l.status', 'approved')
    .whereNotNull('d.live_employee_id')
    .distinct('d.live_employee_id as id')) as Array<{ id: number | string }>;
  return rows.map((row) => Number(row.id));
}

/** The part of an employee the leave rules and access look at. */
export interface LeaveEmployee {
  id: number;
  supervisor_id: number | null;
  country: string | null;
  display: string;
}

function toLeaveEmployee(row: Record<string, unknown>): LeaveEmployee {
  return {
    id: Number(row.id),
    supervisor_id: row.supervisor_id == null ? null : Number(row.supervisor_id),
    country: row.country_code == null ? null : String(row.country_code),
    display: `${String(row.first_name)} ${String(row.last_name)}`,
  };
}

const EMPLOYEE_COLUMNS = ['id', 'supervisor_id', 'country_code', 'first_name', 'last_name'];

export async function findLeaveEmployee(db: Db, id: number): Promise<LeaveEmployee | undefined> {
  const row = (await db('employees').where({ id }).first(EMPLOYEE_COLUMNS)) as Record<string, unknown> | undefined;
  return row && toLeaveEmployee(row);
}

/**
 * Reads the employee and locks their row until the transaction ends, as the first statement of
 * a leave write: the period guard's read after it sees any lock that committed before (a lock
 * writes every employee's row first, src/period-guard/guard.ts).
 */
export async function lockLeaveEmployee(trx: Db, id: number): Promise<LeaveEmployee | undefined> {
  const row = (await trx('employees').where({ id }).forUpdate().first(EMPLOYEE_COLUMNS)) as Record<string, unknown> | undefined;
  return row && toLeaveEmployee(row);
}

const LEAVE_COLUMNS = [
  'l.id',
  'l.employee_id',
  'e.first_name',
  'e.last_name',
  'e.supervisor_id',
  'l.leave_type_id',
  't.name as leave_type_name',
  'l.start_date',
  'l.end_date',
  'l.status',
  'l.note',
  'l.decided_by',
  'u.username as decided_by_username',
  'l.decided_at',
  'l.created_at',
  'l.updated_at',
];

function leavesQuery(db: Db): Knex.QueryBuilder {
  return db('leaves as l')
    .join('employees as e', 'e.id', 'l.employee_id')
    .join('leave_types as t', 't.id', 'l.leave_type_id')
    .leftJoin('users as u', 'u.id', 'l.decided_by');
}

function toLeave(row: Record<string, unknown>, days: StoredLeaveDay[]): Leave {
  return {
    id: Number(row.id),
    employee_id: Number(row.employee_id),
    employee_display: `${String(row.first_name)} ${String(row.last_name)}`,
    supervisor_id: row.supervisor_id == null ? null : Number(row.supervisor_id),
    leave_type_id: Number(row.leave_type_id),
    leave_type_name: String(row.leave_type_name),
    start_date: asDate(row.start_date),
    end_date: asDate(row.end_date),
    status: String(row.status) as LeaveStatus,
    note: row.note == null ? null : String(row.note),
    decided_by: row.decided_by == null ? null : Number(row.decided_by),
    decided_by_display: row.decided_by_username == null ? null : String(row.decided_by_username),
    decided_at: row.decided_at == null ? null : String(row.decided_at),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
    days,
  };
}

async function daysOf(db: Db, leaveIds: readonly number[]): Promise<Map<number, StoredLeaveDay[]>> {
  const days = new Map<number, StoredLeaveDay[]>();
  if (leaveIds.length === 0) return days;
  const rows = (await db('leave_days')
    .whereIn('leave_id', [...leaveIds])
    .orderBy([{ column: 'leave_id' }, { column: 'date' }])
    .select('leave_id', 'date', 'portion', 'hours')) as Array<Record<string, unknown>>;
  for (const row of rows) {
    const id = Number(row.leave_id);
    if (!days.has(id)) days.set(id, []);
    days
      .get(id)!
      .push({ date: asDate(row.date), portion: String(row.portion) as Portion, hours: row.hours == null ? null : Number(row.hours) });
  }
  return days;
}

export async function findLeave(db: Db, id: number, options: { forUpdate?: boolean } = {}): Promise<Leave | undefined> {
  let query = leavesQuery(db).where('l.id', id);
  if (options.forUpdate) query = query.forUpdate();
  const row = (await query.first(LEAVE_COLUMNS)) as Record<string, unknown> | undefined;
  if (!row) return undefined;
  return toLeave(row, (await daysOf(db, [id])).get(id) ?? []);
}

/** The employee a leave belongs to, for locking them before the leave's write. */
export async function findLeaveEmployeeId(db: Db, id: number): Promise<number | undefined> {
  const row = (await db('leaves').where({ id }).first('employee_id')) as { employee_id: number } | undefined;
  return row && Number(row.employee_id);
}

export interface LeaveCriteria {
  employeeId?: number;
  from?: string;
  to?: string;
  status?: LeaveStatus;
  /** Leaves of the employees this caller may see. */
  visibleTo?: Caller;
}

/** A page of leaves overlapping [from, to], oldest start first. */
export async function listLeaves(
  db: Db,
  criteria: LeaveCriteria,
  offset: number,
  limit: number,
): Promise<{ rows: Leave[]; total: number }> {
  const matching = () => {
    let query = leavesQuery(db);
    if (criteria.visibleTo) query = whereVisible(query, criteria.visibleTo, 'e');
    if (criteria.employeeId !== undefined) query = query.where('l.employee_id', criteria.employeeId);
    if (criteria.from !== undefined) query = query.where('l.end_date', '>=', criteria.from);
    if (criteria.to !== undefined) query = query.where('l.start_date', '<=', criteria.to);
    if (criteria.status !== undefined) query = query.where('l.status', criteria.status);
    return query;
  };
  const [rows, counted] = await Promise.all([
    matching()
      .orderBy([{ column: 'l.start_date' }, { column: 'l.id' }])
      .offset(offset)
      .limit(limit)
      .select(LEAVE_COLUMNS) as Promise<Array<Record<string, unknown>>>,
    matching().count({ n: '*' }).first() as Promise<{ n: number | string } | undefined>,
  ]);
  const days = await daysOf(
    db,
    rows.map((row) => Number(row.id)),
  );
  return { rows: rows.map((row) => toLeave(row, days.get(Number(row.id)) ?? [])), total: Number(counted?.n ?? 0) };
}

export interface LeaveColumns {
  employee_id: number;
  leave_type_id: number;
  start_date: string;
  end_date: string;
  status: LeaveStatus;
  note: string | null;
  decided_by: number | null;
  decided_at: string | null;
}

/**
 * Inserts a leave and its days. The days of a live leave carry the employee in
 * live_employee_id: a date another live leave of theirs holds fails the unique key (leaveOverlap).
 */
export async function insertLeave(trx: Db, columns: LeaveColumns, days: readonly StoredLeaveDay[], now: Date): Promise<number> {
  const at = toSqlDateTime(now);
  const [id] = await trx('leaves').insert({ ...columns, version: 1, created_at: at, updated_at: at });
  const live = LIVE_STATUSES.includes(columns.status) ? columns.employee_id : null;
  for (let start = 0; start < days.length; start += 200) {
    await trx('leave_days').insert(days.slice(start, start + 200).map((day) => ({ leave_id: Number(id), ...day, live_employee_id: live })));
  }
  return Number(id);
}

/** A new status (and who decided it); a status that is not live releases the leave's dates. */
export async function updateLeaveStatus(
  trx: Db,
  id: number,
  change: { status: LeaveStatus; decided_by?: number | null; decided_at?: string | null },
  now: Date,
): Promise<void> {
  await trx('leaves')
    .where({ id })
    .update({ ...change, version: trx.raw('version + 1'), updated_at: toSqlDateTime(now) });
  if (!LIVE_STATUSES.includes(change.status)) await trx('leave_days').where({ leave_id: id }).update({ live_employee_id: null });
}

/** A leave's type, range and note, and its days anew (the employee in live_employee_id while live). */
export async function replaceLeaveDays(
  trx: Db,
  id: number,
  columns: { leave_type_id: number; start_date: string; end_date: string; note: string | null },
  days: readonly StoredLeaveDay[],
  liveEmployeeId: number,
  now: Date,
): Promise<void> {
  await trx('leaves')
    .where({ id })
    .update({ ...columns, version: trx.raw('version + 1'), updated_at: toSqlDateTime(now) });
  await trx('leave_days').where({ leave_id: id }).delete();
  for (let start = 0; start < days.length; start += 200) {
    await trx('leave_days').insert(
      days.slice(start, start + 200).map((day) => ({ leave_id: id, ...day, live_employee_id: liveEmployeeId })),
    );
  }
}

/** Deletes a leave (its days go with it) and keeps its tombstone for GET /leaves/deleted. */
export async function deleteLeave(trx: Db, leave: Pick<Leave, 'id' | 'employee_id' | 'supervisor_id'>, now: Date): Promise<void> {
  await trx('deleted_leaves').insert({
    leave_id: leave.id,
    employee_id: leave.employee_id,
    supervisor_id: leave.supervisor_id,
    deleted_at: toSqlDateTime(now),
  });
  await trx('leave_days').where({ leave_id: leave.id }).delete();
  await trx('leaves').where({ id: leave.id }).delete();
}
