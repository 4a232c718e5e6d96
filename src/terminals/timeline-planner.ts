import { utcIso } from '../attendance/output';
import type { AttendanceEmployee } from '../attendance/repository';
import { attendanceChanges, dateOf } from '../attendance/writes';
import { periodLockedMessage } from '../period-guard/guard';
import type { Period } from '../pay-rules/periods';
import { columnsOf, type WriteStamp } from './record-columns';
import type { BatchAttendanceRow } from './record-repository';
import type { StoredPunch } from './punch-log-repository';
import type { Direction } from './schemas';

// One employee's punches against their records, in time order (docs/terminals.md): pure, no
// database and no clock, so that every case of the rules can be tried on plain values.

/** One punch on an employee's timeline: an entry of the batch, or one of the log a derivation applies again. */
export interface Punch {
  /** The instant, in whole seconds (ms since the epoch). */
  ms: number;
  direction: Direction;
  /** The log's entry this punch is, when a derivation applies it again; undefined for the batch's own. */
  logged?: StoredPunch;
  /** What became of it: set by planTimeline (again by each plan), or before planning for a refused entry. */
  outcome?: Outcome;
}

export type Outcome =
  | { result: 'duplicate'; repeated?: { code: string; message: string } }
  | { result: 'rejected'; code: string; message: string }
  | { result: 'created'; action: 'opened' | 'closed'; slot: Slot };

export const rejected = (code: string, message: string): Outcome => ({ result: 'rejected', code, message });

/** A record on the timeline: one already stored, or one the plan opens (its id comes when it is written). */
export interface Slot {
  /** The stored record this slot is (kept, closed, or derived again), if any. */
  stored: BatchAttendanceRow | undefined;
  id: number | undefined;
  inMs: number;
  outMs: number | null;
  /** The punches that opened (new records) and closed it. */
  opener: Punch | undefined;
  closer: Punch | undefined;
  /** A new record opened before a later one: it must be closed by then (that record's start), or it is not applied. */
  closeBy: Slot | undefined;
}

export interface TimelineInput {
  employee: AttendanceEmployee;
  /** The employee's stored records the punches can meet (findAttendanceOfEmployeesBetween). */
  records: readonly BatchAttendanceRow[];
  /** The batch's punches of the employee, in the order sent. */
  punches: readonly Punch[];
  /** The time (ms) of the latest punch the log holds for the employee, if any. */
  latestLogged: number | undefined;
  /** The log's entries of the employee from derivationStart on, in time order, then as received. */
  logged: readonly StoredPunch[];
  maxShiftMs: number;
}

export interface TimelinePlan {
  employee: AttendanceEmployee;
  /** The employee's records as the plan leaves them, by start. */
  slots: Slot[];
  /** The log's entries applied again, each with its outcome now. */
  replayed: Punch[];
  /** The stored records a derivation removes. */
  deleted: BatchAttendanceRow[];
}

/**
 * Results that depend on the employee's other punches: an entry stored with one of them is
 * applied again when an earlier punch arrives. The others (unknown_employee, invalid_time,
 * future_time, employee_terminated) would come out the same.
 */
const STATEFUL_REJECTIONS = new Set(['already_punched_in', 'not_punched_in', 'overlap', 'shift_too_long']);

/**
 * Punches of one employee this close to another of theirs are the same punch seen twice (two
 * terminals at one door, a badge held to the reader twice): answered as duplicates.
 */
export const REPEATED_PUNCH_SECONDS = 60;

/**
 * Where the employee's records are derived again from the log (docs/terminals.md, "Out of order
 * across batches"), when it holds a punch later than one of these: the earliest of them, or the
 * start of the log's record that holds it. Undefined when nothing is derived again.
 */
export function derivationStart(input: Pick<TimelineInput, 'records' | 'punches' | 'latestLogged'>): number | undefined {
  return windowOf(slotsOf(input.records), input.punches, input.latestLogged)?.start;
}

