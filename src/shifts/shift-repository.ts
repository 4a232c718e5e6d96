import type { Knex } from 'knex';
import type { Caller } from '../caller';
import type { Db } from '../db/connect';
import { fromSqlDateTime, toSqlDateTime } from '../db/sql-time';
import type { Shift, ShiftColumns, ShiftStatus } from './shift-model';

// shifts (migration 0031), read with their employee's display name and supervisor and their
// type's name. Booleans and decimals are mapped here (MariaDB answers 0/1 and text).

const SELECTED = [
  's.*',
  'e.first_name as employee_first_name',
  'e.last_name as employee_last_name',
  'e.supervisor_id as supervisor_id',
  'st.name as shift_type_name',
];

function shiftsQuery(db: Db): Knex.QueryBuilder {
  return db('shifts as s').leftJoin('employees as e', 'e.id', 's.employee_id').leftJoin('shift_types as st', 'st.id', 's.shift_type_id');
}

const hoursOf = (value: unknown) => (value === null || value === undefined ? null : Number(value));
const idOf = (value: unknown) => (value === null || value === undefined ? null : Number(value));

export function toShift(row: Record<string, unknown>): Shift {
  return {
    id: Number(row.id),
    employee_id: idOf(row.employee_id),
    shift_type_id: idOf(row.shift_type_id),
    date: String(row.date).slice(0, 10),
    start_local: String(row.start_local),
    end_local: String(row.end_local),
    timezone: String(row.timezone),
    start_utc: String(row.start_utc).slice(0, 19),
    end_utc: String(row.end_utc).slice(0, 19),
    unpaid_break_minutes: Number(row.unpaid_break_minutes),
    late_grace_minutes: Number(row.late_grace_minutes),
    early_exit_grace_minutes: Number(row.early_exit_grace_minutes),
    check_in_window_minutes: Number(row.check_in_window_minutes),
    check_out_window_minutes: Number(row.check_out_window_minutes),
    half_day_below_hours: hoursOf(row.half_day_below_hours),
    absent_below_hours: hoursOf(row.absent_below_hours),
    status: String(row.status) as ShiftStatus,
    rotation_id: idOf(row.rotation_id),
    edited: row.edited === true || Number(row.edited) === 1,
    version: Number(row.version),
    notes: row.notes == null ? null : String(row.notes),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
    employee_display: row.employee_id == null ? null : `${String(row.employee_first_name)} ${String(row.employee_last_name)}`,
    supervisor_id: idOf(row.supervisor_id),
    shift_type_name: row.shift_type_name == null ? null : String(row.shift_type_name),
  };
}

/** One shift; `forUpdate` locks its row until the transaction ends (MySQL; SQLite has one writer). */
export async function findShift(db: Db, id: number, options: { forUpdate?: boolean } = {}): Promise<Shift | undefined> {
  const query = shiftsQuery(db).where('s.id', id).first(SELECTED);
  const row = (await (options.forUpdate ? query.forUpdate('s') : query)) as Record<string, unknown> | undefined;
  return row && toShift(row);
}

export async function findShiftsByIds(db: Db, ids: readonly number[]): Promise<Shift[]> {
  const rows: Array<Record<string, unknown>> = [];
  for (let at = 0; at < ids.length; at += 500)
    rows.push(
      ...(await shiftsQuery(db)
        .whereIn('s.id', ids.slice(at, at + 500))
        .select(SELECTED)),
    );
  return rows.map(toShift).sort((a, b) => a.id - b.id);
}

export async function insertShift(db: Db, columns: ShiftColumns): Promise<number> {
  const [id] = await db('shifts').insert(columns);
  return Number(id);
}

export async function updateShift(db: Db, id: number, columns: Partial<ShiftColumns>): Promise<void> {
  await db('shifts').where({ id }).update(columns);
}

export async function deleteShift(db: Db, id: number): Promise<void> {
  await db('shifts').where({ id }).delete();
}

/**
 * The employee's published shifts that overlap [start, end) (UTC text), but those of `exceptIds`.
 * Read after the employee's row is locked (shift-writes.ts), so no other write of theirs comes between.
 */
export async function publishedOverlapping(
  db: Db,
  employeeId: number,
  span: { start_utc: string; end_utc: string },
  exceptIds: readonly number[],
): Promise<number[]> {
  const query = db('shifts')
    .where({ employee_id: employeeId, status: 'published' })
    .where('start_utc', '<', span.end_utc)
    .where('end_utc', '>', span.start_utc);
  if (exceptIds.length > 0) query.whereNotIn('id', exceptIds);
  const rows = (await query.select('id')) as Array<{ id: number }>;
  return rows.map((row) => Number(row.id));
}

/** What a list of shifts asks (GET /shifts and the employee paths). */
export interface ShiftCriteria {
  visibleTo: Caller;
  employeeId?: number;
  from?: string;
  to?: string;
  departmentId?: number;
  status?: ShiftStatus;
  open?: boolean;
  updatedSince?: Date;
}

