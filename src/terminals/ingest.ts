import type { Caller } from '../caller';
import { utcIso } from '../attendance/output';
import { type BadgedAttendanceEmployee, lockAttendanceEmployees } from '../attendance/repository';
import type { AttendanceSettings } from '../attendance/rules';
import type { Db } from '../db/connect';
import { asUniqueViolation } from '../db/constraint-errors';
import { RunAgainError } from '../db/retry-conflicts';
import { toSqlDateTime, toSqlDateTimeSeconds } from '../db/sql-time';
import { markAttendanceChanges } from '../period-guard/change-marks';
import { firstLockedDate, PeriodStates, readPeriodStates } from '../period-guard/guard';
import { reopenTimesheets } from '../period-guard/reopen';
import { addDays } from '../time';
import { lockDevice } from './devices';
import { answerOf, changedOutcomes, type EntryAnswer, logOutcome, punchLogRows, type ReceivedEntry, receiveEntries } from './entries';
import {
  findLatestPunchTimes,
  findPunchesOfEmployeesFrom,
  findReceivedLogIds,
  insertPunchLogs,
  MANUAL_DEVICE_ID,
  updatePunchOutcome,
} from './punch-log-repository';
import { type BatchAttendanceRow, findAttendanceOfEmployeesBetween } from './record-repository';
import { writeRecords } from './record-writes';
import type { PunchLogEntry } from './schemas';
import { derivationStart, planOutsideLockedPeriods, type Punch, type TimelineInput } from './timeline-planner';

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

/** An entry the plan of its employee decides: its employee and time are known and allowed. */
type PlannedEntry = ReceivedEntry & Punch & { employee: BadgedAttendanceEmployee };

/**
 * Applies a batch. Order of locks and reads, as for a single punch (see lockAttendanceEmployee):
 * the device's row (its uploads run one after another), then the named employees' rows, then the
 * plain reads (which log ids the device sent before, the records the entries can meet), so that
 * they see whatever a punch that held those locks before committed. Then, per employee, a plan:
 * the entries in time order against the records in memory (derived again from the log when it
 * holds a later punch: src/terminals/timeline-planner.ts), without those that would change a
 * locked period. Then the writes, a few hundred rows per statement: records, audit rows, webhook
 * events, reopened timesheets, the raw log.
 */
export async function ingestPunchLogs(trx: Db, entries: PunchLogEntry[], context: PunchLogContext): Promise<EntryAnswer[]> {
  const { uploader, now, settings } = context;

  if (uploader.deviceId !== MANUAL_DEVICE_ID) await lockDevice(trx, uploader.deviceId);
  const employees = await lockAttendanceEmployees(trx, namedEmployees(entries));

  const received = await findReceivedLogIds(trx, uploader.deviceId, distinct(entries.map((entry) => entry.log_id)));
  const batch = receiveEntries(entries, { employees, received, timezone: uploader.timezone, now, settings });
  const { timelines, periods } = await readTimelines(trx, punchesByEmployee(batch), settings);

  const plans = timelines.map((timeline) =>
    planOutsideLockedPeriods(timeline, (dates) => firstLockedDate(periods.of(timeline.employee.id), dates), context),
  );

  await writeRecords(trx, plans, { now, ip: context.ip, caller: uploader.caller, requestId: context.requestId });
  await reopenTimesheets(
    trx,
    plans.map(({ employee, touchedDates }) => ({ employeeId: employee.id, periods: periods.approvedHolding(employee.id, touchedDates) })),
    { caller: uploader.caller, now, requestId: context.requestId },
  );
  await markAttendanceChanges(
    trx,
    plans.map(({ employee, touchedDates }) => ({ employeeId: employee.id, dates: touchedDates })),
  );
  const changedAt = toSqlDateTime(now);
  for (const { punch, outcome } of changedOutcomes(plans)) await updatePunchOutcome(trx, punch, logOutcome(outcome), changedAt);
  try {
    await insertPunchLogs(trx, punchLogRows(batch, { deviceId: uploader.deviceId, userId: uploader.caller?.userId ?? null, now }));
  } catch (error) {
    // Admins' manual uploads take no device lock: one that sent the same log_id for another
    // employee committed first. Run again, this upload finds it received: a duplicate.
    if (asUniqueViolation(error)?.key.includes('log_id')) throw new RunAgainError(error);
    throw error;
  }
  return batch.map(answerOf);
}