/**
 * The plan of one employee (planTimeline) without the punches whose changes would touch a locked
 * period (`lockedDate` tells the first locked date among some dates): planned again without them
 * until no change does; they are rejected period_locked. `touchedDates` are the dates the plan's
 * changes count on (docs/pay-periods.md, rule 1): the approved timesheets holding them reopen.
 */
export function planOutsideLockedPeriods(
  input: TimelineInput,
  lockedDate: (dates: readonly string[]) => { date: string; period: Period } | undefined,
  stamp: WriteStamp,
): TimelinePlan & { touchedDates: string[] } {
  const excluded = new Map<Punch, { date: string; period: Period }>();
  for (;;) {
    const plan = planTimeline({ ...input, punches: input.punches.filter((punch) => !excluded.has(punch)) });
    const changes = changesOf(plan, stamp);
    const offending = changes.filter((change) => lockedDate(change.dates));
    if (offending.length === 0) {
      for (const [punch, locked] of excluded) punch.outcome = rejected('period_locked', periodLockedMessage(locked));
      return { ...plan, touchedDates: changes.flatMap((change) => change.dates) };
    }
    for (const change of offending) {
      const locked = lockedDate(change.dates) as { date: string; period: Period };
      // The batch's own punches that made the change; for a record derived again or removed by
      // a derivation alone, the batch's earliest punch that started it.
      const own = change.punches.filter((punch) => !punch.logged && !excluded.has(punch));
      const remaining = input.punches.filter((punch) => !excluded.has(punch));
      const earliest = remaining.reduce<Punch | undefined>((a, b) => (a === undefined || b.ms < a.ms ? b : a), undefined);
      for (const punch of own.length > 0 ? own : earliest ? [earliest] : []) excluded.set(punch, locked);
    }
  }
}

/**
 * The batch's punches of one employee in time order against their records. When the log holds a
 * punch later than one of them, the employee is derived again from the window's start: the log's
 * entries from there on are applied again with the new ones, against the manual records, which
 * stay as they are; the records derived again keep the ids of the stored ones they continue.
 * Sets each punch's outcome.
 */
export function planTimeline(input: TimelineInput): TimelinePlan {
  let slots = slotsOf(input.records);
  const window = windowOf(slots, input.punches, input.latestLogged);
  const replayed: Punch[] = [];
  if (window) {
    const windowIds = new Set(window.records.map((slot) => slot.id));
    slots = slots.filter((slot) => !windowIds.has(slot.id));
    for (const logged of input.logged) {
      const ms = Date.parse(utcIso(logged.time_utc));
      if (ms >= window.start && appliesAgain(logged, windowIds)) replayed.push({ ms, direction: logged.direction, logged });
    }
  }
  // In time order; at the same second, the log's entries first, then the batch's in the order sent (a stable sort).
  const ordered = [...replayed, ...input.punches].sort((a, b) => a.ms - b.ms);
  applyTimeline(ordered, slots, input.maxShiftMs);
  const deleted = window ? matchDerivedRecords(slots, window.records) : [];
  return { employee: input.employee, slots, replayed, deleted };
}

/**
 * The stored records as slots of a timeline, sorted by start: fresh for every plan. A missed
 * punch-out (docs/pay-periods.md, "Period end, step by step") is not an open record: its slot
 * ends where it begins, so no punch closes it, an `auto` punch after it is an `in`, and it holds
 * only its own second against the records around it.
 */
function slotsOf(records: readonly BatchAttendanceRow[]): Slot[] {
  return records
    .map((row): Slot => {
      const inMs = Date.parse(utcIso(row.in_time_utc));
      return {
        stored: row,
        id: row.id,
        inMs,
        outMs: row.out_time_utc !== null ? Date.parse(utcIso(row.out_time_utc)) : row.missed_punch_out ? inMs : null,
        opener: undefined,
        closer: undefined,
        closeBy: undefined,
      };
    })
    .sort((a, b) => a.inMs - b.inMs);
}

