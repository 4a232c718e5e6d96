import type { Knex } from 'knex';
import type { Caller } from '../caller';
import type { Db } from '../db/connect';
import { fromSqlDateTime } from '../db/sql-time';
import { employeeDays } from '../day-rules/day-status';
import type { DayLeave, DayHoliday, DayRecord, DayShift, DayStatus, DayStatusName } from '../day-rules/types';
import { whereVisible } from '../employees/access';
import { type HolidayDay, type LeaveDay, readHolidaysOf, readLeaveDays } from '../leave/days';
import { addDays, lastReadingOn } from '../time';
import { narrowToStatus } from './status-candidates';

// The one adapter from stored rows to the day status (src/day-rules): every reader of day
// statuses (GET /employees/{id}/days, GET /days, the absence sweep) goes through readDays, so the
// unit tests of the pure function test what production runs. Computed at every read, never stored.

/** What a day row names of its employee, and what bounds their days. */
export interface DayEmployee {
  id: number;
  display: string;
  joined_date: string | null;
  termination_date: string | null;
}

const EMPLOYEE_COLUMNS = ['e.id', 'e.first_name', 'e.last_name', 'e.joined_date', 'e.termination_date'];

function toDayEmployee(row: Record<string, unknown>): DayEmployee {
  const dateOf = (value: unknown) => (value == null ? null : String(value).slice(0, 10));
  return {
    id: Number(row.id),
    display: `${String(row.first_name)} ${String(row.last_name)}`,
    joined_date: dateOf(row.joined_date),
    termination_date: dateOf(row.termination_date),
  };
}

/** One employee, if the caller may read their attendance (the visibility of days). */
export async function findDayEmployee(db: Db, caller: Caller, id: number): Promise<DayEmployee | undefined> {
  const row = (await whereVisible(db('employees as e'), caller).where('e.id', id).first(EMPLOYEE_COLUMNS)) as
    Record<string, unknown> | undefined;
  return row && toDayEmployee(row);
}

/** GET /days's filter and page (CONTRACT 6.7). */
export interface DaysListFilter {
  date: string;
  status?: DayStatusName | undefined;
  department?: number | undefined;
  page: number;
  limit: number;
}

/** How many employees a status-filtered GET /days computes at a time. */
export const DAYS_SCAN_BATCH = 2000;

/**
 * How many employee ids one candidate query of a status scan looks through at most: the query
 * asks its conditions of each employee in turn (about 35 µs each at 100,000 employees for
 * `absent`), so a status with few candidates would otherwise scan the whole instance in one
 * statement, which the query timeout bounds.
 */
export const DAYS_SCAN_IDS = 50_000;

/**
 * The employees the caller may read who are employed on `date` (each has exactly one day row),
 * of a department if given; with `status`, narrowed in SQL to a superset of those whose day has it.
 */
function employedOn(db: Db, caller: Caller, filter: DaysListFilter): Knex.QueryBuilder {
  const { date, department, status } = filter;
  const query = whereVisible(db('employees as e'), caller)
    .where((joined) => joined.whereNull('e.joined_date').orWhere('e.joined_date', '<=', date))
    .where((left) => left.whereNull('e.termination_date').orWhere('e.termination_date', '>=', date));
  if (department !== undefined) query.where('e.department_id', department);
  if (status !== undefined) narrowToStatus(db, query, status, date);
  return query;
}

/**
 * One page of GET /days, paged at the database so memory holds one page (or one batch), whatever
 * the number of employees. Without `status` the page's employees are chosen and counted in SQL,
 * and their statuses alone computed. A status exists only once computed, so with `status` the
 * candidates (narrowed in SQL, src/days/status-candidates.ts) are read in id order, at most
 * DAYS_SCAN_BATCH at a time out of at most DAYS_SCAN_IDS ids, and computed, and the matches
 * counted and kept only while they fall on the page.
 */
