import { type Db, dialectOf } from '../db/connect';
import { parameter, preparedQuery } from '../db/driver-statements';
import { lastReadingOn } from '../time';
import { ConflictError } from '../errors';
import { markAttendanceChanges } from './change-marks';
import { type GuardContext, reopenApproved, reopenTimesheets } from './reopen';
import { addDays, type Period, workweekStartOf } from '../pay-rules/periods';
import { DEFAULT_GROUP_ID, findDefaultGroup, findPayGroup } from '../pay-groups/repository';
import { DEFAULT_GROUP_RULES, type Weekday } from '../pay-rules/settings';

// The guard of every attendance write (docs/pay-periods.md, "Locking a period"; docs/scaling.md,
// "Pay-period locks"): a write whose record counts on a date of a locked period is refused, and
// one that changes an approved timesheet's hours sends it back to open.

/**
 * What the guard read for one employee: the locked periods and the approved timesheets among the
 * dates asked about. `workweekStart` is set when the rules carry hours across a workweek (a weekly
 * or seventh-day rule) and a lock starts within a week after one of the dates: a record dated
 * before a locked period then changes the period's numbers through the workweek they share.
 */
export interface PeriodState {
  locks: Period[];
  approved: Period[];
  workweekStart?: Weekday;
  /** With workweekStart: the dates of the locked periods' first weeks holding a record of the employee. */
  recorded?: ReadonlySet<string>;
}

/** What deciding one employee's dates needs (lockedPeriodOf, firstLockedDate). */
export type LockView = Pick<PeriodState, 'locks' | 'workweekStart' | 'recorded'>;

const contains = (range: Period, date: string) => range.start <= date && date <= range.end;

/** Days from a workweek's first day to its last; a lock that begins within them after a date shares its workweek. */
const WEEK_AFTER = 6;

/**
 * The locked period whose numbers a record counted on `date` may change, if any: the one the
 * date falls in, or (with `workweekStart`) one that begins later in the date's workweek when the
 * employee has a record in it between its start and that workweek's end: the weekly and
 * seventh-day rules classify those by the hours before them (docs/pay-periods.md, "Frozen").
 */
export function lockedPeriodOf(state: LockView, date: string): Period | undefined {
  const holding = state.locks.find((lock) => contains(lock, date));
  if (holding || state.workweekStart === undefined) return holding;
  const weekEnd = addDays(workweekStartOf(date, state.workweekStart), WEEK_AFTER);
  const recorded = [...(state.recorded ?? [])];
  return state.locks.find(
    (lock) => date < lock.start && lock.start <= weekEnd && recorded.some((day) => lock.start <= day && day <= weekEnd),
  );
}

/** The first of `dates` (in the order given) whose records a locked period's numbers depend on, with that period. */
export function firstLockedDate(state: LockView, dates: readonly string[]): { date: string; period: Period } | undefined {
  for (const date of dates) {
    const period = lockedPeriodOf(state, date);
    if (period) return { date, period };
  }
  return undefined;
}

/** The refusal of a write into a locked period: 409 period_locked, naming the period and the date. */
export function periodLockedError(locked: { date: string; period: Period }): ConflictError {
  return new ConflictError({
    code: 'period_locked',
    title: 'Pay period locked',
    detail: periodLockedMessage(locked),
  });
}

/** One sentence for a refusal (the 409's detail, a terminal entry's message, an import report line). */
export function periodLockedMessage(locked: { date: string; period: Period }): string {
  const { start, end } = locked.period;
  if (locked.date < start) {
    return `The pay period ${start} to ${end} is locked: attendance that counts on ${locked.date} is in a workweek that continues into it, and its weekly and seventh-day hours cannot change until the period is unlocked`;
  }
  return `The pay period ${start} to ${end} is locked: attendance that counts on ${locked.date} cannot change until the period is unlocked`;
}

/** The date `days` after `date`, held within the calendar's last date. */
function datePlus(date: string, days: number): string {
  return date >= '9999-12-25' ? '9999-12-31' : addDays(date, days);
}

/**
 * The workweek's first day when the pay group's stored rules carry hours across a workweek (a
 * weekly or a seventh-day rule), else undefined: read only when a lock begins within a week after
 * a date. Group 1's for a group that is gone (an employee's group always exists).
 */
async function workweekCarryingHours(trx: Db, groupId: number): Promise<Weekday | undefined> {
  const group = (await findPayGroup(trx, groupId)) ?? (await findDefaultGroup(trx)) ?? DEFAULT_GROUP_RULES;
  const { weekly_after_hours: weekly, seventh_day: seventhDay } = group.overtime;
  return weekly !== null || seventhDay ? group.workweek_start : undefined;
}

