import type { Caller } from '../caller';
import { writeAudit } from '../audit/repository';
import type { Db } from '../db/connect';
import { asUniqueViolation } from '../db/constraint-errors';
import { retryConflicts } from '../db/retry-conflicts';
import { toSqlDateTime } from '../db/sql-time';
import { ConflictError, type FieldError, NotFoundError } from '../errors';
import { markMissedPunchOuts } from '../attendance/missed-punch-outs';
import { periodStartingOn } from '../pay-rules/periods';
import { dayNumber, isCalendarDate, isTimeZone, lastReadingOn, todayIn } from '../time';
import { recordEvents } from '../webhooks/outbox';
import { type OpenRecord, openRecordsRefusal, unclosedRecordsOf } from './open-records';
import { findLockedPeriod, type PayPeriod } from './periods';
import { readPeriodGroup } from './settings';
import { DEFAULT_GROUP_ID } from '../pay-groups/repository';
import { employeeFieldsOf, frozenFieldsJson } from './export-fields';
import { readGroupRules } from '../pay-groups/repository';
import { classifiedDaysOf, frozenDaysJson, frozenLeaveJson, SHEET_BATCH } from './timesheets';
import { paidLeaveIn, readLeaveHours } from '../leave/days';

/** Who locks or unlocks, when, and (over HTTP) the request: the audit row and the events say it. */
export interface LockContext {
  /** undefined for `hrm pay-period lock|unlock` (the audit row then names no user). */
  caller: Caller | undefined;
  now: Date;
  requestId?: string;
}

/** A lock's context: also the instance's default_timezone, the wall clock of an employee whose own zone is unusable. */
export type LockingContext = LockContext & { defaultTimezone: string };

/** What a lock is asked to do besides locking (query parameters, CLI options). */
export interface LockOptions {
  /** 409 unapproved_timesheets while a timesheet with hours is not approved. */
  requireApproved?: boolean;
  /** Lock despite open records, making them missed punch-outs (else 409 open_records). */
  allowOpenRecords?: boolean;
}

/** The lock's answer: the period, and (only when there are some) its records without an out_time. */
export type LockedPayPeriod = PayPeriod & { open_records?: OpenRecord[] };

/** An audit row's and an event's id of a period: its start date as a number (2026-01-01 -> 20260101). */
export function periodEntityId(start: string): number {
  return Number(start.replace(/-/g, ''));
}

/**
 * The wall clocks a group's period end is read on (docs/pay-periods.md, "Period end, step by
 * step"): the time zone of every employee of the group, and the instance's default for one the
 * process cannot read (or when the group has no employees). A few hundred zones at most.
 */
async function employeeTimeZones(trx: Db, defaultTimezone: string, groupId: number): Promise<string[]> {
  const fallback = isTimeZone(defaultTimezone) ? defaultTimezone : 'UTC';
  const stored = (await trx('employees').where('pay_group_id', groupId).distinct('timezone').pluck('timezone')) as string[];
  const zones = new Set(stored.map((zone) => (isTimeZone(String(zone)) ? String(zone) : fallback)));
  return zones.size === 0 ? [fallback] : [...zones].sort();
}

/**
 * Where the period has not ended yet: a zone whose wall clock still shows its end or an earlier
 * date (the one furthest behind), or undefined once the next day has begun on every one. Compared
 * as day numbers: the calendar's last period ends on 9999-12-31, which never ends.
 */
async function notEndedIn(
  trx: Db,
  period: { end: string },
  context: Pick<LockingContext, 'now' | 'defaultTimezone'>,
  groupId: number,
): Promise<{ zone: string; today: string } | undefined> {
  let behind: { zone: string; today: string } | undefined;
  for (const zone of await employeeTimeZones(trx, context.defaultTimezone, groupId)) {
    const today = todayIn(zone, context.now);
    if (dayNumber(today) <= dayNumber(period.end) && (!behind || dayNumber(today) < dayNumber(behind.today))) behind = { zone, today };
  }
  return behind;
}