/** A record the log may derive again: one it made, unless a pay-period lock passed it over as a missed punch-out. */
const derivable = (slot: Slot) => slot.stored?.derived_from_log === true && !slot.stored.missed_punch_out;

/**
 * Where a derivation starts and the log's records it derives again: from the earliest punch, or
 * the start of the log's record that holds it. Punches left out (a locked period's) do not
 * count: a window only starts later without them.
 */
function windowOf(
  slots: Slot[],
  punches: readonly Punch[],
  latestLogged: number | undefined,
): { start: number; records: Slot[] } | undefined {
  if (punches.length === 0) return undefined;
  const earliest = Math.min(...punches.map((punch) => punch.ms));
  if (latestLogged === undefined || latestLogged <= earliest) return undefined;
  const holding = slots.find((slot) => derivable(slot) && slot.inMs < earliest && (slot.outMs === null || slot.outMs >= earliest));
  const start = holding ? holding.inMs : earliest;
  return { start, records: slots.filter((slot) => derivable(slot) && slot.inMs >= start) };
}

/** Whether a derivation applies a stored entry again: one that made a record of the window, or whose result may change. */
function appliesAgain(logged: StoredPunch, windowIds: ReadonlySet<number | undefined>): boolean {
  return (
    (logged.result === 'created' && windowIds.has(logged.attendance_id ?? undefined)) ||
    (logged.result === 'rejected' && STATEFUL_REJECTIONS.has(logged.code ?? '')) ||
    (logged.result === 'duplicate' && logged.code === 'repeated_punch')
  );
}

/** The punches of one employee, in time order, against their timeline (sorted by start). */
function applyTimeline(punches: readonly Punch[], timeline: Slot[], maxShiftMs: number): void {
  const repeatMs = REPEATED_PUNCH_SECONDS * 1000;
  let pending: Slot | undefined;
  const withdrawPending = (slot: Slot) => {
    const next = slot.closeBy as Slot;
    (slot.opener as Punch).outcome = rejected(
      'overlap',
      `No punch-out follows before ${next.id === undefined ? 'the record' : `attendance record ${next.id}`} that begins at ${new Date(next.inMs).toISOString()}: the record it would open would overlap it`,
    );
    timeline.splice(timeline.indexOf(slot), 1);
    pending = undefined;
  };

  for (const punch of punches) {
    const t = punch.ms;
    if (pending && (t > (pending.closeBy as Slot).inMs || (t === (pending.closeBy as Slot).inMs && punch.direction === 'in')))
      withdrawPending(pending);
    const repeated = timeline.find(
      (slot) => Math.abs(slot.inMs - t) <= repeatMs || (slot.outMs !== null && Math.abs(slot.outMs - t) <= repeatMs),
    );
    if (repeated) {
      const at = Math.abs(repeated.inMs - t) <= repeatMs ? repeated.inMs : (repeated.outMs as number);
      const message = `The employee punched at ${new Date(at).toISOString()} (${describe(repeated)}), within ${REPEATED_PUNCH_SECONDS} seconds: taken as the same punch`;
      punch.outcome = { result: 'duplicate', repeated: { code: 'repeated_punch', message } };
      continue;
    }
    const before = findLast(timeline, (slot) => slot.inMs < t);
    const direction = punch.direction === 'auto' ? (before && before.outMs === null ? 'out' : 'in') : punch.direction;
    if (direction === 'in') {
      const previous = findLast(timeline, (slot) => slot.inMs <= t);
      if (previous && previous.outMs === null) {
        punch.outcome = rejected('already_punched_in', `The employee is already punched in (${describe(previous)}): punch out first`);
        continue;
      }
      if (previous && (previous.inMs === t || (previous.outMs as number) > t)) {
        punch.outcome = rejected(
          'overlap',
          `The time falls within ${describe(previous)}, which ends at ${new Date(previous.outMs as number).toISOString()}`,
        );
        continue;
      }
      const next = timeline.find((slot) => slot.inMs > t);
      const slot: Slot = { stored: undefined, id: undefined, inMs: t, outMs: null, opener: punch, closer: undefined, closeBy: next };
      timeline.splice(next ? timeline.indexOf(next) : timeline.length, 0, slot);
      if (next) pending = slot;
      punch.outcome = { result: 'created', action: 'opened', slot };
      continue;
    }
    if (!before || before.outMs !== null) {
      punch.outcome = rejected('not_punched_in', 'The employee is not punched in at this time: there is no open record to punch out');
      continue;
    }
    if (t - before.inMs > maxShiftMs) {
      const hours = Math.round((t - before.inMs) / 36_000) / 100;
      punch.outcome = rejected(
        'shift_too_long',
        `Closing ${describe(before)} here would make it ${hours} hours long, more than max_shift_hours (${maxShiftMs / 3_600_000}): was a punch-out forgotten? Correct that record`,
      );
      continue;
    }
    before.outMs = t;
    before.closer = punch;
    if (before === pending) pending = undefined;
    punch.outcome = { result: 'created', action: 'closed', slot: before };
  }
  if (pending) withdrawPending(pending);
}