/**
 * Only the shifts the caller may read (shift-access.ts says the same for one shift): admins all;
 * managers their direct reports' shifts of any status, their own and open ones when published;
 * employees their own and open ones when published.
 */
function whereVisibleShift(query: Knex.QueryBuilder, caller: Caller): Knex.QueryBuilder {
  if (caller.role === 'admin') return query;
  const self = caller.employeeId ?? 0;
  return query.where((visible) => {
    visible.where((published) =>
      published.where('s.status', 'published').where((whose) => whose.whereNull('s.employee_id').orWhere('s.employee_id', self)),
    );
    if (caller.role === 'manager') visible.orWhere('e.supervisor_id', self);
  });
}

function whereCriteria(query: Knex.QueryBuilder, criteria: ShiftCriteria): Knex.QueryBuilder {
  whereVisibleShift(query, criteria.visibleTo);
  if (criteria.employeeId !== undefined) query.where('s.employee_id', criteria.employeeId);
  if (criteria.from !== undefined) query.where('s.date', '>=', criteria.from);
  if (criteria.to !== undefined) query.where('s.date', '<=', criteria.to);
  if (criteria.departmentId !== undefined) query.where('e.department_id', criteria.departmentId);
  if (criteria.status !== undefined) query.where('s.status', criteria.status);
  if (criteria.open === true) query.whereNull('s.employee_id');
  if (criteria.open === false) query.whereNotNull('s.employee_id');
  if (criteria.updatedSince !== undefined) query.where('s.updated_at', '>=', toSqlDateTime(criteria.updatedSince));
  return query;
}

/** A page of shifts, by start then id. */
export async function listShifts(
  db: Db,
  criteria: ShiftCriteria,
  page: { offset: number; limit: number },
): Promise<{ shifts: Shift[]; total: number }> {
  const [rows, counted] = await Promise.all([
    whereCriteria(shiftsQuery(db), criteria)
      .orderBy([
        { column: 's.start_utc', order: 'asc' },
        { column: 's.id', order: 'asc' },
      ])
      .offset(page.offset)
      .limit(page.limit)
      .select(SELECTED) as Promise<Array<Record<string, unknown>>>,
    whereCriteria(shiftsQuery(db), criteria).count({ n: '*' }).first() as Promise<{ n: number | string } | undefined>,
  ]);
  return { shifts: rows.map(toShift), total: Number(counted?.n ?? 0) };
}

/** The shifts of a publish or unpublish: `status`, dated from..to, of these employees (or any, open ones included). */
export async function shiftsToSwitch(
  db: Db,
  criteria: {
    status: ShiftStatus;
    from: string;
    to: string;
    employeeIds: readonly number[] | undefined;
    supervisorId?: number;
    forUpdate?: boolean;
  },
): Promise<Shift[]> {
  const query = shiftsQuery(db).where('s.status', criteria.status).whereBetween('s.date', [criteria.from, criteria.to]);
  if (criteria.employeeIds) query.whereIn('s.employee_id', criteria.employeeIds);
  if (criteria.supervisorId !== undefined) query.where('e.supervisor_id', criteria.supervisorId);
  if (criteria.forUpdate) query.forUpdate('s');
  const rows = (await query.orderBy('s.id').select(SELECTED)) as Array<Record<string, unknown>>;
  return rows.map(toShift);
}

/** The tombstone of a deleted shift (GET /shifts/deleted), in the deleting transaction. */
export async function recordShiftDeletion(db: Db, shift: Shift, now: Date): Promise<void> {
  await db('deleted_shifts').insert({
    shift_id: shift.id,
    employee_id: shift.employee_id,
    supervisor_id: shift.supervisor_id,
    deleted_at: toSqlDateTime(now),
  });
}

/** A published shift's span, for what is planned of a date (the leave's default days and hours). */
export interface PublishedSpan {
  employee_id: number;
  date: string;
  start: Date;
  end: Date;
  unpaid_break_minutes: number;
}

/** The published shifts of these employees dated from..to, by employee and start. */
export async function publishedSpans(db: Db, employeeIds: readonly number[], from: string, to: string): Promise<PublishedSpan[]> {
  const spans: PublishedSpan[] = [];
  for (let at = 0; at < employeeIds.length; at += 500) {
    const rows = (await db('shifts')
      .whereIn('employee_id', employeeIds.slice(at, at + 500))
      .where('status', 'published')
      .whereBetween('date', [from, to])
      .orderBy([{ column: 'employee_id' }, { column: 'start_utc' }])
      .select('employee_id', 'date', 'start_utc', 'end_utc', 'unpaid_break_minutes')) as Array<Record<string, unknown>>;
    for (const row of rows)
      spans.push({
        employee_id: Number(row.employee_id),
        date: String(row.date).slice(0, 10),
        start: fromSqlDateTime(String(row.start_utc)),
        end: fromSqlDateTime(String(row.end_utc)),
        unpaid_break_minutes: Number(row.unpaid_break_minutes),
      });
  }
  return spans;
}