/** At most this many employees are named in a 409 unapproved_timesheets (the detail gives the count). */
const MAX_LISTED_UNAPPROVED = 100;

/**
 * Locks the period of pay group `groupId` starting on `start`, in the caller's transaction `trx`,
 * which must not have read anything yet (docs/pay-periods.md, "Locking", "Groups"):
 * 1. FIRST, every employee's attendance_version + 1. On one server this waits for every
 *    attendance write in flight (each holds its employee's row) and makes later ones wait for this
 *    transaction; on Galera it puts every employee row in the write set, so that the lock and
 *    any concurrent attendance write certify-conflict and one of them is retried. No consistent
 *    read comes before it, so the snapshot below sees every write that committed first.
 * 2. 400 naming `group` for a group that does not exist; 404 when none of the group's periods
 *    starts on `start`; 409 `period_locked` when it (or a period of an earlier layout of the group
 *    overlapping it) is locked; 409 `period_not_ended` until the day after its end has begun on
 *    the wall clock of every employee of the group; 409 `open_records` while a record of theirs
 *    counted in it has no out_time and is not yet a missed punch-out, unless `allowOpenRecords`.
 * 3. The lock row, with the period's dates; the open records made missed punch-outs.
 * 4. Every timesheet of the group's employees (Active ones, and others with a record or approved
 *    paid leave in the period), leave and holiday hours included, frozen in pay_period_snapshots,
 *    in batches; with `requireApproved`, 409 `unapproved_timesheets` when a timesheet with worked
 *    hours is not approved (the transaction then rolls back whole).
 * 5. The audit row and the event `pay_period.locked`, listing the records without an out_time.
 */
