import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import type { ShiftType, ShiftTypeValues } from './type-fields';

// shift_types (migration 0031). Decimal thresholds come back as text from MariaDB.

const COLUMNS = [
  'id',
  'name',
  'start_time',
  'end_time',
  'unpaid_break_minutes',
  'late_grace_minutes',
  'early_exit_grace_minutes',
  'check_in_window_minutes',
  'check_out_window_minutes',
  'half_day_below_hours',
  'absent_below_hours',
];

const hoursOf = (value: unknown) => (value === null || value === undefined ? null : Number(value));

function toShiftType(row: Record<string, unknown>): ShiftType {
  return {
    id: String(row.id),
    name: String(row.name),
    start_time: String(row.start_time),
    end_time: String(row.end_time),
    unpaid_break_minutes: Number(row.unpaid_break_minutes),
    late_grace_minutes: Number(row.late_grace_minutes),
    early_exit_grace_minutes: Number(row.early_exit_grace_minutes),
    check_in_window_minutes: Number(row.check_in_window_minutes),
    check_out_window_minutes: Number(row.check_out_window_minutes),
    half_day_below_hours: hoursOf(row.half_day_below_hours),
    absent_below_hours: hoursOf(row.absent_below_hours),
  };
}

export async function findShiftType(db: Db, id: number): Promise<ShiftType | undefined> {
  const row = (await db('shift_types').where({ id }).first(COLUMNS)) as Record<string, unknown> | undefined;
  return row && toShiftType(row);
}

export async function listShiftTypes(db: Db, offset: number, limit: number): Promise<{ rows: ShiftType[]; total: number }> {
  const [rows, counted] = await Promise.all([
    db('shift_types').orderBy('id').offset(offset).limit(limit).select(COLUMNS) as Promise<Array<Record<string, unknown>>>,
    db('shift_types').count({ n: '*' }).first() as Promise<{ n: number | string } | undefined>,
  ]);
  return { rows: rows.map(toShiftType), total: Number(counted?.n ?? 0) };
}

export async function insertShiftType(db: Db, values: ShiftTypeValues, now: Date): Promise<number> {
  const at = toSqlDateTime(now);
  const [id] = await db('shift_types').insert({ ...values, created_at: at, updated_at: at });
  return Number(id);
}

export async function updateShiftType(db: Db, id: number, values: ShiftTypeValues, now: Date): Promise<void> {
  await db('shift_types')
    .where({ id })
    .update({ ...values, updated_at: toSqlDateTime(now) });
}

export async function deleteShiftType(db: Db, id: number): Promise<void> {
  await db('shift_types').where({ id }).delete();
}
