import type { Caller } from '../caller';
import { type AuditEntry, writeAudits } from '../audit/repository';
import type { Db } from '../db/connect';
import { asUniqueViolation } from '../db/constraint-errors';
import { RunAgainError } from '../db/retry-conflicts';
import { toSqlDateTime, toSqlDateTimeSeconds } from '../db/sql-time';
import { utcIso } from '../attendance/output';
import {
  type AttendanceColumns,
  type AttendanceRecord,
  type BadgedAttendanceEmployee,
  deleteAttendance,
  lockAttendanceEmployees,
  updateAttendance,
} from '../attendance/repository';
import { type BatchAttendanceRow, findAttendanceOfEmployeesBetween, insertAttendanceRows } from './record-repository';
import { afterTermination, type AttendanceSettings, wholeSecond } from '../attendance/rules';
import { attendanceChanges, dateOf } from '../attendance/writes';
import {
  type DateRange,
  firstLockedDate,
  PeriodStates,
  periodLockedMessage,
  readPeriodStates,
  reopenTimesheets,
} from '../pay-period-locks/guard';
import { addDays, instantOfWallClock, wallClockIn } from '../time';
import { recordEvents, type OutboxEvent } from '../webhooks/outbox';
import { attendanceEvent } from '../attendance/events';
import { deletionEvent } from '../webhooks/outbox';
import { lockDevice } from './devices';
import {
  findLatestPunchTimes,
  findPunchesOfEmployeesFrom,
  findReceivedLogIds,
  insertPunchLogs,
  MANUAL_DEVICE_ID,
  type PunchLogColumns,
  type StoredPunch,
  updatePunchOutcome,
} from './punch-log-repository';
import { type Direction, entryTime, type EntryResult, type PunchLogEntry } from './schemas';
import { recordAttendanceDeletions } from '../deletions/tombstones';

// POST /attendance/punch-logs: a terminal's batch of punches, applied in one transaction with
// the rules of every attendance write (docs/api.md, "Attendance"): one open record per employee, no overlaps,
// max_shift_hours, the future tolerance. A handful of statements per batch, not per entry.

/** Who uploads: a device, or an admin back-filling by hand (MANUAL_DEVICE_ID). */
export interface Uploader {
  deviceId: number;
  /** The wall clock of times sent without an offset: the device's; for an admin, each employee's. */
  timezone: string | undefined;
  /** The admin; none for a device. */
  caller: Caller | undefined;
}

interface PunchLogContext {
  uploader: Uploader;
  now: Date;
  requestId: string;
  ip: string;
  settings: AttendanceSettings;
}

/** One entry's answer, in the order sent. */
interface EntryAnswer {
  log_id: string;
  result: EntryResult;
  attendance?: string;
  action?: 'opened' | 'closed';
  code?: string;
  message?: string;
}

/** A record on an employee's timeline while the batch is applied: one already stored, or one the batch opens. */
interface Slot {
  employee: BadgedAttendanceEmployee;
  /** The stored record this slot is (kept, closed, or derived again), if any. */
  stored: BatchAttendanceRow | undefined;
  id: number | undefined;
  inMs: number;
  outMs: number | null;
  /** The entries that opened (new records) and closed it. */
  inEntry: number | undefined;
  outEntry: number | undefined;
  /** A new record opened before a later one: it must be closed by then (that record's start), or it is not applied. */
  closeBy: Slot | undefined;
}

type Outcome =
  | { result: 'duplicate'; repeated?: { code: string; message: string } }
  | { result: 'rejected'; code: string; message: string }
  | { result: 'created'; action: 'opened' | 'closed'; slot: Slot };

const rejected = (code: string, message: string): Outcome => ({ result: 'rejected', code, message });

/**
 * Results that depend on the employee's other punches: an entry stored with one of them is
 * applied again when an earlier punch arrives. The others (unknown_employee, invalid_time,
 * future_time, employee_terminated) would come out the same.
 */
const STATEFUL_REJECTIONS = new Set(['already_punched_in', 'not_punched_in', 'overlap', 'shift_too_long']);

