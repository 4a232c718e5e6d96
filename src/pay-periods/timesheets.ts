import type { Knex } from 'knex';
import { employeeDisplayOf } from '../attendance/repository';
import type { Caller } from '../caller';
import type { Db } from '../db/connect';
import { sqlDateTimeToIso } from '../db/sql-time';
import { whereVisible } from '../employees/access';
import { readGroupRules } from '../pay-groups/repository';
import {
  type DayHours,
  type GroupRulesBook,
  groupSheetClassifier,
  hoursOf,
  type SheetDays,
  type StoredRecordTimes,
  totalsOf,
} from '../pay-rules/classify';
import { datesOf, workweekStartOf } from '../pay-rules/periods';
import type { PayPeriodSettings } from '../pay-rules/settings';
import type { PayPeriod } from './periods';
import { type DayLeaveHours, readLeaveHours } from '../leave/days';
import { lastReadingOn } from '../time';

// Timesheets: each employee's days of a period, classified (docs/pay-periods.md, "Timesheets").
// An open period is computed from the records at every read; a locked one is read from the
// numbers frozen at its lock (pay_period_snapshots), its leave and holiday hours included.

/** What a timesheet shows of its employee. */
export interface SheetEmployee {
  id: number;
  /** The employee's code (`employee_id` of the read shape); frozen at the lock for a locked period. */
  code: string;
  display: string;
  supervisor_id: number | null;
  /** The employee's pay group: their timesheets are of its periods (CONTRACT 6.5). */
  group_id: number;
}

export interface Approval {
  status: 'open' | 'approved';
  approvedAt: string | null;
  approvedBy: string | null;
  /** Why an approved timesheet is open again (approved-numbers.ts, ReopenReason); null otherwise. */
  reopenedReason?: string | null;
}

export interface Sheet {
  employee: SheetEmployee;
  /** Every date of the period, zeros included. */
  days: DayHours[];
  openRecords: number;
  approval: Approval;
  /** The dates with paid leave or holiday hours (src/leave/days.ts); they count towards no overtime. */
  leave: DayLeaveHours[];
}

/** Employees per batch of a timesheet computation: one query of records per batch. */
export const SHEET_BATCH = 500;

const NOT_APPROVED: Approval = { status: 'open', approvedAt: null, approvedBy: null };

/** `[from 00:00:00, to + 1 00:00:00)` of in_time_local: the records counted on dates from..to. */
/** The wall-clock readings of from..to, both inclusive (the next day's midnight does not exist after 9999-12-31). */
function localRange(from: string, to: string): [string, string] {
  return [`${from} 00:00:00`, lastReadingOn(to)];
}

/**
 * The classified days of each employee of `ids` in an open period, from their records: one query
 * for all of them, each employee's rows through groupSheetClassifier (pay-rules) under their own
 * pay group's rules (`groups`, read here when the caller has not read them once for its whole
 * request), the path the published overtime vectors test. The query selects by `in_time_local`,
 * the date the record has on its own wall clock as it was written; the records of the first
 * workweek's earlier dates count towards the weekly and seventh-day rules.
 */
export async function classifiedDaysOf(
  db: Db,
  ids: readonly number[],
  period: { start: string; end: string },
  settings: PayPeriodSettings,
  groups?: GroupRulesBook,
): Promise<Map<number, SheetDays>> {
  const result = new Map<number, SheetDays>();
  if (ids.length === 0) return result;
  const first = workweekStartOf(period.start, settings.workweek_start);
  const [from, to] = localRange(first, period.end);
  const [rows, employees, book] = await Promise.all([
    db('attendance')
      .whereIn('employee_id', ids)
      .where('in_time_local', '>=', from)
      .where('in_time_local', '<=', to)
      // No order: a date's hours are classified from their sum (a meal break sorts its date's
      // records itself), and the (employee_id, in_time_local) index serves the ranges without a sort.
      .select('employee_id', 'in_time_utc', 'out_time_utc', 'timezone') as Promise<
      Array<StoredRecordTimes & { employee_id: number | string }>
    >,
    groupIdsOf(db, ids),
    groups ?? readGroupRules(db),
  ]);
  const byEmployee = new Map<number, StoredRecordTimes[]>();
  for (const row of rows) {
    const id = Number(row.employee_id);
    let list = byEmployee.get(id);
    if (!list) byEmployee.set(id, (list = []));
    list.push(row);
  }
  const classify = groupSheetClassifier(book, settings, { from: period.start, to: period.end });
  for (const id of ids) result.set(id, classify(employees.get(id) ?? null, byEmployee.get(id) ?? []));
  return result;
}