export async function lockPayPeriod(
  trx: Db,
  start: string,
  context: LockingContext & LockOptions,
  groupId = DEFAULT_GROUP_ID,
): Promise<LockedPayPeriod> {
  await trx('employees').update({ attendance_version: trx.raw('attendance_version + 1') });

  const { settings } = await readPeriodGroup(trx, groupId);
  if (!isCalendarDate(start)) throw new NotFoundError({ detail: 'No pay period starts on that date' });
  const already = await findLockedPeriod(trx, start, groupId);
  if (already)
    throw new ConflictError({
      code: 'period_locked',
      detail: `The pay period ${already.start} to ${already.end} is already locked (since ${already.locked_at})`,
    });
  const dates = periodStartingOn(settings, start);
  if (!dates) throw new NotFoundError({ detail: 'No pay period starts on that date' });
  const overlapping = (await trx('pay_period_locks')
    .where('group_id', groupId)
    .whereNot('period_start', dates.start)
    .andWhere('period_start', '<=', dates.end)
    .andWhere('period_end', '>=', dates.start)
    .first('period_start', 'period_end')) as { period_start: string; period_end: string } | undefined;
  if (overlapping)
    throw new ConflictError({
      code: 'period_locked',
      detail: `Its dates overlap the locked pay period starting ${String(overlapping.period_start).slice(0, 10)}; unlock that one first`,
    });
  const behind = await notEndedIn(trx, dates, context, groupId);
  if (behind)
    throw new ConflictError({
      code: 'period_not_ended',
      detail: `The pay period ends on ${dates.end}; it may be locked once the next day has begun on the wall clock of every employee of its pay group (it is ${behind.today} in ${behind.zone})`,
    });
  const open = await unclosedRecordsOf(trx, dates, 'open', groupId);
  if (open.length > 0 && !context.allowOpenRecords) throw openRecordsRefusal(open);

  const lockedAt = toSqlDateTime(context.now);
  const lockedByName = context.caller?.username ?? 'cli';
  // Versions keep counting across unlocks: the period's earlier locks stay in pay_period_lock_versions.
  const lockVersion = await nextLockVersion(trx, dates.start, groupId);
  await trx('pay_period_lock_versions').insert({
    group_id: groupId,
    period_start: dates.start,
    lock_version: lockVersion,
    period_end: dates.end,
    locked_at: lockedAt,
    locked_by_name: lockedByName,
  });
  const lockRow = {
    group_id: groupId,
    period_start: dates.start,
    period_end: dates.end,
    locked_at: lockedAt,
    locked_by: context.caller?.userId ?? null,
    locked_by_name: lockedByName,
    state: 'locked',
    lock_version: lockVersion,
  };
  // The row of the first step (claimPayPeriodLock), when it ran; else this is the only step.
  const claimed = await trx('pay_period_locks').where({ group_id: groupId, period_start: dates.start, state: 'locking' }).update(lockRow);
  if (claimed === 0) await trx('pay_period_locks').insert(lockRow);
  await markMissedPunchOuts(
    trx,
    open.map((record) => record.id),
    context,
  );

  const unapproved: FieldError[] = [];
  let unapprovedCount = 0;
  let after = 0;
  // Every group's rules, once for the lock: each employee's snapshot is of their group's rules.
  const groups = await readGroupRules(trx);
  for (;;) {
    const [from, to] = [`${dates.start} 00:00:00`, lastReadingOn(dates.end)];
    const employees = (await trx('employees as e')
      .leftJoin('timesheet_approvals as t', (on) =>
        on.on('t.employee_id', 'e.id').andOnVal('t.group_id', groupId).andOnVal('t.period_start', dates.start),
      )
      // The group's employees only: each timesheet is of its employee's group (CONTRACT 6.5).
      .where('e.pay_group_id', groupId)
      .where('e.id', '>', after)
      .where((included) =>
        included
          .where('e.status', 'Active')
          .orWhereExists(
            trx('attendance as a')
              .whereRaw('a.employee_id = e.id')
              .where('a.in_time_local', '>=', from)
              .where('a.in_time_local', '<=', to)
              .select(trx.raw('1')),
          )
          // Approved paid leave is paid without a record, also to one no longer Active (as the open export does).
          .orWhereExists(paidLeaveIn(trx, dates).whereRaw('d.live_employee_id = e.id').select(trx.raw('1'))),
      )
      .orderBy('e.id')
      .limit(SHEET_BATCH)
      .select('e.id', 'e.employee_id as code', 't.status as approval_status')) as Array<{
      id: number | string;
      code: string;
      approval_status: string | null;
    }>;
    if (employees.length === 0) break;
    after = Number(employees[employees.length - 1]!.id);
    const ids = employees.map((employee) => Number(employee.id));
    const [counts, fields, leave] = await Promise.all([
      classifiedDaysOf(trx, ids, dates, settings, groups),
      employeeFieldsOf(trx, ids),
      readLeaveHours(trx, ids, dates.start, dates.end),
    ]);
    const rows = employees.map((employee) => {
      const id = Number(employee.id);
      const { days, openRecords } = counts.get(id)!;
      const status = employee.approval_status === 'approved' ? 'approved' : 'open';
      if (status !== 'approved' && days.some((day) => day.worked > 0)) {
        unapprovedCount += 1;
        if (unapproved.length < MAX_LISTED_UNAPPROVED)
          unapproved.push({ field: 'employee', message: `${id} (${employee.code}) has hours and is not approved` });
      }
      return {
        group_id: groupId,
        period_start: dates.start,
        employee_id: id,
        employee_code: employee.code,
        timesheet_status: status,
        open_records: openRecords,
        days: frozenDaysJson(days),
        // Leave and holiday hours as they are at the lock: later changes of holidays, leave types
        // or the leave settings move no locked number (docs/leave.md, "Locked periods").
        leave: frozenLeaveJson(leave.get(id) ?? []),
        // Names and ids as they are at the lock: export profiles write them (byte-identical files).
        employee_fields: fields.has(id) ? frozenFieldsJson(fields.get(id)!) : null,
      };
    });
    if (context.requireApproved && unapprovedCount > 0) continue;
    await trx('pay_period_snapshots').insert(rows);
  }
  if (context.requireApproved && unapprovedCount > 0)
    throw new ConflictError({
      code: 'unapproved_timesheets',
      detail: `${unapprovedCount} timesheet${unapprovedCount === 1 ? '' : 's'} with hours ${unapprovedCount === 1 ? 'is' : 'are'} not approved${unapprovedCount > unapproved.length ? ` (the first ${unapproved.length} are listed)` : ''}`,
      errors: unapproved,
    });

  // Missed punch-outs of earlier locks of these dates too: payroll sees every record without an out_time.
  const unclosed = await unclosedRecordsOf(trx, dates, 'all', groupId);
  const period: LockedPayPeriod = {
    start: dates.start,
    end: dates.end,
    status: 'locked',
    locked_at: `${lockedAt.replace(' ', 'T')}Z`,
    locked_by: lockedByName,
    lock_version: lockVersion,
    // Only when there are some: a lock without them answers the period exactly as before.
    ...(unclosed.length > 0 && { open_records: unclosed.map((record) => record.json) }),
  };
  await writeAudit(
    trx,
    {
      action: 'pay_period.lock',
      entityType: 'pay_period',
      entityId: periodEntityId(dates.start),
      fields: ['status'],
      // The period is the group's (entity_id names its start): unchanged, named here.
      changes: { status: { from: 'open', to: 'locked' }, group: { from: String(groupId), to: String(groupId) } },
    },
    { caller: context.caller, requestId: context.requestId, now: context.now },
  );
  await recordEvents(trx, [
    {
      type: 'pay_period.locked',
      resourceId: periodEntityId(dates.start),
      occurredAt: context.now,
      data: () => ({ ...period, group: String(groupId) }),
    },
  ]);
  return period;
}