/** One employee's records derived again from the log (docs/terminals.md, "Out of order across batches"). */
interface Derivation {
  employee: BadgedAttendanceEmployee;
  /** The stored records the log made from the window's start on: derived again, kept (same id) where they match. */
  window: BatchAttendanceRow[];
  /** The stored entries applied again, by their index in the batch's outcomes (after the batch's own entries). */
  replayed: Map<number, StoredPunch>;
}

/**
 * Applies a batch. Order of locks and reads, as for a single punch (see lockAttendanceEmployee):
 * the device's row (its uploads run one after another), then the named employees' rows, then the
 * plain reads (which log ids the device sent before, the records the entries can meet), so that
 * they see whatever a punch that held those locks before committed. Then, per employee, the
 * entries in time order against the records in memory; then the writes, a few hundred rows per
 * statement: records, audit rows, webhook events, the raw log.
 *
 * An employee for whom the log already holds a punch later than one of the batch's is derived
 * again from the window's start (the earliest new entry, or the start of the record of the log's
 * that holds it): the stored entries from there on are applied again with the new ones, in time
 * order, against the manual records, which stay as they are. Records and entries whose outcome
 * changes are rewritten; the rest stay untouched.
 */
export async function ingestPunchLogs(trx: Db, entries: PunchLogEntry[], context: PunchLogContext): Promise<EntryAnswer[]> {
  const { uploader, now, settings } = context;
  if (uploader.deviceId !== MANUAL_DEVICE_ID) await lockDevice(trx, uploader.deviceId);
  const badges = distinct(entries.flatMap((entry) => (entry.attendance_device_id === undefined ? [] : [entry.attendance_device_id])));
  const ids = distinct(entries.flatMap((entry) => (entry.employee === undefined ? [] : [entry.employee])));
  const employees = await lockAttendanceEmployees(trx, { badges, ids });
  // Badge numbers match regardless of case, as the column compares them.
  const badgeKey = (badge: string) => badge.toLowerCase();
  const byBadge = new Map(
    employees.flatMap((employee) =>
      employee.attendance_device_id === null ? [] : [[badgeKey(employee.attendance_device_id), employee] as const],
    ),
  );
  const byId = new Map(employees.map((employee) => [employee.id, employee]));
  const received = await findReceivedLogIds(trx, uploader.deviceId, distinct(entries.map((entry) => entry.log_id)));

  const outcomes: Outcome[] = [];
  const employeeOf: Array<BadgedAttendanceEmployee | undefined> = [];
  const timeOf: Array<number | undefined> = [];
  const directionOf: Direction[] = entries.map((entry) => entry.direction);
  const entriesOf = new Map<number, number[]>();
  const latestAllowed = now.getTime() + settings.punchFutureToleranceSeconds * 1000;
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    if (received.has(entry.log_id) || seen.has(entry.log_id)) {
      outcomes[index] = { result: 'duplicate' };
      return;
    }
    seen.add(entry.log_id);
    const employee = entry.employee === undefined ? byBadge.get(badgeKey(entry.attendance_device_id as string)) : byId.get(entry.employee);
    employeeOf[index] = employee;
    if (!employee) {
      const named = entry.employee === undefined ? `attendance_device_id ${entry.attendance_device_id}` : `id ${entry.employee}`;
      outcomes[index] = rejected('unknown_employee', `No employee has ${named}`);
      return;
    }
    const time = entryTime(entry);
    const zone = uploader.timezone ?? employee.timezone;
    const instant = 'instant' in time ? time.instant : instantOfWallClock(zone, time.reading);
    if (!instant) {
      outcomes[index] = rejected('invalid_time', `${entry.time} does not exist in ${zone}: the clocks skip it for daylight saving time`);
      return;
    }
    const ms = wholeSecond(instant).getTime();
    timeOf[index] = ms;
    if (ms > latestAllowed) {
      outcomes[index] = rejected(
        'future_time',
        `The time is more than ${settings.punchFutureToleranceSeconds} seconds in the future (punch_future_tolerance_seconds)`,
      );
      return;
    }
    const terminated = afterTermination(employee, new Date(ms));
    if (terminated) {
      outcomes[index] = rejected('employee_terminated', terminated);
      return;
    }
    entriesOf.set(employee.id, [...(entriesOf.get(employee.id) ?? []), index]);
  });

  // Records no longer than max_shift_hours that start before the earliest entry minus that much
  // end before it: nothing earlier can matter. Later records all can (a late entry must fit before them).
  const maxShiftMs = settings.maxShiftHours * 3_600_000;
  const applied = [...entriesOf.values()].flat().map((index) => timeOf[index] as number);
  const from = applied.length === 0 ? 0 : Math.min(...applied) - maxShiftMs;
  const stored = await findAttendanceOfEmployeesBetween(
    trx,
    [...entriesOf.keys()],
    toSqlDateTimeSeconds(new Date(from)),
    '9999-12-31 23:59:59',
  );
  const latestPunches = await findLatestPunchTimes(trx, [...entriesOf.keys()]);
  const storedOf = new Map<number, BatchAttendanceRow[]>();
  for (const row of stored) storedOf.set(row.employee_id, [...(storedOf.get(row.employee_id) ?? []), row]);
  /** The employee's stored records as slots of a timeline, sorted by start: fresh for every plan. */
  const storedTimeline = (employeeId: number): Slot[] =>
    (storedOf.get(employeeId) ?? [])
      .map((row): Slot => ({
        employee: byId.get(row.employee_id) as BadgedAttendanceEmployee,
        stored: row,
        id: row.id,
        inMs: Date.parse(utcIso(row.in_time_utc)),
        outMs: row.out_time_utc === null ? null : Date.parse(utcIso(row.out_time_utc)),
        inEntry: undefined,
        outEntry: undefined,
        closeBy: undefined,
      }))
      .sort((a, b) => a.inMs - b.inMs);

  /**
   * The employees with a punch in the log later than one of the batch's: where their windows
   * start (the earliest new entry, or the start of the log's record that holds it). Entries left
   * out (a locked period's) do not count: a window only starts later without them.
   */
  const windowOf = (employeeId: number, indexes: number[], timeline: Slot[]): { start: number; records: Slot[] } | undefined => {
    if (indexes.length === 0) return undefined;
    const earliest = Math.min(...indexes.map((index) => timeOf[index] as number));
    const latest = latestPunches.get(employeeId);
    if (latest === undefined || Date.parse(utcIso(latest)) <= earliest) return undefined;
    const holding = timeline.find(
      (slot) => slot.stored?.derived_from_log && slot.inMs < earliest && (slot.outMs === null || slot.outMs >= earliest),
    );
    const start = holding ? holding.inMs : earliest;
    return { start, records: timeline.filter((slot) => slot.stored?.derived_from_log && slot.inMs >= start) };
  };
  // Every window's stored entries in one read, from where each window starts with all entries (the earliest it can).
  const firstWindows = new Map<number, number>();
  for (const [employeeId, indexes] of entriesOf) {
    const window = windowOf(employeeId, indexes, storedTimeline(employeeId));
    if (window) firstWindows.set(employeeId, window.start);
  }
  const storedPunches = await findPunchesOfEmployeesFrom(
    trx,
    [...firstWindows].map(([employeeId, start]) => ({ employeeId, from: toSqlDateTimeSeconds(new Date(start)) })),
  );
  // The locked periods and approved timesheets the batch can meet (docs/pay-periods.md): records
  // from `from` on, whose dates on their own wall clocks start at most a day before its UTC date.
  const periods =
    entriesOf.size === 0
      ? new PeriodStates()
      : await readPeriodStates(trx, [...entriesOf.keys()], {
          start: addDays(toSqlDateTimeSeconds(new Date(from)).slice(0, 10), -1),
          end: '9999-12-31',
        });

  let nextIndex = entries.length;
  /**
   * One employee's entries (but the `excluded` ones) in time order against their timeline, derived
   * again from the window's start when the log holds a later punch: the timeline it leaves, the
   * derivation, and the stored records the derivation removes.
   */
  const plan = (employeeId: number, batchIndexes: number[], excluded: ReadonlySet<number>) => {
    const indexes = batchIndexes.filter((index) => !excluded.has(index));
    let timeline = storedTimeline(employeeId);
    const employee = byId.get(employeeId) as BadgedAttendanceEmployee;
    const window = windowOf(employeeId, indexes, timeline);
    let derivation: Derivation | undefined;
    if (window) {
      const windowIds = new Set(window.records.map((slot) => slot.id));
      timeline = timeline.filter((slot) => !windowIds.has(slot.id));
      const replayed = new Map<number, StoredPunch>();
      for (const punch of storedPunches.get(employeeId) ?? []) {
        if (Date.parse(utcIso(punch.time_utc)) < window.start) continue;
        const again =
          (punch.result === 'created' && windowIds.has(punch.attendance_id ?? undefined)) ||
          (punch.result === 'rejected' && STATEFUL_REJECTIONS.has(punch.code ?? '')) ||
          (punch.result === 'duplicate' && punch.code === 'repeated_punch');
        if (!again) continue;
        const index = nextIndex++;
        replayed.set(index, punch);
        timeOf[index] = Date.parse(utcIso(punch.time_utc));
        directionOf[index] = punch.direction;
        indexes.push(index);
      }
      derivation = { employee, window: window.records.map((slot) => slot.stored as BatchAttendanceRow), replayed };
    }
    // In time order; at the same second, entries received before first, then the batch's in the order sent.
    const batchSize = entries.length;
    indexes.sort((a, b) => (timeOf[a] as number) - (timeOf[b] as number) || Number(b >= batchSize) - Number(a >= batchSize) || a - b);
    applyTimeline(employee, { directionOf, indexes, timeOf: timeOf as number[] }, timeline, outcomes, maxShiftMs);
    const deleted = derivation ? matchDerivedRecords(new Map([[employeeId, timeline]]), new Map([[employeeId, derivation]])) : [];
    return { timeline, derivation, deleted, indexes };
  };

  const timelines = new Map<number, Slot[]>();
  const derivations = new Map<number, Derivation>();
  const deleted: Array<{ employee: BadgedAttendanceEmployee; row: BatchAttendanceRow }> = [];
  const reopened: Array<{ employeeId: number; periods: DateRange[] }> = [];
  for (const [employeeId, batchIndexes] of entriesOf) {
    // Planned again without the entries whose changes would touch a locked period, until none does.
    const excluded = new Map<number, { date: string; period: DateRange }>();
    for (;;) {
      const planned = plan(employeeId, batchIndexes, new Set(excluded.keys()));
      const touched = changesOf(planned.timeline, planned.deleted, context);
      const offending = touched.filter((change) => firstLockedDate(periods, change.dates));
      if (offending.length === 0) {
        timelines.set(employeeId, planned.timeline);
        if (planned.derivation) derivations.set(employeeId, planned.derivation);
        deleted.push(...planned.deleted);
        reopened.push({
          employeeId,
          periods: periods.approvedHolding(
            employeeId,
            touched.flatMap((change) => change.dates),
          ),
        });
        break;
      }
      for (const change of offending) {
        const locked = firstLockedDate(periods, change.dates) as { date: string; period: DateRange };
        // The batch's own entries that made the change; for a record derived again or removed
        // by a derivation alone, the batch's earliest entry that started it.
        const own = change.entries.filter((index) => index < entries.length && !excluded.has(index));
        const remaining = batchIndexes.filter((index) => !excluded.has(index));
        const earliest = remaining.reduce((a, b) => ((timeOf[b] as number) < (timeOf[a] as number) ? b : a), remaining[0] as number);
        for (const index of own.length > 0 ? own : [earliest]) excluded.set(index, locked);
      }
    }
    for (const [index, locked] of excluded) outcomes[index] = rejected('period_locked', periodLockedMessage(locked));
  }

  await writeRecords(trx, timelines, deleted, context);
  await reopenTimesheets(trx, reopened, { caller: uploader.caller, now, requestId: context.requestId });
  const changed = changedPunches(derivations, outcomes);
  const changedAt = toSqlDateTime(context.now);
  for (const { punch, outcome } of changed) await updatePunchOutcome(trx, punch, logOutcome(outcome), changedAt);
  try {
    await insertPunchLogs(trx, logRows(entries, outcomes, employeeOf, timeOf, context));
  } catch (error) {
    // Admins' manual uploads take no device lock: one that sent the same log_id for another
    // employee committed first. Run again, this upload finds it received: a duplicate.
    if (asUniqueViolation(error)?.key.includes('log_id')) throw new RunAgainError(error);
    throw error;
  }
  return entries.map((entry, index) => answerOf(entry.log_id, outcomes[index] as Outcome));
}