/** Each employee's pay group (employees.pay_group_id): one query. */
export async function groupIdsOf(db: Db, ids: readonly number[]): Promise<Map<number, number | null>> {
  const rows = (await db('employees').whereIn('id', ids).select('id', 'pay_group_id')) as Array<{
    id: number | string;
    pay_group_id: number | string | null;
  }>;
  return new Map(rows.map((row) => [Number(row.id), row.pay_group_id === null ? null : Number(row.pay_group_id)]));
}

/**
 * A snapshot's days: `[date, worked, regular, overtime, double_time, records, break_deducted]` for
 * each non-zero date; the 7th only when a meal break was deducted (absent: 0).
 */
type FrozenDay = [string, number, number, number, number, number, number?];

export function frozenDaysJson(days: readonly DayHours[]): string {
  const nonZero: FrozenDay[] = days
    .filter((day) => day.worked > 0 || day.records > 0)
    .map((day): FrozenDay => {
      const { date, worked, regular, overtime, double_time: doubleTime, records } = day;
      return day.break_deducted > 0
        ? [date, worked, regular, overtime, doubleTime, records, day.break_deducted]
        : [date, worked, regular, overtime, doubleTime, records];
    });
  return JSON.stringify(nonZero);
}

/** A snapshot's leave (`leave`, migration 0035): `[date, leave_hours, holiday_hours, code]` per date with paid hours. */
type FrozenLeaveDay = [string, number, number, string | null];

export function frozenLeaveJson(leave: readonly DayLeaveHours[]): string {
  return JSON.stringify(leave.map((day): FrozenLeaveDay => [day.date, day.leave_hours, day.holiday_hours, day.code]));
}

/**
 * The paid leave and holiday hours of locked snapshot rows, by employee: as frozen at the lock;
 * a row of a lock taken before migration 0035 (`leave` null) reads them live, as it always did.
 */
export async function snapshotLeaveOf(
  db: Db,
  rows: ReadonlyArray<{ employee_id?: unknown; leave?: unknown }>,
  period: { start: string; end: string },
): Promise<Map<number, DayLeaveHours[]>> {
  const leave = new Map<number, DayLeaveHours[]>();
  const unfrozen: number[] = [];
  for (const row of rows) {
    const id = Number(row.employee_id);
    if (row.leave == null) unfrozen.push(id);
    else
      leave.set(
        id,
        (JSON.parse(String(row.leave)) as FrozenLeaveDay[]).map(([date, leaveHours, holidayHours, code]) => ({
          date,
          leave_hours: leaveHours,
          holiday_hours: holidayHours,
          code,
        })),
      );
  }
  if (unfrozen.length > 0) for (const [id, days] of await readLeaveHours(db, unfrozen, period.start, period.end)) leave.set(id, days);
  return leave;
}

/** Every date of the period, from a snapshot's non-zero ones. */
export function daysFromFrozen(json: string, period: { start: string; end: string }): DayHours[] {
  const frozen = new Map((JSON.parse(json) as FrozenDay[]).map((day) => [day[0], day]));
  return datesOf(period).map((date) => {
    const day = frozen.get(date);
    return day
      ? { date, worked: day[1], regular: day[2], overtime: day[3], double_time: day[4], records: day[5], break_deducted: day[6] ?? 0 }
      : { date, worked: 0, regular: 0, overtime: 0, double_time: 0, records: 0, break_deducted: 0 };
  });
}

export function zeroDays(period: { start: string; end: string }): DayHours[] {
  return datesOf(period).map((date) => ({ date, worked: 0, regular: 0, overtime: 0, double_time: 0, records: 0, break_deducted: 0 }));
}

/** Criteria of a timesheet list (GET /timesheets). */
export interface SheetCriteria {
  visibleTo: Caller;
  /** The pay group whose period this is: its employees are listed. */
  groupId: number;
  employeeId?: number;
  departmentId?: number;
  status?: 'open' | 'approved';
}

const EMPLOYEE_COLUMNS = ['e.id', 'e.employee_id as code', 'e.first_name', 'e.last_name', 'e.supervisor_id', 'e.pay_group_id'];
const APPROVAL_COLUMNS = ['t.status as approval_status', 't.approved_at', 't.approved_by_name', 't.reopened_reason'];

/**
 * The employees a group's period's timesheets are listed for: every Active one of the group, and
 * any other of it with a record counted in the period. A locked period lists the employees frozen
 * at its lock.
 */