/** Valid 'YYYY-MM-DD' dates only, deduplicated and sorted: the bounds of the one read. */
function datesAsked(dates: readonly string[]): string[] {
  return [...new Set(dates.filter((date) => /^\d{4}-\d{2}-\d{2}$/.test(date)))].sort();
}

// The guard's read, prepared (a punch pays it): the locks of the employee's pay group overlapping
// [from, to] and the employee's approved timesheets overlapping it, in one UNION ALL. Arguments:
// from, to, employee, from, to (each `to` a week after the last date: a period beginning by then
// may share its workweek). Employee 0 (an open shift, nobody's yet): every group's locks.
const readPeriodState = preparedQuery((db) => {
  const locks = db('pay_period_locks')
    .where('period_start', '<=', parameter(1))
    .where('period_end', '>=', parameter(0))
    .where((group) =>
      group.whereIn('group_id', db('employees').where('id', parameter(2)).select('pay_group_id')).orWhereRaw('? = 0', [parameter(2)]),
    )
    .select([db.raw("'lock' as kind"), 'period_start', 'period_end']);
  const approved = db('timesheet_approvals')
    .where('employee_id', parameter(2))
    .where('status', 'approved')
    .where('period_start', '<=', parameter(4))
    .where('period_end', '>=', parameter(3))
    .select([db.raw("'approved' as kind"), 'period_start', 'period_end']);
  // SQLite takes no parentheses around the parts of a UNION.
  return db.queryBuilder().unionAll([locks, approved], dialectOf(db) === 'mysql');
});

/**
 * The locked periods of the employee's pay group and the employee's approved timesheets that
 * contain one of `dates`, in one round trip. Call it after the employee's row is locked (lockAttendanceEmployee): the lock of a
 * period writes every employee's row first, so this read sees any lock that committed before the
 * write got its employee, and a lock that comes later waits for the write (docs/scaling.md).
 */
export async function readPeriodStateOf(trx: Db, employeeId: number, dates: readonly string[]): Promise<PeriodState> {
  const asked = datesAsked(dates);
  if (asked.length === 0) return { locks: [], approved: [] };
  const from = asked[0] as string;
  const to = asked[asked.length - 1] as string;
  // Locks up to a week after the last date: one may share a workweek with it.
  const until = datePlus(to, WEEK_AFTER);
  const rows = await readPeriodState(trx, [from, until, employeeId, from, until]);
  const state: PeriodState = { locks: [], approved: [] };
  const approved: Period[] = [];
  for (const row of rows) {
    const range = { start: String(row.period_start).slice(0, 10), end: String(row.period_end).slice(0, 10) };
    (row.kind === 'lock' ? state.locks : approved).push(range);
  }
  if ([...state.locks, ...approved].some((period) => from < period.start))
    state.workweekStart = await workweekCarryingHours(trx, (await groupsOf(trx, [employeeId])).get(employeeId) ?? DEFAULT_GROUP_ID);
  const laterLocks = state.locks.filter((lock) => from < lock.start);
  if (state.workweekStart !== undefined && laterLocks.length > 0) {
    state.recorded = (await recordedInFirstWeeks(trx, [employeeId], laterLocks)).get(employeeId) ?? new Set();
  }
  // The read takes the timesheets up to a week past the dates; those holding one of them count,
  // and those a workweek of one of them continues into (its weekly hours may change).
  state.approved = approved.filter((range) => asked.some((date) => holdsOrContinues(range, date, state.workweekStart)));
  return state;
}

/** The period holds the date, or (with a workweek carrying hours) begins later in the date's workweek. */
function holdsOrContinues(period: Period, date: string, workweekStart: Weekday | undefined): boolean {
  if (contains(period, date)) return true;
  return workweekStart !== undefined && date < period.start && period.start <= addDays(workweekStartOf(date, workweekStart), WEEK_AFTER);
}

/**
 * Per employee, the dates in the first week of these locked periods on which they have a record:
 * what lockedPeriodOf needs to tell whether an earlier date of the workweek changes the period's
 * numbers. One read on the (employee_id, in_time_local) index.
 */
async function recordedInFirstWeeks(trx: Db, employeeIds: readonly number[], locks: readonly Period[]): Promise<Map<number, Set<string>>> {
  const recorded = new Map<number, Set<string>>();
  for (let at = 0; at < employeeIds.length; at += 500) {
    const rows = (await trx('attendance')
      .whereIn('employee_id', employeeIds.slice(at, at + 500))
      .where((any) => {
        for (const lock of locks)
          any.orWhereBetween('in_time_local', [`${lock.start} 00:00:00`, lastReadingOn(datePlus(lock.start, WEEK_AFTER))]);
      })
      .select('employee_id', 'in_time_local')) as Array<{ employee_id: number; in_time_local: unknown }>;
    for (const row of rows) {
      const dates = recorded.get(Number(row.employee_id)) ?? new Set<string>();
      dates.add(String(row.in_time_local).slice(0, 10));
      recorded.set(Number(row.employee_id), dates);
    }
  }
  return recorded;
}

