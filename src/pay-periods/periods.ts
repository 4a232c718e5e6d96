import type { Db } from '../db/connect';
import { sqlDateTimeToIso } from '../db/sql-time';
import { BadRequestError, NotFoundError } from '../errors';
import { type DateRange, periodStartingOn, periodsOverlapping, rangeProblem } from '../pay-rules/periods';
import type { PayPeriodSettings } from '../pay-rules/settings';
import { addDays, dayNumber, isCalendarDate, MIN_DAY, MIN_DATE } from '../time';

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
export async function findLockedPeriod(db: Db, start: string): Promise<PayPeriod | undefined> {
  const row = (await db('pay_period_locks')
    .where({ period_start: start, state: 'locked' })
    .first('period_start', 'period_end', 'locked_at', 'locked_by_name', 'lock_version')) as LockRow | undefined;
  return row && toLockedPeriod(row);
}

/** Locks whose dates meet [from, to]. */
async function locksOverlapping(db: Db, from: string, to: string): Promise<PayPeriod[]> {
  const rows = (await db('pay_period_locks')
    .where('state', 'locked')
    .andWhere('period_start', '<=', to)
    .andWhere('period_end', '>=', from)
    .select('period_start', 'period_end', 'locked_at', 'locked_by_name', 'lock_version')) as LockRow[];
  return rows.map(toLockedPeriod);
}

/**
 * The period named by `start`: a locked one with the dates stored at its lock (settings changed
 * since do not move it), else the one the settings start on that date. 404 for anything else.
 */
export async function resolvePeriod(db: Db, settings: PayPeriodSettings, start: unknown): Promise<PayPeriod> {
  const valid = typeof start === 'string' && isCalendarDate(start);
  return periodOf(valid ? await findLockedPeriod(db, start) : undefined, settings, start);
}

/** resolvePeriod with the lock row already read (findLockedPeriod): a request reads it beside the settings. */
export function periodOf(locked: PayPeriod | undefined, settings: PayPeriodSettings, start: unknown): PayPeriod {
  if (typeof start !== 'string' || !isCalendarDate(start)) throw new NotFoundError({ detail: 'No pay period starts on that date' });
  if (locked) return locked;
  const period = periodStartingOn(settings, start);
  if (!period) throw new NotFoundError({ detail: 'No pay period starts on that date' });
  return { ...period, status: 'open', locked_at: null, locked_by: null, lock_version: null };
}

/** The settings and the period starting on `start`, read at once (two queries, one round trip). */
export async function settingsAndPeriod(
  db: Db,
  readSettings: (db: Db) => Promise<PayPeriodSettings>,
  start: unknown,
): Promise<{ settings: PayPeriodSettings; period: PayPeriod }> {
  const valid = typeof start === 'string' && isCalendarDate(start);
  const [settings, locked] = await Promise.all([readSettings(db), valid ? findLockedPeriod(db, start) : undefined]);
  return { settings, period: periodOf(locked, settings, start) };
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
 * The periods meeting [from, to], newest first: the settings' periods, each replaced by the lock
 * of the same start when there is one, and locks of an earlier layout that start elsewhere
 * (docs/pay-periods.md, "Periods").
 */
export async function listPeriods(db: Db, settings: PayPeriodSettings, { from, to }: DateRange): Promise<PayPeriod[]> {
  const locks = new Map((await locksOverlapping(db, from, to)).map((lock) => [lock.start, lock]));
  const periods: PayPeriod[] = periodsOverlapping(settings, from, to).map(
    (period) => locks.get(period.start) ?? { ...period, status: 'open', locked_at: null, locked_by: null, lock_version: null },
  );
  const listed = new Set(periods.map((period) => period.start));
  for (const lock of locks.values()) if (!listed.has(lock.start)) periods.push(lock);
  return periods.sort((a, b) => dayNumber(b.start) - dayNumber(a.start));
}