/**
 * Locks in two transactions (docs/scaling.md, "Locking a pay period"): a short one stores the lock
 * row as `locking`, from which on every attendance write into the period is refused; then
 * `lockInOneTransaction` (lockPayPeriod in a transaction of the caller's) freezes the numbers
 * and marks it `locked`. On a Galera cluster lockPayPeriod alone, writing every employee's row
 * while writes keep coming, loses certification to them again and again; after the first step
 * only the writes already under way can still conflict with it. When the second step fails
 * (unapproved timesheets, the database), the row of the first goes again.
 */
export async function lockInTwoSteps<T>(
  db: Db,
  start: string,
  context: LockingContext & LockOptions,
  lockInOneTransaction: () => Promise<T>,
  groupId = DEFAULT_GROUP_ID,
): Promise<T> {
  // A concurrent lock of the same period may store its row first: that one is then the claim.
  const claimed = await retryConflicts(() => db.transaction((trx) => claimPayPeriodLock(trx, start, context, groupId))).catch(
    (error: unknown) => {
      if (asUniqueViolation(error)) return false;
      throw error;
    },
  );
  try {
    return await lockInOneTransaction();
  } catch (error) {
    if (claimed) await db('pay_period_locks').where({ group_id: groupId, period_start: start, state: 'locking' }).delete();
    throw error;
  }
}

/**
 * The first step of lockInTwoSteps: the `locking` row of the period starting on `start`, when it
 * may be locked (it exists, has ended, meets no other lock, and has no open record unless those
 * are allowed); true when this call stored it. Anything else is left to lockPayPeriod to refuse
 * with its reason, and no write is refused meanwhile: the punch-out that closes the last open
 * record of a period must not meet the claim of a lock that will be refused for it.
 */
async function claimPayPeriodLock(trx: Db, start: string, context: LockingContext & LockOptions, groupId: number): Promise<boolean> {
  if (!isCalendarDate(start)) return false;
  // An unknown group is lockPayPeriod's to refuse (400 naming `group`).
  const group = await readPeriodGroup(trx, groupId).catch(() => undefined);
  const dates = group && periodStartingOn(group.settings, start);
  if (!dates || (await notEndedIn(trx, dates, context, groupId))) return false;
  if (!context.allowOpenRecords && (await unclosedRecordsOf(trx, dates, 'open', groupId)).length > 0) return false;
  const met = await trx('pay_period_locks')
    .where('group_id', groupId)
    .where('period_start', '<=', dates.end)
    .andWhere('period_end', '>=', dates.start)
    .first('period_start');
  if (met) return false;
  await trx('pay_period_locks').insert({
    group_id: groupId,
    period_start: dates.start,
    period_end: dates.end,
    locked_at: toSqlDateTime(context.now),
    locked_by: context.caller?.userId ?? null,
    locked_by_name: context.caller?.username ?? 'cli',
    state: 'locking',
  });
  return true;
}