function namedEmployees(entries: PunchLogEntry[]): { badges: string[]; ids: number[] } {
  return {
    badges: distinct(entries.flatMap((entry) => (entry.attendance_device_id === undefined ? [] : [entry.attendance_device_id]))),
    ids: distinct(entries.flatMap((entry) => (entry.employee === undefined ? [] : [entry.employee]))),
  };
}

/** The entries left to plan, by employee, in the order sent (employees in the order first named). */
function punchesByEmployee(batch: ReceivedEntry[]): Map<BadgedAttendanceEmployee, PlannedEntry[]> {
  const byEmployee = new Map<BadgedAttendanceEmployee, PlannedEntry[]>();
  for (const received of batch) {
    if (received.outcome !== undefined || received.employee === undefined || received.ms === undefined) continue;
    const planned = received as PlannedEntry;
    byEmployee.set(planned.employee, [...(byEmployee.get(planned.employee) ?? []), planned]);
  }
  return byEmployee;
}

/**
 * What the plans need of each employee, in a few reads for the whole batch: the records the
 * entries can meet, the latest punch of the log, the log's entries a derivation applies again,
 * and the locked periods and approved timesheets (docs/pay-periods.md).
 */
async function readTimelines(
  trx: Db,
  punchesOf: Map<BadgedAttendanceEmployee, PlannedEntry[]>,
  settings: AttendanceSettings,
): Promise<{ timelines: TimelineInput[]; periods: PeriodStates }> {
  const employeeIds = [...punchesOf.keys()].map((employee) => employee.id);
  // Records no longer than max_shift_hours that start before the earliest entry minus that much
  // end before it: nothing earlier can matter. Later records all can (a late entry must fit before them).
  const maxShiftMs = settings.maxShiftHours * 3_600_000;
  const times = [...punchesOf.values()].flat().map((punch) => punch.ms);
  const from = times.length === 0 ? 0 : Math.min(...times) - maxShiftMs;
  const records = await findAttendanceOfEmployeesBetween(trx, employeeIds, toSqlDateTimeSeconds(new Date(from)), '9999-12-31 23:59:59');
  const latestPunches = await findLatestPunchTimes(trx, employeeIds);
  const recordsOf = new Map<number, BatchAttendanceRow[]>();
  for (const row of records) recordsOf.set(row.employee_id, [...(recordsOf.get(row.employee_id) ?? []), row]);
  const timelines = [...punchesOf].map(([employee, punches]): TimelineInput => {
    const latest = latestPunches.get(employee.id);
    return {
      employee,
      records: recordsOf.get(employee.id) ?? [],
      punches,
      latestLogged: latest === undefined ? undefined : Date.parse(utcIso(latest)),
      logged: [],
      maxShiftMs,
    };
  });
  // Every derivation's entries in one read, from where each starts with all the batch's entries
  // (the earliest it can: one without a locked period's entries only starts later).
  const starts = timelines.flatMap((timeline) => {
    const start = derivationStart(timeline);
    return start === undefined ? [] : [{ employeeId: timeline.employee.id, from: toSqlDateTimeSeconds(new Date(start)) }];
  });
  const logged = await findPunchesOfEmployeesFrom(trx, starts);
  for (const timeline of timelines) timeline.logged = logged.get(timeline.employee.id) ?? [];
  // Records from `from` on, whose dates on their own wall clocks start at most a day before its UTC date.
  const periods =
    employeeIds.length === 0
      ? new PeriodStates()
      : await readPeriodStates(trx, employeeIds, {
          start: addDays(toSqlDateTimeSeconds(new Date(from)).slice(0, 10), -1),
          end: '9999-12-31',
        });
  return { timelines, periods };
}

function distinct<T>(values: T[]): T[] {
  return [...new Set(values)];
}