/**
 * What a plan of one employee would write, record by record, as writeRecords writes it: the dates
 * each changed record counts on before and after (docs/pay-periods.md, rule 1), and the entries
 * that opened and closed it (the batch's, or stored ones applied again).
 */
function changesOf(
  timeline: Slot[],
  deleted: ReadonlyArray<{ row: BatchAttendanceRow }>,
  context: PunchLogContext,
): Array<{ dates: string[]; entries: number[] }> {
  const changes = deleted.map(({ row }) => ({ dates: [dateOf(row.in_time_local)], entries: [] as number[] }));
  for (const slot of timeline) {
    if (slot.inEntry === undefined && slot.outEntry === undefined) continue;
    const entries = [slot.inEntry, slot.outEntry].filter((index): index is number => index !== undefined);
    const after = columnsOf(slot, context);
    if (!slot.stored) {
      changes.push({ dates: [dateOf(after.in_time_local)], entries });
      continue;
    }
    const { id: _id, derived_from_log: _derived, ...before } = slot.stored;
    if (attendanceChanges(before, after).fields.length === 0) continue;
    changes.push({ dates: [dateOf(before.in_time_local), dateOf(after.in_time_local)], entries });
  }
  return changes;
}

/**
 * Punches of one employee this close to another of theirs are the same punch seen twice (two
 * terminals at one door, a badge held to the reader twice): answered as duplicates.
 */
