import type { Knex } from 'knex';
import type { Caller } from '../caller';
import { type Db, dialectOf } from '../db/connect';
import { parameter, preparedQuery } from '../db/driver-statements';
import { toSqlDateTime } from '../db/sql-time';
import { asListRead } from '../db/statement-time';
import { whereVisible } from '../employees/access';
import { offsetOf } from '../http/pagination';
import { lastReadingOn } from '../time';
import { ATTENDANCE_COLUMNS, type AttendanceRecord, employeeDisplayOf, toAttendanceRow } from './repository';

// The list and summary reads of attendance: pages of records and their totals.

/** Which records a list or summary covers. `from`/`to` are inclusive dates of the local in_time. */
export interface AttendanceCriteria {
  /** Only this employee's records (the caller's access to them is already checked). */
  employeeId?: number;
  /** Only records of employees this caller may see. */
  visibleTo?: Caller;
  from?: string;
  to?: string;
  open?: boolean;
  /** Only records changed (or created) at or after this instant: a delta sync's corrections. */
  updatedSince?: Date;
}

/**
 * What a query binds where, for a query built once and prepared (listAttendance): the argument
 * `index` stands in for `value`. Knex's own queries bind the values themselves.
 */
type Bind = (index: number, value: string | number) => string | number;
const bindValue: Bind = (_index, value) => value;
const bindParameter: Bind = (index) => parameter(index);

// The arguments of a prepared page query, by index.
const EMPLOYEE = 0;
const FROM = 1;
const LAST = 2;
const START_IN_TIME = 3;
const START_ID = 4;
const UPDATED_SINCE = 5;

function applyCriteria(query: Knex.QueryBuilder, criteria: AttendanceCriteria, bind: Bind = bindValue): Knex.QueryBuilder {
  if (criteria.employeeId !== undefined) query.where('a.employee_id', bind(EMPLOYEE, criteria.employeeId));
  if (criteria.visibleTo) whereVisible(query, criteria.visibleTo, 'e');
  // A record belongs to the calendar date its in_time shows: a range of the in_time_local index.
  if (criteria.from !== undefined) query.where('a.in_time_local', '>=', bind(FROM, fromBound(criteria.from)));
  if (criteria.to !== undefined) query.where('a.in_time_local', '<=', bind(LAST, lastBound(criteria.to)));
  // Open: the employee's open record (open_employee_id is set exactly then). A missed punch-out
  // has no out_time either, but it is not open: it is listed with the others.
  if (criteria.open === true) query.whereNotNull('a.open_employee_id');
  if (criteria.open === false) query.whereNull('a.open_employee_id');
  if (criteria.updatedSince !== undefined) query.where('a.updated_at', '>=', bind(UPDATED_SINCE, toSqlDateTime(criteria.updatedSince)));
  return query;
}

const fromBound = (from: string) => `${from} 00:00:00`;
/**
 * The last reading of `to` (inclusive), not the next day's midnight: '10000-01-01 00:00:00' sorts
 * before every reading of 9999-12-31, so `to=9999-12-31` matched nothing on SQLite.
 */
const lastBound = (to: string) => lastReadingOn(to);

/** Where a page of records starts: its first record's in_time_utc and id (newest first). */
export interface AttendancePageStart {
  inTimeUtc: string;
  id: number;
}

/**
 * A page of records, newest first, and how many match in all. With `start` (the first record of
 * the page, known from the page before it) the page is read from there: `(in_time_utc, id) <=
 * start`, whatever the page number (keyset paging); without it, the rows before the page are
 * skipped by their ids alone (a deferred join: skipped rows are never read whole). `next` is the
 * start of the following page, when there is one.
 */
export async function listAttendance(
  db: Db,
  criteria: AttendanceCriteria,
  page: { page: number; limit: number; start?: AttendancePageStart },
): Promise<{ records: AttendanceRecord[]; total: number; first?: AttendancePageStart; next?: AttendancePageStart }> {
  const offset = offsetOf(page.page, page.limit);
  const { start } = page;
  const shape = preparedPageShape(criteria, page.limit, offset, start);
  const rows = shape
    ? await preparedPageQuery(
        shape,
        criteria,
        page.limit,
        start,
      )(db, [
        criteria.employeeId,
        criteria.from === undefined ? undefined : fromBound(criteria.from),
        criteria.to === undefined ? undefined : lastBound(criteria.to),
        start?.inTimeUtc,
        start?.id,
        criteria.updatedSince === undefined ? undefined : toSqlDateTime(criteria.updatedSince),
      ])
    : ((await asListRead(pageQuery(db, criteria, page.limit, offset, start, bindValue))) as Array<Record<string, unknown>>);
  const startOf = (row: Record<string, unknown> | undefined) => row && { inTimeUtc: String(row.in_time_utc), id: Number(row.id) };
  const records = rows.slice(0, page.limit).map((row) => ({ ...toAttendanceRow(row), employeeDisplay: employeeDisplayOf(row) }));
  const found = { records, first: startOf(rows[0]), next: startOf(rows[page.limit]) };
  // A page that is not empty and has no next one is the last: its rows tell the total without counting.
  if (rows.length > 0 && rows.length <= page.limit) return { ...found, total: offset + rows.length };
  if (rows.length === 0 && offset === 0) return { ...found, total: 0 };
  const count = asListRead(applyCriteria(db('attendance as a'), criteria));
  if (criteria.visibleTo) count.join('employees as e', 'e.id', 'a.employee_id');
  const row = (await count.count({ total: '*' }).first()) as { total: number | string } | undefined;
  return { ...found, total: Number(row?.total ?? 0) };
}