function describe(slot: Slot): string {
  const start = new Date(slot.inMs).toISOString();
  return slot.id === undefined ? `the record opened at ${start} by this batch` : `attendance record ${slot.id}, from ${start}`;
}

function findLast<T>(items: T[], test: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i -= 1) if (test(items[i] as T)) return items[i];
  return undefined;
}

/**
 * Gives the records derived again the ids of the stored ones they continue: first the record the
 * same stored entry opened, then one the new record overlaps (the same shift, begun at another
 * punch). Answers the stored records left over: the derivation removes them.
 */
function matchDerivedRecords(slots: Slot[], window: Slot[]): BatchAttendanceRow[] {
  const unmatched = new Map(window.map((slot) => [slot.id as number, slot.stored as BatchAttendanceRow]));
  const fresh = slots.filter((slot) => slot.stored === undefined);
  const take = (slot: Slot, row: BatchAttendanceRow) => {
    slot.stored = row;
    slot.id = row.id;
    unmatched.delete(row.id);
  };
  for (const slot of fresh) {
    const opener = slot.opener?.logged;
    const row = opener?.action === 'opened' && opener.attendance_id !== null ? unmatched.get(opener.attendance_id) : undefined;
    if (row) take(slot, row);
  }
  for (const slot of fresh) {
    if (slot.stored) continue;
    const end = slot.outMs ?? Infinity;
    const row = [...unmatched.values()].find((candidate) => {
      const start = Date.parse(utcIso(candidate.in_time_utc));
      const stop = candidate.out_time_utc === null ? Infinity : Date.parse(utcIso(candidate.out_time_utc));
      return start < end && slot.inMs < stop;
    });
    if (row) take(slot, row);
  }
  return [...unmatched.values()];
}

/**
 * What a plan would write, record by record, as writeRecords writes it: the dates each changed
 * record counts on before and after (docs/pay-periods.md, rule 1), and the punches that opened
 * and closed it (the batch's, or the log's applied again).
 */
function changesOf(plan: TimelinePlan, stamp: WriteStamp): Array<{ dates: string[]; punches: Punch[] }> {
  const changes = plan.deleted.map((row) => ({ dates: [dateOf(row.in_time_local)], punches: [] as Punch[] }));
  for (const slot of plan.slots) {
    if (slot.opener === undefined && slot.closer === undefined) continue;
    const punches = [slot.opener, slot.closer].filter((punch): punch is Punch => punch !== undefined);
    const after = columnsOf(slot, plan.employee, stamp);
    if (!slot.stored) {
      changes.push({ dates: [dateOf(after.in_time_local)], punches });
      continue;
    }
    const { id: _id, derived_from_log: _derived, ...before } = slot.stored;
    if (attendanceChanges(before, after).fields.length === 0) continue;
    changes.push({ dates: [dateOf(before.in_time_local), dateOf(after.in_time_local)], punches });
  }
  return changes;
}