export async function readDaysPage(
  db: Db,
  caller: Caller,
  filter: DaysListFilter,
  now: Date,
  batch = DAYS_SCAN_BATCH,
  span = DAYS_SCAN_IDS,
): Promise<{ rows: Array<Record<string, unknown>>; total: number }> {
  const range = { from: filter.date, to: filter.date };
  const offset = (filter.page - 1) * filter.limit;
  const toRows = async (employees: DayEmployee[]) => {
    const days = await readDays(db, employees, range, now);
    return employees.flatMap((employee) =>
      (days.get(employee.id) ?? [])
        .filter((day) => filter.status === undefined || day.status === filter.status)
        .map((day) => toDayResponse(employee, day)),
    );
  };
  if (filter.status === undefined) {
    const counted = (await employedOn(db, caller, filter).count({ total: '*' }).first()) as { total: number | string } | undefined;
    const page = (await employedOn(db, caller, filter)
      .orderBy('e.id')
      .limit(filter.limit)
      .offset(offset)
      .select(EMPLOYEE_COLUMNS)) as Array<Record<string, unknown>>;
    return { rows: await toRows(page.map(toDayEmployee)), total: Number(counted?.total ?? 0) };
  }
  const lastId = Number(((await db('employees').max({ id: 'id' }).first()) as { id: number | null } | undefined)?.id ?? 0);
  /** The candidates of ids after `after` (a batch, or those of `span` ids), and where the next read starts (null: none). */
  const candidatesAfter = async (after: number): Promise<{ employees: DayEmployee[]; next: number | null }> => {
    const until = after + span;
    const employees = (
      (await employedOn(db, caller, filter)
        .where('e.id', '>', after)
        .where('e.id', '<=', until)
        .orderBy('e.id')
        .limit(batch)
        .select(EMPLOYEE_COLUMNS)) as Array<Record<string, unknown>>
    ).map(toDayEmployee);
    const last = employees.at(-1);
    if (last && employees.length === batch) return { employees, next: last.id };
    return { employees, next: until < lastId ? until : null };
  };
  const rows: Array<Record<string, unknown>> = [];
  let total = 0;
  for (let reading = candidatesAfter(0); ;) {
    const { employees, next } = await reading;
    // The next candidates are read while these days are (their queries take about as long); a
    // failure of that read surfaces at its own await, never unhandled meanwhile.
    if (next !== null) {
      reading = candidatesAfter(next);
      reading.catch(() => undefined);
    }
    if (employees.length > 0)
      for (const row of await toRows(employees)) {
        if (total >= offset && total < offset + filter.limit) rows.push(row);
        total++;
      }
    if (next === null) return { rows, total };
  }
}

function toDayShift(row: Record<string, unknown>): DayShift & { employeeId: number } {
  const hours = (value: unknown) => (value == null ? null : Number(value));
  return {
    employeeId: Number(row.employee_id),
    id: Number(row.id),
    date: String(row.date).slice(0, 10),
    start: fromSqlDateTime(String(row.start_utc)).getTime(),
    end: fromSqlDateTime(String(row.end_utc)).getTime(),
    unpaid_break_minutes: Number(row.unpaid_break_minutes),
    late_grace_minutes: Number(row.late_grace_minutes),
    early_exit_grace_minutes: Number(row.early_exit_grace_minutes),
    check_in_window_minutes: Number(row.check_in_window_minutes),
    check_out_window_minutes: Number(row.check_out_window_minutes),
    half_day_below_hours: hours(row.half_day_below_hours),
    absent_below_hours: hours(row.absent_below_hours),
  };
}

/**
 * A record: a missed punch-out (left without an out_time at a period's lock) has no end, as an
 * open record, so its day reads `incomplete`.
 */
function toDayRecord(row: Record<string, unknown>): DayRecord & { employeeId: number } {
  return {
    employeeId: Number(row.employee_id),
    id: Number(row.id),
    start: fromSqlDateTime(String(row.in_time_utc)).getTime(),
    end: row.out_time_utc == null ? null : fromSqlDateTime(String(row.out_time_utc)).getTime(),
    localDate: String(row.in_time_local).slice(0, 10),
  };
}

async function inChunks<T>(ids: readonly number[], read: (chunk: number[]) => Knex.QueryBuilder): Promise<T[]> {
  const rows: T[] = [];
  for (let at = 0; at < ids.length; at += 500) rows.push(...((await read(ids.slice(at, at + 500))) as T[]));
  return rows;
}