/**
 * The records of one page and the one after it (whether another page follows, and where it
 * starts), newest first. The page's ids are found first, from the index, and only they are read
 * whole (a deferred join: the rows an offset skips are never read).
 */
function pageQuery(
  db: Db,
  criteria: AttendanceCriteria,
  limit: number,
  offset: number,
  start: AttendancePageStart | undefined,
  bind: Bind,
): Knex.QueryBuilder {
  const order = [
    { column: 'a.in_time_utc', order: 'desc' },
    { column: 'a.id', order: 'desc' },
  ];
  const ids = db('attendance as a').select('a.id', 'a.in_time_utc');
  applyCriteria(criteria.visibleTo ? ids.join('employees as e', 'e.id', 'a.employee_id') : ids, criteria, bind);
  // Written into the SQL, not bound: the limit is part of a prepared query's shape.
  ids.orderBy(order).limit(limit + 1, { skipBinding: true });
  if (!start) ids.offset(offset);
  else {
    // Written as a range on in_time_utc and a tie-break, which both databases read off the
    // (employee_id, in_time_utc) index or sort cheaply; a row-value comparison they do not.
    const inTime = bind(START_IN_TIME, start.inTimeUtc);
    ids
      .where('a.in_time_utc', '<=', inTime)
      .andWhere((tie) => tie.where('a.in_time_utc', '<', inTime).orWhere('a.id', '<=', bind(START_ID, start.id)));
  }
  return db('attendance as a')
    .join(ids.as('page'), 'page.id', 'a.id')
    .join('employees as emp', 'emp.id', 'a.employee_id')
    .select([...ATTENDANCE_COLUMNS, 'emp.first_name', 'emp.last_name'])
    .orderBy(order);
}

/**
 * The page queries of one employee's records (an app's history screen, a month's report), as
 * prepared statements, one per shape: which criteria are given, the page size (at most a few
 * hundred shapes in all), and whether the page starts at a known record. Building the deferred
 * join in Knex on every request was most of such a read's cost (docs/performance.md, "Figures
 * behind the code"). Lists of every visible employee (their access rule writes the caller's id
 * into the query) and pages found by an offset go through Knex.
 */
const preparedPages = new Map<string, ReturnType<typeof preparedQuery>>();

function preparedPageShape(
  criteria: AttendanceCriteria,
  limit: number,
  offset: number,
  start: AttendancePageStart | undefined,
): string | undefined {
  if (criteria.employeeId === undefined || criteria.visibleTo !== undefined || (offset > 0 && !start)) return undefined;
  return JSON.stringify([
    criteria.from !== undefined,
    criteria.to !== undefined,
    criteria.open ?? null,
    criteria.updatedSince !== undefined,
    limit,
    start !== undefined,
  ]);
}

function preparedPageQuery(
  shape: string,
  criteria: AttendanceCriteria,
  limit: number,
  start: AttendancePageStart | undefined,
): ReturnType<typeof preparedQuery> {
  let query = preparedPages.get(shape);
  if (!query) {
    query = preparedQuery((db) => pageQuery(db, criteria, limit, 0, start, bindParameter));
    preparedPages.set(shape, query);
  }
  return query;
}

/** Seconds between in_time_utc and out_time_utc of a closed record, in SQL. */
function durationSeconds(db: Db): string {
  return dialectOf(db) === 'mysql'
    ? 'TIMESTAMPDIFF(SECOND, a.in_time_utc, a.out_time_utc)'
    : "(CAST(strftime('%s', a.out_time_utc) AS INTEGER) - CAST(strftime('%s', a.in_time_utc) AS INTEGER))";
}

/** How many records match, how many of them are closed, and the closed ones' total length in seconds. */
export async function countAttendance(db: Db, criteria: AttendanceCriteria): Promise<{ records: number; closed: number; seconds: number }> {
  // An open record has no out_time: COUNT and SUM leave its NULL out.
  const row = (await applyCriteria(db('attendance as a'), criteria)
    .select(
      db.raw('COUNT(*) AS records'),
      db.raw('COUNT(a.out_time_utc) AS closed'),
      db.raw(`COALESCE(SUM(${durationSeconds(db)}), 0) AS seconds`),
    )
    .first()) as { records: number | string; closed: number | string; seconds: number | string } | undefined;
  return { records: Number(row?.records ?? 0), closed: Number(row?.closed ?? 0), seconds: Number(row?.seconds ?? 0) };
}
