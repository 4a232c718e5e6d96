import type { Caller } from '../caller';
import { type AuditEntry, writeAudits } from '../audit/repository';
import type { Db } from '../db/connect';
import { toSqlDateTime, toSqlDateTimeSeconds } from '../db/sql-time';
import { utcIso } from '../attendance/output';
import {
  type AttendanceColumns,
  type AttendanceRecord,
  type AttendanceRow,
  type BadgedAttendanceEmployee,
  findAttendanceOfEmployeesBetween,
  insertAttendanceRows,
  lockAttendanceEmployees,
  updateAttendance,
} from '../attendance/repository';
import { type AttendanceSettings, wholeSecond } from '../attendance/rules';
import { attendanceChanges } from '../attendance/writes';
import { instantOfWallClock, wallClockIn } from '../time';
import { recordEvents, type OutboxEvent } from '../webhooks/outbox';
import { attendanceEvent } from '../attendance/events';
import { lockDevice } from './devices';
import { findReceivedLogIds, insertPunchLogs, MANUAL_DEVICE_ID, type PunchLogColumns } from './punch-log-repository';
import { entryTime, type EntryResult, type PunchLogEntry } from './schemas';

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

export interface PunchLogContext {
  uploader: Uploader;
  now: Date;
  requestId: string;
  ip: string;
  settings: AttendanceSettings;
}

/** One entry's answer, in the order sent. */
export interface EntryAnswer {
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
  stored: AttendanceRow | undefined;
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
 * Applies a batch. Order of locks and reads, as for a single punch (see lockAttendanceEmployee):
 * the device's row (its uploads run one after another), then the named employees' rows, then the
 * plain reads (which log ids the device sent before, the records the entries can meet), so that
 * they see whatever a punch that held those locks before committed. Then, per employee, the
 * entries in time order against the records in memory; then the writes, a few hundred rows per
 * statement: records, audit rows, webhook events, the raw log.
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
    employees.flatMap((employee) => (employee.attendance_device_id === null ? [] : [[badgeKey(employee.attendance_device_id), employee] as const])),
  );
  const byId = new Map(employees.map((employee) => [employee.id, employee]));
  const received = await findReceivedLogIds(trx, uploader.deviceId, distinct(entries.map((entry) => entry.log_id)));

  const outcomes: Outcome[] = [];
  const employeeOf: Array<BadgedAttendanceEmployee | undefined> = [];
  const timeOf: Array<number | undefined> = [];
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
      outcomes[index] = rejected('future_time', `The time is more than ${settings.punchFutureToleranceSeconds} seconds in the future (punch_future_tolerance_seconds)`);
      return;
    }
    entriesOf.set(employee.id, [...(entriesOf.get(employee.id) ?? []), index]);
  });

  // Records no longer than max_shift_hours that start before the earliest entry minus that much
  // end before it: nothing earlier can matter. Later records all can (a late entry must fit before them).
  const maxShiftMs = settings.maxShiftHours * 3_600_000;
  const applied = [...entriesOf.values()].flat().map((index) => timeOf[index] as number);
  const from = applied.length === 0 ? 0 : Math.min(...applied) - maxShiftMs;
  const stored = await findAttendanceOfEmployeesBetween(trx, [...entriesOf.keys()], toSqlDateTimeSeconds(new Date(from)), '9999-12-31 23:59:59');
  const timelines = new Map<number, Slot[]>();
  for (const row of stored) {
    const employee = byId.get(row.employee_id) as BadgedAttendanceEmployee;
    const slot: Slot = {
      employee,
      stored: row,
      id: row.id,
      inMs: Date.parse(utcIso(row.in_time_utc)),
      outMs: row.out_time_utc === null ? null : Date.parse(utcIso(row.out_time_utc)),
      inEntry: undefined,
      outEntry: undefined,
      closeBy: undefined,
    };
    timelines.set(row.employee_id, [...(timelines.get(row.employee_id) ?? []), slot]);
  }

  const appliedOrder: number[] = [];
  for (const [employeeId, indexes] of entriesOf) {
    const timeline = (timelines.get(employeeId) ?? []).sort((a, b) => a.inMs - b.inMs);
    // In time order; entries at the same second in the order sent.
    indexes.sort((a, b) => (timeOf[a] as number) - (timeOf[b] as number) || a - b);
    applyTimeline(byId.get(employeeId) as BadgedAttendanceEmployee, { entries, indexes, timeOf: timeOf as number[] }, timeline, outcomes, maxShiftMs);
    appliedOrder.push(...indexes);
  }

  await writeSlots(trx, appliedOrder, outcomes, context);
  await insertPunchLogs(trx, logRows(entries, outcomes, employeeOf, timeOf, context));
  return entries.map((entry, index) => answerOf(entry.log_id, outcomes[index] as Outcome));
}

/**
 * Punches of one employee this close to another of theirs are the same punch seen twice (two
 * terminals at one door, a badge held to the reader twice): answered as duplicates.
 */
export const REPEATED_PUNCH_SECONDS = 60;

