import type { Knex } from 'knex';
import type { Db } from '../db/connect';
import { fromSqlDateTime } from '../db/sql-time';
import { type DayLeaveHours, leaveHoursOf, type PlannedHoursByDate, type Portion } from '../leave-rules/hours';
import { publishedSpans } from '../shifts/shift-repository';
import { holidaysOfCountries } from './holidays-repository';
import { readLeaveSettings } from './settings';

export type { DayLeaveHours };

// What other features read of leave and holidays (payroll, work schedules, calendar feeds): the
// one adapter from stored rows to the pure rules of src/leave-rules/.

export interface LeaveDay {
  employeeId: number;
  date: string;
  leaveId: number;
  status: 'pending' | 'approved';
  portion: Portion;
  hours: number | null;
  typeId: number;
  typeName: string;
  code: string | null;
  paid: boolean;
  private: boolean;
  /** The leave's version and last change (what a calendar feed's SEQUENCE and DTSTAMP say). */
  version: number;
  updatedAt: Date;
}

export interface HolidayDay {
  holidayId: number;
  date: string;
  name: string;
  portion: 'full' | 'half';
  country: string | null;
  paid: boolean;
}

const CHUNK = 500;

/** Pending and approved leave days of these employees in [from, to]. */
export async function readLeaveDays(db: Db, employeeIds: readonly number[], from: string, to: string): Promise<LeaveDay[]> {
  const days: LeaveDay[] = [];
  for (let start = 0; start < employeeIds.length; start += CHUNK) {
    const rows = (await db('leave_days as d')
      .join('leaves as l', 'l.id', 'd.leave_id')
      .join('leave_types as t', 't.id', 'l.leave_type_id')
      .whereIn('d.live_employee_id', employeeIds.slice(start, start + CHUNK))
      .where('d.date', '>=', from)
      .where('d.date', '<=', to)
      .orderBy([{ column: 'd.live_employee_id' }, { column: 'd.date' }])
      .select(
        'd.live_employee_id',
        'd.date',
        'd.leave_id',
        'l.status',
        'd.portion',
        'd.hours',
        't.id as type_id',
        't.name',
        't.code',
        't.paid',
        't.private',
        'l.version',
        'l.updated_at',
      )) as Array<Record<string, unknown>>;
    for (const row of rows) {
      days.push({
        employeeId: Number(row.live_employee_id),
        date: String(row.date).slice(0, 10),
        leaveId: Number(row.leave_id),
        status: row.status === 'approved' ? 'approved' : 'pending',
        portion: String(row.portion) as Portion,
        hours: row.hours == null ? null : Number(row.hours),
        typeId: Number(row.type_id),
        typeName: String(row.name),
        code: row.code == null ? null : String(row.code),
        paid: row.paid === true || Number(row.paid) === 1,
        private: row.private === true || Number(row.private) === 1,
        version: Number(row.version),
        updatedAt: fromSqlDateTime(String(row.updated_at)),
      });
    }
  }
  return days;
}

/** The holidays that apply to each employee (their `country`, and country null) in [from, to]. */
export async function readHolidaysOf(db: Db, employeeIds: readonly number[], from: string, to: string): Promise<Map<number, HolidayDay[]>> {
  const countries = new Map<number, string | null>();
  for (let start = 0; start < employeeIds.length; start += CHUNK) {
    const rows = (await db('employees')
      .whereIn('id', employeeIds.slice(start, start + CHUNK))
      .select('id', 'country_code')) as Array<{ id: number; country_code: string | null }>;
    for (const row of rows) countries.set(Number(row.id), row.country_code == null ? null : String(row.country_code));
  }
  const holidays = await holidaysOfCountries(db, [...countries.values()], from, to);
  const byEmployee = new Map<number, HolidayDay[]>();
  for (const [employeeId, country] of countries) {
    byEmployee.set(
      employeeId,
      holidays
        .filter((holiday) => holiday.country === null || holiday.country === country)
        .map((holiday) => ({
          holidayId: holiday.id,
          date: holiday.date,
          name: holiday.name,
          portion: holiday.portion,
          country: holiday.country,
          paid: holiday.paid,
        })),
    );
  }
  return byEmployee;
}

/**
 * The planned hours of each employee's published shifts per date (docs/leave.md, "Shifts"): each
 * shift's elapsed time minus its unpaid break, summed by the shift's date, kept to the hundredth.
 */