/**
 * The guard of an attendance write, called in its transaction right after the employee's row is
 * locked, with the dates the record counts on (its in_time date on its own wall clock, rule 1 of
 * docs/pay-periods.md) before and after the write:
 * - a date whose records a locked period's numbers depend on (lockedPeriodOf): 409
 *   period_locked, and the caller writes nothing;
 * - else, with `reopen` (the write may change hours: every write but a change of notes or
 *   positions alone), the months of the dates are marked changed (change-marks.ts), and the
 *   function answered, called by the caller AFTER its write, sends the employee's approved
 *   timesheets holding one of the dates, or that a workweek of one of them continues into, back
 *   to open when the write changed their numbers (reopenTimesheets), audited, with the event
 *   timesheet.reopened.
 */
export async function guardAttendanceWrite(
  trx: Db,
  employeeId: number,
  dates: readonly string[],
  context: GuardContext,
  options: { reopen?: boolean | 'leave' } = {},
): Promise<() => Promise<void>> {
  const state = await readPeriodStateOf(trx, employeeId, dates);
  const locked = firstLockedDate(state, dates);
  if (locked) throw periodLockedError(locked);
  if (options.reopen === false) return async () => {};
  await markAttendanceChanges(trx, [{ employeeId, dates }]);
  // Leave moves the leave hours of the timesheets it lies in, which the classification's numbers do not hold.
  if (options.reopen === 'leave') {
    const holding = state.approved.filter((period) => dates.some((date) => period.start <= date && date <= period.end));
    return () =>
      reopenApproved(
        trx,
        holding.map((period) => ({ employeeId, period })),
        context,
        'leave_changed',
      );
  }
  // After the write: the approved timesheets whose numbers it changed go back to open.
  return () =>
    state.approved.length === 0 ? Promise.resolve() : reopenTimesheets(trx, [{ employeeId, periods: state.approved }], context);
}

/** Each employee's pay group (employees.pay_group_id); employees that do not exist are left out. */
async function groupsOf(trx: Db, employeeIds: readonly number[]): Promise<Map<number, number>> {
  const groups = new Map<number, number>();
  for (let at = 0; at < employeeIds.length; at += 500) {
    const rows = (await trx('employees')
      .whereIn('id', employeeIds.slice(at, at + 500))
      .select('id', 'pay_group_id')) as Array<{ id: number | string; pay_group_id: number | string }>;
    for (const row of rows) groups.set(Number(row.id), Number(row.pay_group_id));
  }
  return groups;
}

/**
 * The non-throwing guard, for writes that go on without the refused part (a terminal batch's
 * entries, the import's records): the locks (each of its pay group) and approved timesheets of
 * several employees among the dates from..to, in one round trip; check each change against it
 * with firstLockedDate (`of(employee)`: the locks of the employee's group), then reopen the
 * timesheets the changes that go ahead touch (reopenTimesheets).
 */
export async function readPeriodStates(trx: Db, employeeIds: readonly number[], span: Period): Promise<PeriodStates> {
  const locksQuery = trx('pay_period_locks')
    .where('period_start', '<=', datePlus(span.end, WEEK_AFTER))
    .where('period_end', '>=', span.start)
    .select([trx.raw("'lock' as kind"), trx.raw('group_id as employee_id'), 'period_start', 'period_end']);
  const parts = [locksQuery];
  for (let at = 0; at < employeeIds.length; at += 500) {
    parts.push(
      trx('timesheet_approvals')
        .whereIn('employee_id', employeeIds.slice(at, at + 500))
        .where('status', 'approved')
        .where('period_start', '<=', datePlus(span.end, WEEK_AFTER))
        .where('period_end', '>=', span.start)
        .select([trx.raw("'approved' as kind"), 'employee_id', 'period_start', 'period_end']),
    );
  }
  const rows = (parts.length === 1 ? await parts[0] : await trx.queryBuilder().unionAll(parts, dialectOf(trx) === 'mysql')) as Array<
    Record<string, unknown>
  >;
  const states = new PeriodStates();
  for (const row of rows) {
    const range = { start: String(row.period_start).slice(0, 10), end: String(row.period_end).slice(0, 10) };
    // A lock row's employee_id column carries its group_id (one UNION, one shape).
    if (row.kind === 'lock') states.addLock(Number(row.employee_id), range);
    else states.approvedOf(Number(row.employee_id)).push(range);
  }
  const laterLocks = states.locks.filter((lock) => span.start < lock.start);
  const laterApproved = rows.some((row) => row.kind === 'approved' && span.start < String(row.period_start).slice(0, 10));
  if (states.locks.length > 0 || laterApproved) for (const [id, group] of await groupsOf(trx, employeeIds)) states.groupOf.set(id, group);
  if (laterLocks.length > 0 || laterApproved) {
    for (const group of new Set([DEFAULT_GROUP_ID, ...states.groupOf.values()]))
      states.workweeks.set(group, await workweekCarryingHours(trx, group));
  }
  if ([...states.workweeks.values()].some((weekday) => weekday !== undefined) && laterLocks.length > 0)
    states.recorded = await recordedInFirstWeeks(trx, employeeIds, laterLocks);
  return states;
}