/** The entries of one employee, in time order, against their timeline (sorted by start). */
function applyTimeline(
  employee: BadgedAttendanceEmployee,
  batch: { entries: PunchLogEntry[]; indexes: number[]; timeOf: number[] },
  timeline: Slot[],
  outcomes: Outcome[],
  maxShiftMs: number,
): void {
  const { entries, indexes, timeOf } = batch;
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
    const entry = entries[index] as PunchLogEntry;
    const t = timeOf[index] as number;
    if (pending && (t > (pending.closeBy as Slot).inMs || (t === (pending.closeBy as Slot).inMs && entry.direction === 'in'))) withdrawPending(pending);
    const repeated = timeline.find((slot) => Math.abs(slot.inMs - t) <= repeatMs || (slot.outMs !== null && Math.abs(slot.outMs - t) <= repeatMs));
    if (repeated) {
      const punch = Math.abs(repeated.inMs - t) <= repeatMs ? repeated.inMs : (repeated.outMs as number);
      const message = `The employee punched at ${new Date(punch).toISOString()} (${describe(repeated)}), within ${REPEATED_PUNCH_SECONDS} seconds: taken as the same punch`;
      outcomes[index] = { result: 'duplicate', repeated: { code: 'repeated_punch', message } };
      continue;
    }
    const before = findLast(timeline, (slot) => slot.inMs < t);
    const direction = entry.direction === 'auto' ? (before && before.outMs === null ? 'out' : 'in') : entry.direction;
    if (direction === 'in') {
      const previous = findLast(timeline, (slot) => slot.inMs <= t);
      if (previous && previous.outMs === null) {
        outcomes[index] = rejected('already_punched_in', `The employee is already punched in (${describe(previous)}): punch out first`);
        continue;
      }
      if (previous && (previous.inMs === t || (previous.outMs as number) > t)) {
        outcomes[index] = rejected('overlap', `The time falls within ${describe(previous)}, which ends at ${new Date(previous.outMs as number).toISOString()}`);
        continue;
      }
      const next = timeline.find((slot) => slot.inMs > t);
      const slot: Slot = { employee, stored: undefined, id: undefined, inMs: t, outMs: null, inEntry: index, outEntry: undefined, closeBy: next };
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

/** A slot's columns as the batch leaves it; `open` gives the state right after its punch-in. */
function columnsOf(slot: Slot, context: PunchLogContext, open = false): AttendanceColumns {
  const now = toSqlDateTime(context.now);
  const closed = !open && slot.outMs !== null;
  const outInstant = closed ? new Date(slot.outMs as number) : undefined;
  const out = {
    out_time_utc: outInstant ? toSqlDateTimeSeconds(outInstant) : null,
    out_time_local: outInstant ? wallClockIn(slot.stored?.timezone ?? slot.employee.timezone, outInstant) : null,
    out_ip: outInstant ? context.ip : null,
  };
  if (slot.stored) {
    const { id: _id, ...columns } = slot.stored;
    return open ? columns : { ...columns, ...out, out_note: null, out_latitude: null, out_longitude: null, updated_at: now };
  }
  const inInstant = new Date(slot.inMs);
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
    ...out,
  };
}

/**
 * Writes what the applied entries left: the new records (a few hundred per INSERT), the stored
 * open records they closed, one audit row per punch, and the webhook events of every record
 * opened or closed, in the order of its punches (attendance.punched_in, attendance.punched_out).
 */
async function writeSlots(trx: Db, appliedOrder: number[], outcomes: Outcome[], context: PunchLogContext): Promise<void> {
  const created = new Map<Slot, AttendanceColumns>();
  const closedStored = new Set<Slot>();
  for (const index of appliedOrder) {
    const outcome = outcomes[index] as Outcome;
    if (outcome.result !== 'created') continue;
    if (!outcome.slot.stored) created.set(outcome.slot, columnsOf(outcome.slot, context));
    else closedStored.add(outcome.slot);
  }
  const newSlots = [...created.keys()];
  const ids = await insertAttendanceRows(trx, [...created.values()]);
  newSlots.forEach((slot, position) => {
    slot.id = ids[position];
  });
  for (const slot of closedStored) await updateAttendance(trx, slot.id as number, columnsOf(slot, context));

  const audits: AuditEntry[] = [];
  const events: OutboxEvent[] = [];
  const record = (slot: Slot, columns: AttendanceColumns): AttendanceRecord => ({ id: slot.id as number, ...columns, employeeDisplay: slot.employee.display });
  for (const index of appliedOrder) {
    const outcome = outcomes[index] as Outcome;
    if (outcome.result !== 'created') continue;
    const { slot } = outcome;
    const opened = columnsOf(slot, context, true);
    const [action, before, after] = outcome.action === 'opened' ? (['punch_in', {}, opened] as const) : (['punch_out', opened, columnsOf(slot, context)] as const);
    const { fields, changes } = attendanceChanges(before, after);
    audits.push({ action, entityType: 'attendance', entityId: slot.id as number, employeeId: slot.employee.id, fields, changes });
    events.push(attendanceEvent(outcome.action === 'opened' ? 'attendance.punched_in' : 'attendance.punched_out', record(slot, after), context.now));
  }
  await writeAudits(trx, audits, { caller: context.uploader.caller, requestId: context.requestId, now: context.now });
  await recordEvents(trx, events);
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
      result: outcome.result,
      action: outcome.result === 'created' ? outcome.action : null,
      attendance_id: outcome.result === 'created' ? (outcome.slot.id as number) : null,
      code: outcome.result === 'rejected' ? outcome.code : outcome.result === 'duplicate' ? (outcome.repeated?.code ?? null) : null,
      message: (outcome.result === 'rejected' ? outcome.message : outcome.result === 'duplicate' ? outcome.repeated?.message : undefined)?.slice(0, 500) ?? null,
      received_at: receivedAt,
    });
  });
  return rows;
}

function answerOf(logId: string, outcome: Outcome): EntryAnswer {
  if (outcome.result === 'created') return { log_id: logId, result: 'created', attendance: String(outcome.slot.id), action: outcome.action };
  if (outcome.result === 'rejected') return { log_id: logId, result: 'rejected', code: outcome.code, message: outcome.message };
  return outcome.repeated ? { log_id: logId, result: 'duplicate', ...outcome.repeated } : { log_id: logId, result: 'duplicate' };
}