export async function readPlannedHours(
  db: Db,
  employeeIds: readonly number[],
  from: string,
  to: string,
): Promise<Map<number, PlannedHoursByDate>> {
  const planned = new Map(employeeIds.map((id) => [id, new Map<string, number>()]));
  for (const span of await publishedSpans(db, employeeIds, from, to)) {
    const byDate = planned.get(span.employee_id);
    if (!byDate) continue;
    const hours = Math.max(0, span.end.getTime() - span.start.getTime() - span.unpaid_break_minutes * 60_000) / 3_600_000;
    byDate.set(span.date, Math.round(((byDate.get(span.date) ?? 0) + hours) * 100) / 100);
  }
  return planned;
}

/**
 * Each employee's paid leave and holiday hours per date in [from, to] (dates without either left
 * out): what every payroll reader (timesheets, exports, a lock's snapshot) calls, once per read.
 */
export async function readLeaveHours(
  db: Db,
  employeeIds: readonly number[],
  from: string,
  to: string,
): Promise<Map<number, DayLeaveHours[]>> {
  const [settings, leaveDays, holidays, planned] = await Promise.all([
    readLeaveSettings(db),
    readLeaveDays(db, employeeIds, from, to),
    readHolidaysOf(db, employeeIds, from, to),
    readPlannedHours(db, employeeIds, from, to),
  ]);
  const hours = new Map<number, DayLeaveHours[]>();
  for (const employeeId of employeeIds) {
    hours.set(
      employeeId,
      leaveHoursOf({
        leaveDays: leaveDays.filter((day) => day.employeeId === employeeId),
        holidays: holidays.get(employeeId) ?? [],
        settings,
        planned: planned.get(employeeId) ?? new Map(),
      }),
    );
  }
  return hours;
}

/** The days of approved leave of a paid type in the period (`leave_days as d`): a query to select from or to correlate. */
export function paidLeaveIn(db: Db, period: { start: string; end: string }): Knex.QueryBuilder {
  return db('leave_days as d')
    .join('leaves as l', 'l.id', 'd.leave_id')
    .join('leave_types as t', 't.id', 'l.leave_type_id')
    .where('l.status', 'approved')
    .where('t.paid', true)
    .whereNotNull('d.live_employee_id')
    .where('d.date', '>=', period.start)
    .where('d.date', '<=', period.end);
}

/**
 * The employees who may have paid leave or holiday hours in [from, to]: those with approved leave
 * of a paid type there, and, when a paid holiday falls there, the Active employees it applies to.
 * A superset: readLeaveHours decides the hours (a holiday on a day off pays none).
 */
export async function employeesWithPaidHours(db: Db, from: string, to: string): Promise<number[]> {
  const onLeave = (await paidLeaveIn(db, { start: from, end: to }).distinct('d.live_employee_id as id')) as Array<{ id: number }>;
  const holidays = (await db('holidays')
    .where('paid', true)
    .where('date', '>=', from)
    .where('date', '<=', to)
    .distinct('country')) as Array<{
    country: string | null;
  }>;
  let holidayEmployees: Array<{ id: number }> = [];
  if (holidays.length > 0) {
    const everyone = holidays.some((holiday) => holiday.country === null);
    const countries = holidays.filter((holiday) => holiday.country !== null).map((holiday) => String(holiday.country));
    let query = db('employees').where('status', 'Active');
    if (!everyone) query = query.whereIn('country_code', countries);
    holidayEmployees = (await query.select('id')) as Array<{ id: number }>;
  }
  return [...new Set([...onLeave, ...holidayEmployees].map((row) => Number(row.id)))];
}

/**
 * What the paid hours of [from, to] depend on besides the leave days' own dates: a fingerprint
 * of the leaves, leave types, holidays, leave settings and published shifts, for the payroll
 * export's ETag.
 */
export async function leaveFingerprint(db: Db, from: string, to: string): Promise<unknown> {
  return Promise.all([
    db('leaves')
      .where('start_date', '<=', to)
      .where('end_date', '>=', from)
      .first(db.raw('count(*) as n'), db.raw('sum(id) as ids'), db.raw('sum(version) as versions'), db.raw('max(updated_at) as changed')),
    db('leave_types').first(db.raw('count(*) as n'), db.raw('sum(id) as ids'), db.raw('max(updated_at) as changed')),
    db('holidays').where('date', '>=', from).where('date', '<=', to).first(db.raw('count(*) as n'), db.raw('sum(id) as ids')),
    readLeaveSettings(db),
    // A leave day is worth its date's published shifts' planned hours (readPlannedHours).
    db('shifts')
      .where('status', 'published')
      .whereNotNull('employee_id')
      .where('date', '>=', from)
      .where('date', '<=', to)
      .first(db.raw('count(*) as n'), db.raw('sum(id) as ids'), db.raw('sum(version) as versions'), db.raw('max(updated_at) as changed')),
  ]);
}