function sheetEmployeesQuery(db: Db, period: PayPeriod, criteria: SheetCriteria): Knex.QueryBuilder {
  const locked = period.status === 'locked';
  const query = locked
    ? db('pay_period_snapshots as s')
        .join('employees as e', 'e.id', 's.employee_id')
        .where({ 's.group_id': criteria.groupId, 's.period_start': period.start })
    : db('employees as e').where('e.pay_group_id', criteria.groupId);
  query.leftJoin('timesheet_approvals as t', (on) =>
    on.on('t.employee_id', 'e.id').andOnVal('t.group_id', criteria.groupId).andOnVal('t.period_start', period.start),
  );
  whereVisible(query, criteria.visibleTo);
  if (!locked) {
    const [from, to] = localRange(period.start, period.end);
    query.where((included) =>
      included
        .where('e.status', 'Active')
        .orWhereExists(
          db('attendance as a')
            .whereRaw('a.employee_id = e.id')
            .where('a.in_time_local', '>=', from)
            .where('a.in_time_local', '<=', to)
            .select(db.raw('1')),
        ),
    );
  }
  if (criteria.employeeId !== undefined) query.where('e.id', criteria.employeeId);
  if (criteria.departmentId !== undefined) query.where('e.department_id', criteria.departmentId);
  if (criteria.status !== undefined) {
    if (locked) query.where('s.timesheet_status', criteria.status);
    else if (criteria.status === 'approved') query.where('t.status', 'approved');
    else query.where((open) => open.whereNull('t.status').orWhereNot('t.status', 'approved'));
  }
  return query;
}

function approvalOf(row: Record<string, unknown>, frozenStatus?: unknown): Approval {
  const status = frozenStatus !== undefined ? String(frozenStatus) : row.approval_status == null ? 'open' : String(row.approval_status);
  if (status !== 'approved')
    return row.reopened_reason == null ? NOT_APPROVED : { ...NOT_APPROVED, reopenedReason: String(row.reopened_reason) };
  return {
    status: 'approved',
    approvedAt: row.approved_at == null ? null : sqlDateTimeToIso(String(row.approved_at)),
    approvedBy: row.approved_by_name == null ? null : String(row.approved_by_name),
  };
}

function sheetEmployeeOf(row: Record<string, unknown>): SheetEmployee {
  return {
    id: Number(row.id),
    code: String(row.frozen_code ?? row.code),
    display: employeeDisplayOf(row),
    supervisor_id: row.supervisor_id == null ? null : Number(row.supervisor_id),
    group_id: row.pay_group_id == null ? 1 : Number(row.pay_group_id),
  };
}

/**
 * A page of a period's timesheets: the employees (one query, their approvals joined), the total,
 * and the days of the page's employees (one query of records, or of snapshots when locked).
 */
export async function listSheets(
  db: Db,
  period: PayPeriod,
  settings: PayPeriodSettings,
  criteria: SheetCriteria,
  page: { limit: number; offset: number },
  totalOf: (count: () => Promise<number>) => Promise<number> = (count) => count(),
): Promise<{ sheets: Sheet[]; total: number; hasMore: boolean }> {
  const locked = period.status === 'locked';
  const columns = [
    ...EMPLOYEE_COLUMNS,
    ...APPROVAL_COLUMNS,
    ...(locked ? ['s.employee_code as frozen_code', 's.timesheet_status as frozen_status', 's.open_records', 's.days', 's.leave'] : []),
  ];
  // The count runs beside the page and its records: three queries, two round trips.
  // One row more than the page says exactly whether another follows, whatever the total's age.
  let hasMore = false;
  // A locked period's leave as frozen at its lock (snapshotLeaveOf), an open one's read below.
  let frozenLeave: Map<number, DayLeaveHours[]> | undefined;
  const [total, sheetsWithoutLeave] = await Promise.all([
    totalOf(async () => {
      const counted = (await sheetEmployeesQuery(db, period, criteria).count({ total: '*' })) as Array<{ total: number | string }>;
      return Number(counted[0]?.total ?? 0);
    }),
    (async (): Promise<Sheet[]> => {
      const rows = (await sheetEmployeesQuery(db, period, criteria)
        .orderBy('e.id')
        .limit(page.limit + 1)
        .offset(page.offset)
        .select(columns)) as Array<Record<string, unknown>>;
      hasMore = rows.length > page.limit;
      if (hasMore) rows.pop();
      if (locked) {
        frozenLeave = await snapshotLeaveOf(
          db,
          rows.map((row) => ({ employee_id: row.id, leave: row.leave })),
          period,
        );
        return rows.map((row) => ({
          employee: sheetEmployeeOf(row),
          days: daysFromFrozen(String(row.days), period),
          openRecords: Number(row.open_records),
          approval: approvalOf(row, row.frozen_status),
          leave: [],
        }));
      }
      const counts = await classifiedDaysOf(
        db,
        rows.map((row) => Number(row.id)),
        period,
        settings,
      );
      return rows.map((row) => {
        const { days, openRecords } = counts.get(Number(row.id)) ?? { days: zeroDays(period), openRecords: 0 };
        return { employee: sheetEmployeeOf(row), days, openRecords, approval: approvalOf(row), leave: [] };
      });
    })(),
  ]);
  const leave =
    frozenLeave ??
    (await readLeaveHours(
      db,
      sheetsWithoutLeave.map((sheet) => sheet.employee.id),
      period.start,
      period.end,
    ));
  const sheets = sheetsWithoutLeave.map((sheet) => ({ ...sheet, leave: leave.get(sheet.employee.id) ?? [] }));
  return { sheets, total, hasMore };
}

