import type { Db } from '../db/connect';
import { sqlDateTimeToIso } from '../db/sql-time';
import { BadRequestError, NotFoundError } from '../errors';
import { type DateRange, periodStartingOn, periodsOverlapping, rangeProblem } from '../pay-rules/periods';
import type { PayPeriodSettings } from '../pay-rules/settings';
import { addDays, dayNumber, isCalendarDate, MIN_DAY, MIN_DATE } from '../time';
import { DEFAULT_GROUP_ID } from '../pay-groups/repository';
import { type PeriodGroup, readPeriodGroup } from './settings';

/** The range GET /pay-periods lists without from: the year before `to`. */
export const DEFAULT_PERIOD_RANGE_DAYS = 365;

/** A pay period as the API shows it (docs/pay-periods.md, "Periods"). */
export interface PayPeriod {
  start: string;
  end: string;
  status: 'open' | 'locked';
  /** ISO-8601 UTC; null while open. */
  locked_at: string | null;
  /** The username of who locked it (`cli` for `hrm pay-period lock`); null while open. */
  locked_by: string | null;
  /** Which lock of the period this is (1, 2, … after unlocks); null while open (docs/pay-periods.md, "Adjustments"). */
  lock_version: number | null;
}

interface LockRow {
  period_start: string;
  period_end: string;
  locked_at: string;
  locked_by_name: string | null;
  lock_version?: number | string | null;
}

/** A lock row as its period; `locking` rows too, for a refusal's message. */
export function toLockedPeriod(row: LockRow): PayPeriod {
  return {
    start: String(row.period_start).slice(0, 10),
    end: String(row.period_end).slice(0, 10),
    status: 'locked',
    locked_at: sqlDateTimeToIso(String(row.locked_at)),
    locked_by: row.locked_by_name ?? null,
    lock_version: Number(row.lock_version ?? 1),
  };
}

/**
 * The lock row of a period starting on `start`, as its period, once locked: a lock still being
 * taken (`locking`, src/pay-periods/lock.ts) refuses writes but is not shown, nor exported, as locked.
 */
export async function findLockedPeriod(db: Db, start: string, groupId = DEFAULT_GROUP_ID): Promise<PayPeriod | undefined> {
  const row = (await db('pay_period_locks')
    .where({ group_id: groupId, period_start: start, state: 'locked' })
    .first('period_start', 'period_end', 'locked_at', 'locked_by_name', 'lock_version')) as LockRow | undefined;
  return row && toLockedPeriod(row);
}

/** The group's locks whose dates meet [from, to]. */
async function locksOverlapping(db: Db, from: string, to: string, groupId: number): Promise<PayPeriod[]> {
  const rows = (await db('pay_period_locks')
    .where({ group_id: groupId, state: 'locked' })
    .andWhere('period_start', '<=', to)
    .andWhere('period_end', '>=', from)
    .select('period_start', 'period_end', 'locked_at', 'locked_by_name', 'lock_version')) as LockRow[];
  return rows.map(toLockedPeriod);
}

/**
 * The group's period named by `start`: a locked one with the dates stored at its lock (settings
 * changed since do not move it), else the one the group's settings start on that date. 404 for
 * anything else.
 */
export async function resolvePeriod(db: Db, settings: PayPeriodSettings, start: unknown, groupId = DEFAULT_GROUP_ID): Promise<PayPeriod> {
  const valid = typeof start === 'string' && isCalendarDate(start);
  return periodOf(valid ? await findLockedPeriod(db, start, groupId) : undefined, settings, start);
}

/** resolvePeriod with the lock row already read (findLockedPeriod): a request reads it beside the settings. */
export function periodOf(locked: PayPeriod | undefined, settings: PayPeriodSettings, start: unknown): PayPeriod {
  if (typeof start !== 'string' || !isCalendarDate(start)) throw new NotFoundError({ detail: 'No pay period starts on that date' });
  if (locked) return locked;
  const period = periodStartingOn(settings, start);
  if (!period) throw new NotFoundError({ detail: 'No pay period starts on that date' });
  return { ...period, status: 'open', locked_at: null, locked_by: null, lock_version: null };
}

/**
 * A pay group, its settings and its period starting on `start`, read at once (two queries, one
 * round trip): 400 naming `group` for a group that does not exist, then 404 as resolvePeriod.
 */
export async function settingsAndPeriod(
  db: Db,
  groupId: number,
  start: unknown,
): Promise<{ group: PeriodGroup; settings: PayPeriodSettings; period: PayPeriod }> {
  const valid = typeof start === 'string' && isCalendarDate(start);
  const [group, locked] = await Promise.all([readPeriodGroup(db, groupId), valid ? findLockedPeriod(db, start, groupId) : undefined]);
  return { group, settings: group.settings, period: periodOf(locked, group.settings, start) };
}

/**
 * The dates a list of periods covers (GET /pay-periods, `hrm pay-period list`): `to` defaults to
 * today, `from` to the year before `to` (never before 0001-01-01). A range the period walk refuses
 * (rangeProblem: wider than ten years) is 400 naming `to`, so no input can make the walk long.
 */
export function periodListRange(query: { from?: string; to?: string }, today: string): DateRange {
  const to = query.to ?? today;
  const from = query.from ?? (dayNumber(to) - DEFAULT_PERIOD_RANGE_DAYS < MIN_DAY ? MIN_DATE : addDays(to, -DEFAULT_PERIOD_RANGE_DAYS));
  const problem = rangeProblem({ from, to });
  if (problem)
    throw new BadRequestError({
      code: 'invalid_query',
      title: 'Invalid query parameters',
      detail: `to ${problem}`,
      errors: [{ field: 'to', message: problem }],
    });
  return { from, to };
}

/**
 * A group's periods meeting [from, to], newest first: its settings' periods, each replaced by the lock
 * of the same start when there is one, and locks of an earlier layout that start elsewhere
 * (docs/pay-periods.md, "Periods").
 */
export async function listPeriods(
  db: Db,
  settings: PayPeriodSettings,
  { from, to }: DateRange,
  groupId = DEFAULT_GROUP_ID,
): Promise<PayPeriod[]> {
  const locks = new Map((await locksOverlapping(db, from, to, groupId)).map((lock) => [lock.start, lock]));
  const periods: PayPeriod[] = periodsOverlapping(settings, from, to).map(
    (period) => locks.get(period.start) ?? { ...period, status: 'open', locked_at: null, locked_by: null, lock_version: null },
  );
  const listed = new Set(periods.map((period) => period.start));
  for (const lock of locks.values()) if (!listed.has(lock.start)) periods.push(lock);
  return periods.sort((a, b) => dayNumber(b.start) - dayNumber(a.start));
}
