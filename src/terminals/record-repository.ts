import { type Db, dialectOf } from '../db/connect';
import { ATTENDANCE_COLUMNS, type AttendanceColumns, type AttendanceRow, openEmployeeId, toAttendanceRow } from '../attendance/repository';

// The attendance records as a punch-log batch reads and writes them, many at a time.

/** A record as a batch meets it: whether the punch log made it (and may derive it again). */
export interface BatchAttendanceRow extends AttendanceRow {
  derived_from_log: boolean;
}

/**
 * The records of these employees that start between `from` and `to` (UTC SQL text, inclusive),
 * and their open records, whenever those start: what a batch's entries can meet.
 */
export async function findAttendanceOfEmployeesBetween(
  db: Db,
  employeeIds: number[],
  from: string,
  to: string,
): Promise<BatchAttendanceRow[]> {
  if (employeeIds.length === 0) return [];
  const columns = [...ATTENDANCE_COLUMNS, 'a.derived_from_log'];
  const inRange = db('attendance as a').whereIn('a.employee_id', employeeIds).whereBetween('a.in_time_utc', [from, to]).select(columns);
  const open = db('attendance as a').whereIn('a.open_employee_id', employeeIds).select(columns);
  // SQLite takes no parentheses around the parts of a UNION.
  const rows = (await db.queryBuilder().unionAll([inRange, open], dialectOf(db) === 'mysql')) as Array<Record<string, unknown>>;
  const byId = new Map<number, BatchAttendanceRow>();
  for (const row of rows) byId.set(Number(row.id), { ...toAttendanceRow(row), derived_from_log: Boolean(Number(row.derived_from_log)) });
  return [...byId.values()];
}

/** Rows per INSERT of a batch: 17 values each stay far below either database's limit on bound values. */
const INSERT_BATCH = 500;

/**
 * Inserts records a batch derived from the punch log (derived_from_log), a few hundred per
 * statement, and answers their ids, in the order given. The ids
 * are read back by (employee_id, in_time_utc), which records of one employee never share (they
 * do not overlap): MySQL tells only the first id of a multi-row INSERT, and does not promise the
 * others follow it.
 */
export async function insertAttendanceRows(db: Db, records: AttendanceColumns[]): Promise<number[]> {
  const ids: number[] = [];
  for (let start = 0; start < records.length; start += INSERT_BATCH) {
    const chunk = records.slice(start, start + INSERT_BATCH);
    await db('attendance').insert(chunk.map((columns) => ({ ...columns, open_employee_id: openEmployeeId(columns), derived_from_log: 1 })));
    const rows = (await db('attendance')
      .whereIn('employee_id', [...new Set(chunk.map((columns) => columns.employee_id))])
      .whereIn('in_time_utc', [...new Set(chunk.map((columns) => columns.in_time_utc))])
      .select('id', 'employee_id', 'in_time_utc')) as Array<{ id: number; employee_id: number; in_time_utc: string }>;
    const idOf = new Map(rows.map((row) => [`${Number(row.employee_id)} ${String(row.in_time_utc)}`, Number(row.id)]));
    for (const columns of chunk) {
      const id = idOf.get(`${columns.employee_id} ${columns.in_time_utc}`);
      if (id === undefined) throw new Error('An attendance record inserted by a batch was not found again');
      ids.push(id);
    }
  }
  return ids;
}