/** One employee's timesheet of a period (any employee: the caller's access is checked before). */
export async function findSheet(db: Db, employee: SheetEmployee, period: PayPeriod, settings: PayPeriodSettings): Promise<Sheet> {
  if (period.status === 'locked') {
    const row = (await db('pay_period_snapshots as s')
      .leftJoin('timesheet_approvals as t', (on) =>
        on.on('t.employee_id', 's.employee_id').andOn('t.group_id', 's.group_id').andOn('t.period_start', 's.period_start'),
      )
      .where({ 's.group_id': employee.group_id, 's.period_start': period.start, 's.employee_id': employee.id })
      .first(['s.employee_code', 's.timesheet_status', 's.open_records', 's.days', 's.leave', ...APPROVAL_COLUMNS])) as
      Record<string, unknown> | undefined;
    // An employee who was not in the period when it was locked has nothing in it.
    if (!row) return { employee, days: zeroDays(period), openRecords: 0, approval: NOT_APPROVED, leave: [] };
    const leave = await snapshotLeaveOf(db, [{ employee_id: employee.id, leave: row.leave }], period);
    return {
      employee: { ...employee, code: String(row.employee_code) },
      days: daysFromFrozen(String(row.days), period),
      openRecords: Number(row.open_records),
      approval: approvalOf(row, row.timesheet_status),
      leave: leave.get(employee.id) ?? [],
    };
  }
  const [counts, approvalRow, leave] = await Promise.all([
    classifiedDaysOf(db, [employee.id], period, settings),
    db('timesheet_approvals as t')
      .where({ 't.employee_id': employee.id, 't.group_id': employee.group_id, 't.period_start': period.start })
      .first(APPROVAL_COLUMNS) as Promise<Record<string, unknown> | undefined>,
    readLeaveHours(db, [employee.id], period.start, period.end),
  ]);
  const { days, openRecords } = counts.get(employee.id) ?? { days: zeroDays(period), openRecords: 0 };
  return {
    employee,
    days,
    openRecords,
    approval: approvalRow ? approvalOf(approvalRow) : NOT_APPROVED,
    leave: leave.get(employee.id) ?? [],
  };
}

/** The employee of a timesheet path: any employee row (the caller's access is checked after). */
export async function findSheetEmployee(db: Db, id: number): Promise<SheetEmployee | undefined> {
  const row = (await db('employees as e').where('e.id', id).first(EMPLOYEE_COLUMNS)) as Record<string, unknown> | undefined;
  return row && sheetEmployeeOf(row);
}

/** The answer's shape (docs/pay-periods.md, "Timesheets"); without `days` in lists. */
export function sheetResponse(sheet: Sheet, period: PayPeriod, withDays: boolean): Record<string, unknown> {
  const totals = totalsOf(sheet.days);
  const leaveOf = new Map(sheet.leave.map((day) => [day.date, day]));
  const sum = (field: 'leave_hours' | 'holiday_hours') => Math.round(sheet.leave.reduce((total, day) => total + day[field], 0) * 100) / 100;
  return {
    employee: { type: 'Employee', id: String(sheet.employee.id), display: sheet.employee.display },
    period: { start: period.start, end: period.end, status: period.status },
    status: sheet.approval.status,
    approved_at: sheet.approval.approvedAt,
    approved_by: sheet.approval.approvedBy,
    reopened_reason: sheet.approval.reopenedReason ?? null,
    ...(withDays && {
      days: sheet.days.map((day) => ({
        date: day.date,
        worked_hours: hoursOf(day.worked),
        regular_hours: hoursOf(day.regular),
        overtime_hours: hoursOf(day.overtime),
        double_time_hours: hoursOf(day.double_time),
        break_deducted_hours: hoursOf(day.break_deducted),
        records: day.records,
        leave_hours: leaveOf.get(day.date)?.leave_hours ?? 0,
        holiday_hours: leaveOf.get(day.date)?.holiday_hours ?? 0,
        code: leaveOf.get(day.date)?.code ?? null,
      })),
    }),
    totals: {
      worked_hours: hoursOf(totals.worked),
      regular_hours: hoursOf(totals.regular),
      overtime_hours: hoursOf(totals.overtime),
      double_time_hours: hoursOf(totals.double_time),
      leave_hours: sum('leave_hours'),
      holiday_hours: sum('holiday_hours'),
    },
    open_records: sheet.openRecords,
  };
}