/** The locks of a span (per pay group) and the approved timesheets of several employees (readPeriodStates). */
export class PeriodStates {
  /** Every group's locks of the span: none means no write of the span can be refused. */
  readonly locks: Period[] = [];
  private readonly locksByGroup = new Map<number, Period[]>();
  /** Each employee's pay group (read when there is a lock or a later approval); 1 when not read. */
  readonly groupOf = new Map<number, number>();
  /** Per pay group, the workweek's first day when its rules carry hours across a workweek. */
  readonly workweeks = new Map<number, Weekday | undefined>();
  recorded = new Map<number, ReadonlySet<string>>();

  addLock(groupId: number, range: Period): void {
    this.locks.push(range);
    const list = this.locksByGroup.get(groupId) ?? [];
    list.push(range);
    this.locksByGroup.set(groupId, list);
  }

  private groupOfEmployee(employeeId: number): number {
    return this.groupOf.get(employeeId) ?? DEFAULT_GROUP_ID;
  }

  /** The view of one employee's dates (the locks of their pay group), for lockedPeriodOf and firstLockedDate. */
  of(employeeId: number): LockView {
    const group = this.groupOfEmployee(employeeId);
    return { locks: this.locksByGroup.get(group) ?? [], workweekStart: this.workweeks.get(group), recorded: this.recorded.get(employeeId) };
  }
  private readonly approved = new Map<number, Period[]>();

  approvedOf(employeeId: number): Period[] {
    let list = this.approved.get(employeeId);
    if (!list) {
      list = [];
      this.approved.set(employeeId, list);
    }
    return list;
  }

  /** The employee's approved timesheets that hold one of `dates`, or that a workweek of one of them continues into. */
  approvedHolding(employeeId: number, dates: Iterable<string>): Period[] {
    const all = [...dates];
    const workweekStart = this.workweeks.get(this.groupOfEmployee(employeeId));
    return (this.approved.get(employeeId) ?? []).filter((range) => all.some((date) => holdsOrContinues(range, date, workweekStart)));
  }
}

/**
 * Deleting an employee takes their attendance with it: refused (409 period_locked) while one of
 * their records counts in a locked period of their pay group, as a DELETE of that record would
 * be. Moving them to another pay group asks the same of the locked periods of both groups
 * (`groupIds`). Called after the employee's row is locked, so no attendance write of theirs runs
 * meanwhile.
 */
export async function assertNoLockedAttendance(trx: Db, employeeId: number, groupIds?: readonly number[]): Promise<void> {
  const groups = groupIds ?? [(await groupsOf(trx, [employeeId])).get(employeeId) ?? DEFAULT_GROUP_ID];
  const query = trx('pay_period_locks')
    .select('period_start', 'period_end')
    .whereIn('group_id', [...new Set(groups)]);
  const locks = (await query) as Array<{ period_start: string; period_end: string }>;
  if (locks.length === 0) return;
  const ranges = locks.map((row) => ({ start: String(row.period_start).slice(0, 10), end: String(row.period_end).slice(0, 10) }));
  // in_time_local is the record's wall clock: its date is the date it counts on.
  const first = (await trx('attendance')
    .where('employee_id', employeeId)
    .where((any) => {
      for (const range of ranges) any.orWhereBetween('in_time_local', [`${range.start} 00:00:00`, `${range.end} 23:59:59.999`]);
    })
    .orderBy('in_time_local')
    .first('in_time_local')) as { in_time_local: string } | undefined;
  if (!first) return;
  const date = String(first.in_time_local).slice(0, 10);
  throw periodLockedError({ date, period: ranges.find((range) => contains(range, date))! });
}
