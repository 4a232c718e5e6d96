import type { BadgedAttendanceEmployee } from '../attendance/repository';
import { afterTermination, type AttendanceSettings, wholeSecond } from '../attendance/rules';
import { toSqlDateTime, toSqlDateTimeSeconds } from '../db/sql-time';
import { instantOfWallClock } from '../time';
import type { PunchLogColumns, StoredPunch } from './punch-log-repository';
import { type Direction, entryTime, type EntryResult, type PunchLogEntry } from './schemas';
import { type Outcome, rejected, type TimelinePlan } from './timeline-planner';

// Each entry of a batch: how it is received, answered, and kept in the raw log.

/** One entry of a batch: the employee and instant it names (once read), and what became of it. */
export interface ReceivedEntry {
  entry: PunchLogEntry;
  employee: BadgedAttendanceEmployee | undefined;
  /** The instant, whole seconds; undefined when the time names none or the employee is unknown. */
  ms: number | undefined;
  direction: Direction;
  /** Set when the entry is refused before planning, else by the plan of its employee. */
  outcome: Outcome | undefined;
}

/**
 * Each entry as received: a duplicate of one the device sent before (or earlier in the batch),
 * or its employee and instant, refused when either is unknown, too far in the future, or after
 * the employee's last day. The rest are left to the plans.
 */
export function receiveEntries(
  entries: PunchLogEntry[],
  known: {
    employees: BadgedAttendanceEmployee[];
    received: ReadonlySet<string>;
    timezone: string | undefined;
    now: Date;
    settings: AttendanceSettings;
  },
): ReceivedEntry[] {
  const { settings } = known;
  // Badge numbers match regardless of case, as the column compares them.
  const badgeKey = (badge: string) => badge.toLowerCase();
  const byBadge = new Map(
    known.employees.flatMap((employee) =>
      employee.attendance_device_id === null ? [] : [[badgeKey(employee.attendance_device_id), employee] as const],
    ),
  );
  const byId = new Map(known.employees.map((employee) => [employee.id, employee]));
  const latestAllowed = known.now.getTime() + settings.punchFutureToleranceSeconds * 1000;
  const seen = new Set<string>();
  return entries.map((entry): ReceivedEntry => {
    const received = { entry, employee: undefined, ms: undefined, direction: entry.direction, outcome: undefined };
    if (known.received.has(entry.log_id) || seen.has(entry.log_id)) return { ...received, outcome: { result: 'duplicate' } };
    seen.add(entry.log_id);
    const employee = entry.employee === undefined ? byBadge.get(badgeKey(entry.attendance_device_id as string)) : byId.get(entry.employee);
    if (!employee) {
      const named = entry.employee === undefined ? `attendance_device_id ${entry.attendance_device_id}` : `id ${entry.employee}`;
      return { ...received, outcome: rejected('unknown_employee', `No employee has ${named}`) };
    }
    const time = entryTime(entry);
    const zone = known.timezone ?? employee.timezone;
    const instant = 'instant' in time ? time.instant : instantOfWallClock(zone, time.reading);
    if (!instant) {
      const message = `${entry.time} does not exist in ${zone}: the clocks skip it for daylight saving time`;
      return { ...received, employee, outcome: rejected('invalid_time', message) };
    }
    const ms = wholeSecond(instant).getTime();
    if (ms > latestAllowed) {
      const message = `The time is more than ${settings.punchFutureToleranceSeconds} seconds in the future (punch_future_tolerance_seconds)`;
      return { ...received, employee, ms, outcome: rejected('future_time', message) };
    }
    const terminated = afterTermination(employee, new Date(ms));
    if (terminated) return { ...received, employee, ms, outcome: rejected('employee_terminated', terminated) };
    return { ...received, employee, ms };
  });
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

export function answerOf({ entry, outcome }: ReceivedEntry): EntryAnswer {
  const logId = entry.log_id;
  const answer = outcome as Outcome;
  if (answer.result === 'created') return { log_id: logId, result: 'created', attendance: String(answer.slot.id), action: answer.action };
  if (answer.result === 'rejected') return { log_id: logId, result: 'rejected', code: answer.code, message: answer.message };
  return answer.repeated ? { log_id: logId, result: 'duplicate', ...answer.repeated } : { log_id: logId, result: 'duplicate' };
}

/** The log columns of an outcome (after the records are written: a created one names its record). */
export function logOutcome(outcome: Outcome): Pick<PunchLogColumns, 'result' | 'action' | 'attendance_id' | 'code' | 'message'> {
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

/** The raw log's new rows: every entry but the ones received before (that one is there already). */
export function punchLogRows(
  batch: readonly ReceivedEntry[],
  upload: { deviceId: number; userId: number | null; now: Date },
): PunchLogColumns[] {
  const receivedAt = toSqlDateTime(upload.now);
  return batch
    .filter(({ outcome }) => !(outcome?.result === 'duplicate' && !outcome.repeated))
    .map(({ entry, employee, ms, outcome }) => ({
      device_id: upload.deviceId,
      log_id: entry.log_id,
      uploaded_by_user_id: upload.userId,
      attendance_device_id: entry.attendance_device_id ?? null,
      employee_id: employee?.id ?? null,
      time: entry.time,
      time_utc: ms === undefined ? null : toSqlDateTimeSeconds(new Date(ms)),
      direction: entry.direction,
      ...logOutcome(outcome as Outcome),
      received_at: receivedAt,
    }));
}

/** The log's entries the plans applied again whose outcome changed, with the new one. */
export function changedOutcomes(plans: readonly TimelinePlan[]): Array<{ punch: StoredPunch; outcome: Outcome }> {
  const changed: Array<{ punch: StoredPunch; outcome: Outcome }> = [];
  for (const { logged, outcome } of plans.flatMap((plan) => plan.replayed)) {
    const punch = logged as StoredPunch;
    const now = logOutcome(outcome as Outcome);
    if (
      now.result !== punch.result ||
      now.action !== punch.action ||
      now.attendance_id !== punch.attendance_id ||
      now.code !== punch.code
    ) {
      changed.push({ punch, outcome: outcome as Outcome });
    }
  }
  return changed;
}