/**
 * Unlocks the period starting on `start` (its lock row goes, its snapshots with it): 404 when no
 * period starts there, 409 `period_not_locked` when it is open. Answers the period as it was
 * locked (its stored dates), now open.
 */
export async function unlockPayPeriod(trx: Db, start: string, context: LockContext, groupId = DEFAULT_GROUP_ID): Promise<PayPeriod> {
  const { settings } = await readPeriodGroup(trx, groupId);
  if (!isCalendarDate(start)) throw new NotFoundError({ detail: 'No pay period starts on that date' });
  const locked = (await trx('pay_period_locks')
    .where({ group_id: groupId, period_start: start })
    .forUpdate()
    .first('period_start', 'period_end', 'lock_version')) as
    { period_start: string; period_end: string; lock_version: number | string } | undefined;
  if (!locked) {
    if (!periodStartingOn(settings, start)) throw new NotFoundError({ detail: 'No pay period starts on that date' });
    throw new ConflictError({ code: 'period_not_locked', detail: 'The pay period is not locked' });
  }
  await keepSnapshots(trx, start, Number(locked.lock_version), groupId);
  await trx('pay_period_snapshots').where({ group_id: groupId, period_start: start }).delete();
  await trx('pay_period_locks').where({ group_id: groupId, period_start: start }).delete();
  const period: PayPeriod = {
    start,
    end: String(locked.period_end).slice(0, 10),
    status: 'open',
    locked_at: null,
    locked_by: null,
    lock_version: null,
  };
  await writeAudit(
    trx,
    {
      action: 'pay_period.unlock',
      entityType: 'pay_period',
      entityId: periodEntityId(start),
      fields: ['status'],
      changes: { status: { from: 'locked', to: 'open' }, group: { from: String(groupId), to: String(groupId) } },
    },
    { caller: context.caller, requestId: context.requestId, now: context.now },
  );
  await recordEvents(trx, [
    {
      type: 'pay_period.unlocked',
      resourceId: periodEntityId(start),
      occurredAt: context.now,
      data: () => ({ ...period, group: String(groupId) }),
    },
  ]);
  return period;
}

/** The version the next lock of the period gets: one more than its latest, 1 for its first. */
async function nextLockVersion(trx: Db, start: string, groupId: number): Promise<number> {
  const row = (await trx('pay_period_lock_versions')
    .where({ group_id: groupId, period_start: start })
    .max({ latest: 'lock_version' })
    .first()) as { latest: number | string | null } | undefined;
  return Number(row?.latest ?? 0) + 1;
}

/**
 * The snapshots of a lock being undone, kept as its version's (pay_period_version_snapshots), so
 * that an export after the next lock can answer the difference (docs/pay-periods.md,
 * "Adjustments after a re-lock"). One INSERT … SELECT, whatever the number of employees.
 */
async function keepSnapshots(trx: Db, start: string, lockVersion: number, groupId: number): Promise<void> {
  const columns = [
    'group_id',
    'period_start',
    'lock_version',
    'employee_id',
    'employee_code',
    'timesheet_status',
    'days',
    'employee_fields',
    'leave',
  ];
  await trx.into(trx.raw(`?? (${columns.map(() => '??').join(', ')})`, ['pay_period_version_snapshots', ...columns])).insert(
    trx('pay_period_snapshots')
      .where({ group_id: groupId, period_start: start })
      .select(
        trx.raw('? as group_id', [groupId]),
        'period_start',
        trx.raw('? as lock_version', [lockVersion]),
        'employee_id',
        'employee_code',
        'timesheet_status',
        'days',
        'employee_fields',
        'leave',
      ),
  );
}