/**
 * The day statuses of these employees for from..to. Shifts and records are read a day either
 * side: a record belongs to the shift whose window holds its start, and a night shift's window
 * reaches into the next date.
 */
export async function readDays(
  db: Db,
  employees: readonly DayEmployee[],
  range: { from: string; to: string },
  now: Date,
): Promise<Map<number, DayStatus[]>> {
  const ids = employees.map((employee) => employee.id);
  const before = addDays(range.from, -1);
  const after = addDays(range.to, 1);
  // Independent reads, side by side: a status scan runs them for batch after batch.
  const [shiftRows, recordRows, leaveDays, holidays] = await Promise.all([
    inChunks<Record<string, unknown>>(ids, (chunk) =>
      db('shifts').whereIn('employee_id', chunk).where('status', 'published').whereBetween('date', [before, after]).select('*'),
    ),
    inChunks<Record<string, unknown>>(ids, (chunk) =>
      db('attendance')
        .whereIn('employee_id', chunk)
        .whereBetween('in_time_local', [`${before} 00:00:00`, lastReadingOn(after)])
        .select('id', 'employee_id', 'in_time_utc', 'out_time_utc', 'in_time_local'),
    ),
    // Leave and holidays (CONTRACT 6.8, src/leave/): read once per request, answered per date.
    readLeaveDays(db, ids, range.from, range.to),
    readHolidaysOf(db, ids, range.from, range.to),
  ]);
  const shifts = shiftRows.map(toDayShift);
  const records = recordRows.map(toDayRecord);
  const shiftsOf = byEmployee(shifts);
  const recordsOf = byEmployee(records);
  const leaveDaysOf = byEmployee(leaveDays);
  const days = new Map<number, DayStatus[]>();
  for (const employee of employees) {
    days.set(
      employee.id,
      employeeDays({
        from: range.from,
        to: range.to,
        now: now.getTime(),
        joinedDate: employee.joined_date,
        terminationDate: employee.termination_date,
        shifts: shiftsOf.get(employee.id) ?? [],
        records: recordsOf.get(employee.id) ?? [],
        leaveOn: leaveOf(leaveDaysOf.get(employee.id) ?? []),
        holidayOn: holidayOf(holidays.get(employee.id) ?? []),
      }),
    );
  }
  return days;
}

/** Rows grouped by their employee, each group in the rows' order (a status scan computes thousands of employees at once). */
function byEmployee<T extends { employeeId: number }>(rows: readonly T[]): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const row of rows) {
    const group = groups.get(row.employeeId);
    if (group) group.push(row);
    else groups.set(row.employeeId, [row]);
  }
  return groups;
}

/** A date's leave (one live leave per date: src/leave/ keeps at most one pending or approved). */
function leaveOf(days: readonly LeaveDay[]): (date: string) => DayLeave | null {
  const byDate = new Map(days.map((day) => [day.date, { id: day.leaveId, portion: day.portion, status: day.status }]));
  return (date) => byDate.get(date) ?? null;
}

/** A date's holiday; of two on one date (a national and a company one), a full one first, then the lower id. */
function holidayOf(holidays: readonly HolidayDay[]): (date: string) => DayHoliday | null {
  const byDate = new Map<string, DayHoliday>();
  const ordered = [...holidays].sort((a, b) => (a.portion === b.portion ? a.holidayId - b.holidayId : a.portion === 'full' ? -1 : 1));
  for (const holiday of ordered)
    if (!byDate.has(holiday.date)) byDate.set(holiday.date, { id: holiday.holidayId, portion: holiday.portion });
  return (date) => byDate.get(date) ?? null;
}

/** The read shape of a day row (CONTRACT 6.7). */
export function toDayResponse(employee: DayEmployee, day: DayStatus): Record<string, unknown> {
  return {
    employee: { type: 'Employee', id: String(employee.id), display: employee.display },
    date: day.date,
    status: day.status,
    late_minutes: day.late_minutes,
    early_exit_minutes: day.early_exit_minutes,
    planned_hours: day.planned_hours,
    worked_hours: day.worked_hours,
    shifts: day.shifts.map(String),
    attendance: day.attendance.map(String),
    leave: day.leave === null ? null : String(day.leave),
    holiday: day.holiday === null ? null : String(day.holiday),
    flags: day.flags,
  };
}