const REPEATED_PUNCH_SECONDS = 60;

/** The entries of one employee, in time order, against their timeline (sorted by start). */
function applyTimeline(
  employee: BadgedAttendanceEmployee,
  batch: { directionOf: Direction[]; indexes: number[]; timeOf: number[] },
  timeline: Slot[],
  outcomes: Outcome[],
  maxShiftMs: number,
): void {
  const { directionOf, indexes, timeOf } = batch;
  const repeatMs = REPEATED_PUNCH_SECONDS * 1000;
  let pending: Slot | undefined;
  const withdrawPending = (slot: Slot) => {
    const next = slot.closeBy as Slot;
    outcomes[slot.inEntry as number] = rejected(
      'overlap',
      `No punch-out follows before ${next.id === undefined ? 'the record' : `attendance record ${next.id}`} that begins at ${new Date(next.inMs).toISOString()}: the record it would open would overlap it`,
    );
    timeline.splice(timeline.indexOf(slot), 1);
    pending = undefined;
  };

  for (const index of indexes) {
    const sent = directionOf[index] as Direction;
    const t = timeOf[index] as number;
    if (pending && (t > (pending.closeBy as Slot).inMs || (t === (pending.closeBy as Slot).inMs && sent === 'in')))
      withdrawPending(pending);
    const repeated = timeline.find(
      (slot) => Math.abs(slot.inMs - t) <= repeatMs || (slot.outMs !== null && Math.abs(slot.outMs - t) <= repeatMs),
    );
    if (repeated) {
      const punch = Math.abs(repeated.inMs - t) <= repeatMs ? repeated.inMs : (repeated.outMs as number);
      const message = `The employee punched at ${new Date(punch).toISOString()} (${describe(repeated)}), within ${REPEATED_PUNCH_SECONDS} seconds: taken as the same punch`;
      outcomes[index] = { result: 'duplicate', repeated: { code: 'repeated_punch', message } };
      continue;
    }
    const before = findLast(timeline, (slot) => slot.inMs < t);
    const direction = sent === 'auto' ? (before && before.outMs === null ? 'out' : 'in') : sent;
    if (direction === 'in') {
      const previous = findLast(timeline, (slot) => slot.inMs <= t);
      if (previous && previous.outMs === null) {
        outcomes[index] = rejected('already_punched_in', `The employee is already punched in (${describe(previous)}): punch out first`);
        continue;
      }
      if (previous && (previous.inMs === t || (previous.outMs as number) > t)) {
        outcomes[index] = rejected(
          'overlap',
          `The time falls within ${describe(previous)}, which ends at ${new Date(previous.outMs as number).toISOString()}`,
        );
        continue;
      }
      const next = timeline.find((slot) => slot.inMs > t);
      const slot: Slot = {
        employee,
        stored: undefined,
        id: undefined,
        inMs: t,
        outMs: null,
        inEntry: index,
        outEntry: undefined,
        closeBy: next,
      };
      timeline.splice(next ? timeline.indexOf(next) : timeline.length, 0, slot);
      if (next) pending = slot;
      outcomes[index] = { result: 'created', action: 'opened', slot };
      continue;
    }
    if (!before || before.outMs !== null) {
      outcomes[index] = rejected('not_punched_in', 'The employee is not punched in at this time: there is no open record to punch out');
      continue;
    }
    if (t - before.inMs > maxShiftMs) {
      const hours = Math.round((t - before.inMs) / 36_000) / 100;
      outcomes[index] = rejected(
        'shift_too_long',
        `Closing ${describe(before)} here would make it ${hours} hours long, more than max_shift_hours (${maxShiftMs / 3_600_000}): was a punch-out forgotten? Correct that record`,
      );
      continue;
    }
    before.outMs = t;
    before.outEntry = index;
    if (before === pending) pending = undefined;
    outcomes[index] = { result: 'created', action: 'closed', slot: before };
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

function distinct<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/**
 * Gives the records derived again the ids of the stored ones they continue: first the record the
 * same stored entry opened, then one the new record overlaps (the same shift, begun at another
 * punch). Answers the stored records left over: the derivation removes them.
 */
function matchDerivedRecords(
  timelines: Map<number, Slot[]>,
  derivations: Map<number, Derivation>,
): Array<{ employee: BadgedAttendanceEmployee; row: BatchAttendanceRow }> {
  const deleted: Array<{ employee: BadgedAttendanceEmployee; row: BatchAttendanceRow }> = [];
  for (const [employeeId, { employee, window, replayed }] of derivations) {
    const timeline = timelines.get(employeeId) as Slot[];
    const unmatched = new Map(window.map((row) => [row.id, row]));
    const fresh = timeline.filter((slot) => slot.stored === undefined);
    const take = (slot: Slot, row: BatchAttendanceRow) => {
      slot.stored = row;
      slot.id = row.id;
      unmatched.delete(row.id);
    };
    for (const slot of fresh) {
      const opener = slot.inEntry === undefined ? undefined : replayed.get(slot.inEntry);
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
    for (const row of unmatched.values()) deleted.push({ employee, row });
  }
  return deleted;
}

/** A record's columns as `slot` leaves it; `open` gives the state right after its punch-in (a new record's first event). */
function columnsOf(slot: Slot, context: PunchLogContext, open = false): AttendanceColumns {
  const now = toSqlDateTime(context.now);
  const outMs = open ? null : slot.outMs;
  const outInstant = outMs === null ? undefined : new Date(outMs);
  const inInstant = new Date(slot.inMs);
  if (slot.stored) {
    const { id: _id, derived_from_log: _derived, ...columns } = slot.stored;
    const zone = columns.timezone;
    const sameIn = Date.parse(utcIso(columns.in_time_utc)) === slot.inMs;
    const sameOut = (columns.out_time_utc === null ? null : Date.parse(utcIso(columns.out_time_utc))) === outMs;
    if (sameIn && sameOut) return columns;
    return {
      ...columns,
      ...(sameIn ? {} : { in_time_utc: toSqlDateTimeSeconds(inInstant), in_time_local: wallClockIn(zone, inInstant), in_ip: context.ip }),
      ...(sameOut
        ? {}
        : {
            out_time_utc: outInstant ? toSqlDateTimeSeconds(outInstant) : null,
            out_time_local: outInstant ? wallClockIn(zone, outInstant) : null,
            out_ip: outInstant ? context.ip : null,
            out_note: null,
            out_latitude: null,
            out_longitude: null,
          }),
      updated_at: now,
    };
  }
  return {
    employee_id: slot.employee.id,
    in_time_utc: toSqlDateTimeSeconds(inInstant),
    in_time_local: wallClockIn(slot.employee.timezone, inInstant),
    timezone: slot.employee.timezone,
    note: null,
    out_note: null,
    latitude: null,
    longitude: null,
    out_latitude: null,
    out_longitude: null,
    in_ip: context.ip,
    created_at: now,
    updated_at: now,
    out_time_utc: outInstant ? toSqlDateTimeSeconds(outInstant) : null,
    out_time_local: outInstant ? wallClockIn(slot.employee.timezone, outInstant) : null,
    out_ip: outInstant ? context.ip : null,
  };
}

/**
 * Writes what the batch left, record by record against what was stored: the new records (a few
 * hundred per INSERT), the stored ones it closed or derived again, the ones a derivation removed;
 * one audit row per change, and one webhook event per change of a record, in time order per
 * employee: attendance.punched_in for a new record (and punched_out if the batch closed it too),
 * punched_out for a stored open record now closed, corrected for any other change, deleted.
 * Removals and closings go first, so that no two records of an employee are open at any moment
 * (the open_employee_id index).
 */
async function writeRecords(
  trx: Db,
  timelines: Map<number, Slot[]>,
  deleted: Array<{ employee: BadgedAttendanceEmployee; row: BatchAttendanceRow }>,
  context: PunchLogContext,
): Promise<void> {
  const audits: AuditEntry[] = [];
  const events: OutboxEvent[] = [];
  const record = (id: number, employee: BadgedAttendanceEmployee, columns: AttendanceColumns): AttendanceRecord => ({
    id,
    ...columns,
    employeeDisplay: employee.display,
  });

  // The deletion feed's tombstones (GET /attendance/deleted), before the rows go.
  await recordAttendanceDeletions(
    trx,
    deleted.map(({ row }) => row.id),
    context.now,
  );
  for (const { employee, row } of deleted) {
    await deleteAttendance(trx, row.id);
    const { id: _id, derived_from_log: _derived, ...before } = row;
    audits.push({
      action: 'delete',
      entityType: 'attendance',
      entityId: row.id,
      employeeId: employee.id,
      ...attendanceChanges(before, {}),
    });
    events.push(deletionEvent('attendance.deleted', row.id, context.now));
  }

  const created: Slot[] = [];
  const updates: Array<{ slot: Slot; before: AttendanceColumns; after: AttendanceColumns }> = [];
  for (const timeline of timelines.values()) {
    for (const slot of timeline) {
      if (!slot.stored) {
        created.push(slot);
        continue;
      }
      // A stored record no entry opened (derived again) or closed is as it was.
      if (slot.inEntry === undefined && slot.outEntry === undefined) continue;
      const after = columnsOf(slot, context);
      const { id: _id, derived_from_log: _derived, ...before } = slot.stored;
      if (attendanceChanges(before, after).fields.length > 0) updates.push({ slot, before, after });
    }
  }
  // Closed (or closed elsewhere) before any record opens.
  updates.sort((a, b) => Number(a.after.out_time_utc === null) - Number(b.after.out_time_utc === null));
  for (const { slot, after } of updates)
    await updateAttendance(trx, slot.id as number, after, (slot.stored as BatchAttendanceRow).derived_from_log);
  const ids = await insertAttendanceRows(
    trx,
    created.map((slot) => columnsOf(slot, context)),
  );
  created.forEach((slot, position) => {
    slot.id = ids[position];
  });

  const updated = new Map(updates.map((update) => [update.slot, update]));
  for (const timeline of timelines.values()) {
    for (const slot of timeline) {
      const id = slot.id as number;
      const { employee } = slot;
      const change = updated.get(slot);
      if (!slot.stored) {
        const opened = columnsOf(slot, context, true);
        audits.push({
          action: 'punch_in',
          entityType: 'attendance',
          entityId: id,
          employeeId: employee.id,
          ...attendanceChanges({}, opened),
        });
        events.push(attendanceEvent('attendance.punched_in', record(id, employee, opened), context.now));
        if (slot.outMs === null) continue;
        const closed = columnsOf(slot, context);
        audits.push({
          action: 'punch_out',
          entityType: 'attendance',
          entityId: id,
          employeeId: employee.id,
          ...attendanceChanges(opened, closed),
        });
        events.push(attendanceEvent('attendance.punched_out', record(id, employee, closed), context.now));
      } else if (change) {
        const { before, after } = change;
        const diff = attendanceChanges(before, after);
        const punchedOut = before.out_time_utc === null && after.out_time_utc !== null && before.in_time_utc === after.in_time_utc;
        audits.push({
          action: punchedOut ? 'punch_out' : 'update',
          entityType: 'attendance',
          entityId: id,
          employeeId: employee.id,
          ...diff,
        });
        events.push(
          punchedOut
            ? attendanceEvent('attendance.punched_out', record(id, employee, after), context.now)
            : attendanceEvent('attendance.corrected', record(id, employee, after), context.now, diff.fields),
        );
      }
    }
  }
  await writeAudits(trx, audits, { caller: context.uploader.caller, requestId: context.requestId, now: context.now });
  await recordEvents(trx, events);
}

/** The stored entries a derivation applied again whose outcome it changed, with the new one. */
function changedPunches(derivations: Map<number, Derivation>, outcomes: Outcome[]): Array<{ punch: StoredPunch; outcome: Outcome }> {
  const changed: Array<{ punch: StoredPunch; outcome: Outcome }> = [];
  for (const { replayed } of derivations.values()) {
    for (const [index, punch] of replayed) {
      const outcome = outcomes[index] as Outcome;
      const now = logOutcome(outcome);
      if (
        now.result !== punch.result ||
        now.action !== punch.action ||
        now.attendance_id !== punch.attendance_id ||
        now.code !== punch.code
      ) {
        changed.push({ punch, outcome });
      }
    }
  }
  return changed;
}

/** The log columns of an entry's outcome (after the records are written: a created one names its record). */
function logOutcome(outcome: Outcome): Pick<PunchLogColumns, 'result' | 'action' | 'attendance_id' | 'code' | 'message'> {
  return {
    result: outcome.result,
    action: outcome.result === 'created' ? outcome.action : null,
    attendance_id: outcome.result === 'created' ? (outcome.slot.id as number) : null,
    code: outcome.result === 'rejected' ? outcome.code : outcome.result === 'duplicate' ? (outcome.repeated?.code ?? null) : null,
    message:
      (outcome.result === 'rejected' ? outcome.message : outcome.result === 'duplicate' ? outcome.repeated?.message : undefined)?.slice(
        0,
        500,
      ) ?? null,
  };
}

/** The raw log: every entry but the ones received before (that one is there already). */
function logRows(
  entries: PunchLogEntry[],
  outcomes: Outcome[],
  employeeOf: Array<BadgedAttendanceEmployee | undefined>,
  timeOf: Array<number | undefined>,
  context: PunchLogContext,
): PunchLogColumns[] {
  const receivedAt = toSqlDateTime(context.now);
  const rows: PunchLogColumns[] = [];
  entries.forEach((entry, index) => {
    const outcome = outcomes[index] as Outcome;
    if (outcome.result === 'duplicate' && !outcome.repeated) return;
    const time = timeOf[index];
    rows.push({
      device_id: context.uploader.deviceId,
      log_id: entry.log_id,
      uploaded_by_user_id: context.uploader.caller?.userId ?? null,
      attendance_device_id: entry.attendance_device_id ?? null,
      employee_id: employeeOf[index]?.id ?? null,
      time: entry.time,
      time_utc: time === undefined ? null : toSqlDateTimeSeconds(new Date(time)),
      direction: entry.direction,
      ...logOutcome(outcome),
      received_at: receivedAt,
    });
  });
  return rows;
}

function answerOf(logId: string, outcome: Outcome): EntryAnswer {
  if (outcome.result === 'created')
    return { log_id: logId, result: 'created', attendance: String(outcome.slot.id), action: outcome.action };
  if (outcome.result === 'rejected') return { log_id: logId, result: 'rejected', code: outcome.code, message: outcome.message };
  return outcome.repeated ? { log_id: logId, result: 'duplicate', ...outcome.repeated } : { log_id: logId, result: 'duplicate' };
}
