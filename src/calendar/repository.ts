import type { Db } from '../db/connect';
import { fromSqlDateTime, sqlDateTimeToIso, toSqlDateTime } from '../db/sql-time';

// calendar_feeds (migration 0032) and the shifts a feed shows.

export interface CalendarFeed {
  id: number;
  employee_id: number;
  created_at: string;
}

export async function insertFeed(db: Db, employeeId: number, tokenHash: string, now: Date): Promise<CalendarFeed> {
  const at = toSqlDateTime(now);
  const [id] = await db('calendar_feeds').insert({ employee_id: employeeId, token_hash: tokenHash, created_at: at });
  return { id: Number(id), employee_id: employeeId, created_at: sqlDateTimeToIso(at) };
}

export async function listFeeds(db: Db, employeeId: number): Promise<CalendarFeed[]> {
  const rows = (await db('calendar_feeds')
    .where({ employee_id: employeeId })
    .orderBy('id')
    .select('id', 'employee_id', 'created_at')) as Array<Record<string, unknown>>;
  return rows.map((row) => ({
    id: Number(row.id),
    employee_id: Number(row.employee_id),
    created_at: sqlDateTimeToIso(String(row.created_at)),
  }));
}

export async function deleteFeed(db: Db, employeeId: number, id: number): Promise<boolean> {
  return (await db('calendar_feeds').where({ id, employee_id: employeeId }).delete()) > 0;
}

/** The employee of a feed, by its token's hash; undefined for an unknown (or revoked) token. */
export async function findFeedEmployee(
  db: Db,
  tokenHash: string,
): Promise<{ id: number; timezone: string; termination_date: string | null } | undefined> {
  const row = (await db('calendar_feeds as f')
    .join('employees as e', 'e.id', 'f.employee_id')
    .where('f.token_hash', tokenHash)
    .first('e.id', 'e.timezone', 'e.termination_date')) as Record<string, unknown> | undefined;
  if (!row) return undefined;
  return {
    id: Number(row.id),
    timezone: String(row.timezone),
    termination_date: row.termination_date == null ? null : String(row.termination_date).slice(0, 10),
  };
}

/** A shift as a feed shows it. */
export interface FeedShift {
  id: number;
  start: Date;
  end: Date;
  status: 'published' | 'cancelled';
  version: number;
  title: string;
  notes: string | null;
  updated_at: Date;
}

/** The employee's published and cancelled shifts dated from..to, by start. */
export async function feedShifts(db: Db, employeeId: number, from: string, to: string): Promise<FeedShift[]> {
  const rows = (await db('shifts as s')
    .leftJoin('shift_types as st', 'st.id', 's.shift_type_id')
    .where('s.employee_id', employeeId)
    .whereIn('s.status', ['published', 'cancelled'])
    .whereBetween('s.date', [from, to])
    .orderBy([
      { column: 's.start_utc', order: 'asc' },
      { column: 's.id', order: 'asc' },
    ])
    .select('s.id', 's.start_utc', 's.end_utc', 's.status', 's.version', 's.notes', 's.updated_at', 'st.name as type_name')) as Array<
    Record<string, unknown>
  >;
  return rows.map((row) => ({
    id: Number(row.id),
    start: fromSqlDateTime(String(row.start_utc)),
    end: fromSqlDateTime(String(row.end_utc)),
    status: row.status === 'cancelled' ? 'cancelled' : 'published',
    version: Number(row.version),
    title: row.type_name == null ? 'Shift' : String(row.type_name),
    notes: row.notes == null ? null : String(row.notes),
    updated_at: fromSqlDateTime(String(row.updated_at)),
  }));
}
