import { lockAttendanceEmployees } from '../attendance/repository';
import { checkTimes, type AttendanceSettings } from '../attendance/rules';
import { fromSqlDateTime } from '../db/sql-time';
import { markAttendanceChanges } from '../period-guard/change-marks';
import { firstLockedDate, lockedPeriodOf, type PeriodStates, readPeriodStates } from '../period-guard/guard';
import { reopenTimesheets } from '../period-guard/reopen';
import type { Period } from '../pay-rules/periods';
import type { IcehrmAttendanceRow, IcehrmSource } from './icehrm-source';
import { type AttendanceColumns, columnsOfRecord, recordColumnsOf, WallClockCache, wallClock } from './attendance-columns';
import { rowInserter } from './insert-rows';
import { fingerprintOf, type LedgerEntry, type LedgerRow, readLedgerGroups, writeLedger } from './ledger';
import type { ImportContext } from './report';
import { recordAttendanceDeletions } from '../deletions/tombstones';

const insertAttendance = rowInserter('attendance', [
  'id',
  'employee_id',
  'in_time_utc',
  'in_time_local',
  'out_time_utc',
  'out_time_local',
  'timezone',
  'note',
  'out_note',
  'latitude',
  'longitude',
  'out_latitude',
  'out_longitude',
  'in_ip',
  'out_ip',
  'open_employee_id',
  'created_at',
  'updated_at',
]);

/** IceHrm records per batch (one transaction each), whole employees at a time. */
const RECORDS_PER_BATCH = 5000;

/** A record already here that this run does not rewrite: it constrains the imported ones. */
interface Interval {
  id: number;
  start: number;
  /** Infinity while open. */
  end: number;
}

/**
 * Copies IceHrm's attendance, ids kept, reading IceHrm's wall-clock times in each employee's time
 * zone. A record that breaks this server's rules (no in time, out not after in, longer than
 * max_shift_hours, in the future, overlapping an earlier record, or open while a later record
 * exists) is reported with the reason and left out whole. Employees are taken in batches of
 * about RECORDS_PER_BATCH records, a transaction each; records the ledger holds unchanged are
 * not written again, and one an earlier run imported that breaks the rules now is removed. With
 * `since`, only records that begin on or after that day are read.
 */
export async function importAttendance(
  context: ImportContext,
  source: IcehrmSource,
  employees: Map<number, string>,
  options: { since: string | undefined; settings: AttendanceSettings },
): Promise<void> {
  const { db, report } = context;
  const counts = report.counts('attendance');
  const perEmployee = await source.attendanceCounts(options.since);
  let total = 0;
  for (const [employee, n] of perEmployee) {
    if (employees.has(employee)) total += n;
    else {
      counts.read += n;
      counts.rejected += n;
      report.rejects.push(
        `attendance of employee ${employee} (${n} record${n === 1 ? '' : 's'}): the employee is not here (deleted in IceHrm, or left out)`,
      );
    }
  }
  // An IceHrm id must not land on a record here that no import wrote (--merge, or one written
  // through the API between runs). Into a table that was empty at the start nothing can clash.
  const targetHadAttendance = (await db('attendance').first('id')) !== undefined;
  const timeCache = new WallClockCache();

  let done = 0;
  for (const batch of employeeBatches(
    [...perEmployee.keys()].filter((id) => employees.has(id)).sort((a, b) => a - b),
    perEmployee,
  )) {
    const first = batch[0]!;
    const last = batch[batch.length - 1]!;
    const rows = (await source.attendanceOf(first, last, options.since)).filter((row) => employees.has(Number(row.employee)));
    const ledger = await readLedgerGroups(db, 'attendance', first, last);
    const ownIds = new Set([...ledger.values()].map((entry) => entry.targetId));
    const readIds = new Set(rows.map((row) => Number(row.id)));
    const here = (await db('attendance')
      .whereBetween('employee_id', [first, last])
      .select('id', 'employee_id', 'in_time_utc', 'in_time_local', 'out_time_utc', 'missed_punch_out')) as Array<{
      id: number;
      employee_id: number;
      in_time_utc: string;
      in_time_local: string;
      out_time_utc: string | null;
      missed_punch_out: number | boolean;
    }>;
    // Records that count in a locked pay period (docs/pay-periods.md) are neither written nor
    // removed: IceHrm's rows for them are reported and left out; the records here stay as they are.
    const periods = await readPeriodStates(db, batch, { start: '0001-01-01', end: '9999-12-31' });
    const hereById = new Map(here.map((record) => [Number(record.id), record]));
    const held = heldRows(rows, { ledger, hereById, periods });
    // Records here that this batch does not rewrite stay as they are and bound the imported ones.
    const fixed = new Map<number, Interval[]>();
    for (const record of here) {
      const id = Number(record.id);
      const rewritten =
        readIds.has(id) &&
        ownIds.has(id) &&
        !held.has(id) &&
        !lockedPeriodOf(periods.of(Number(record.employee_id)), record.in_time_local.slice(0, 10));
      if (rewritten) continue;
      const list = fixed.get(Number(record.employee_id)) ?? [];
      const start = fromSqlDateTime(record.in_time_utc).getTime();
      // A missed punch-out (docs/pay-periods.md) is not open: it holds only the second it began.
      const missed = Boolean(Number(record.missed_punch_out));
      list.push({
        id,
        start,
        end: record.out_time_utc !== null ? fromSqlDateTime(record.out_time_utc).getTime() : missed ? start + 1000 : Infinity,
      });
      fixed.set(Number(record.employee_id), list);
    }
    const taken = targetHadAttendance ? await foreignIdsAmong(context, [...readIds], ledger) : new Set<number>();
    const missedHere = new Set(here.filter((record) => Boolean(Number(record.missed_punch_out))).map((record) => Number(record.id)));

    const toWrite: Array<{ row: AttendanceColumns & { id: number }; add: boolean; fingerprint: string; employee: number }> = [];
    // Records an earlier run imported that break the rules now (IceHrm changed): they go, as if never imported.
    const withdrawn: number[] = [];
    let start = 0;
    while (start < rows.length) {
      const employee = Number(rows[start]!.employee);
      let end = start;
      while (end < rows.length && Number(rows[end]!.employee) === employee) end++;
      const ofEmployee = rows.slice(start, end);
      for (const row of ofEmployee) {
        const hold = held.get(Number(row.id));
        if (!hold) continue;
        const previous = ledger.get(Number(row.id));
        const columns = hold.unchangedIfImported ? recordColumnsOf(row, employees.get(employee)!, timeCache) : undefined;
        if (previous && columns && previous.fingerprint === fingerprintOf(columns)) counts.unchanged++;
        else {
          context.report.reject(
            'attendance',
            `attendance ${row.id} (employee ${row.employee}, in ${row.in_time ?? 'none'}, out ${row.out_time ?? 'none'}): ${heldReason(hold, previous !== undefined)}`,
          );
        }
      }
      const accepted = checkEmployeeRecords(
        context,
        ofEmployee.filter((row) => !held.has(Number(row.id))),
        employees.get(employee)!,
        fixed.get(employee) ?? [],
        taken,
        missedHere,
        options.settings,
        timeCache,
        (id) => {
          if (ledger.has(id)) withdrawn.push(id);
          return ledger.has(id);
        },
      );
      for (const { id, columns } of accepted) {
        const fingerprint = fingerprintOf(columns);
        const previous = ledger.get(id);
        if (previous?.fingerprint === fingerprint) {
          counts.unchanged++;
          continue;
        }
        if (previous) counts.updated++;
        else counts.added++;
        toWrite.push({ row: { id, ...columns }, add: !previous, fingerprint, employee });
      }
      start = end;
    }
    counts.read += rows.length;

    if (!context.dryRun && (toWrite.length > 0 || withdrawn.length > 0)) {
      // The dates the written and removed records count on, before and after: the approved
      // timesheets holding them go back to open (docs/pay-periods.md).
      const touched = new Map<number, Set<string>>();
      const touch = (employeeId: number, date: string | undefined) => {
        if (date === undefined) return;
        const dates = touched.get(employeeId) ?? new Set<string>();
        dates.add(date);
        touched.set(employeeId, dates);
      };
      for (const record of toWrite) {
        touch(record.employee, String(record.row.in_time_local).slice(0, 10));
        touch(record.employee, hereById.get(record.row.id)?.in_time_local.slice(0, 10));
      }
      for (const id of withdrawn) {
        const record = hereById.get(id);
        if (record) touch(Number(record.employee_id), record.in_time_local.slice(0, 10));
      }
      await db.transaction(async (trx) => {
        // As every attendance write: the employees' rows first, then the locks as they are now. A
        // period locked since they were read above stops the import (run it again).
        await lockAttendanceEmployees(trx, { badges: [], ids: [...touched.keys()] });
        const now = await readPeriodStates(trx, [...touched.keys()], { start: '0001-01-01', end: '9999-12-31' });
        for (const [employeeId, dates] of touched) {
          const locked = firstLockedDate(now.of(employeeId), [...dates]);
          if (locked) {
            throw new Error(
              `The pay period ${locked.period.start} to ${locked.period.end} was locked while importing employee ${employeeId}'s attendance: nothing of this batch was written; run the import again`,
            );
          }
        }
        await markAttendanceChanges(
          trx,
          [...touched].map(([employeeId, dates]) => ({ employeeId, dates })),
        );
        // The deletion feed's tombstones (GET /attendance/deleted), before the rows go.
        await recordAttendanceDeletions(trx, withdrawn, context.now);
        for (let at = 0; at < withdrawn.length; at += 500) {
          await trx('attendance')
            .whereIn('id', withdrawn.slice(at, at + 500))
            .delete();
          await trx('import_ledger')
            .where({ kind: 'attendance' })
            .whereIn('source_id', withdrawn.slice(at, at + 500))
            .delete();
        }
        // Changed records first: one closed in IceHrm since frees the open slot a new record may take.
        for (const record of toWrite.filter((r) => !r.add)) {
          // A missed punch-out here that IceHrm still has open stays missed, nobody's open record
          // (the employee may have punched in here since); an out_time from IceHrm ends it.
          const missed = missedHere.has(record.row.id) && record.row.out_time_utc === null;
          await trx('attendance')
            .where({ id: record.row.id })
            .update({ ...record.row, ...(missed ? { open_employee_id: null } : { missed_punch_out: false }), updated_at: context.nowSql });
        }
        await insertAttendance(
          trx,
          toWrite
            .filter((record) => record.add)
            .map((record) => ({ ...record.row, created_at: context.nowSql, updated_at: context.nowSql })),
        );
        const ledgerRows: LedgerRow[] = toWrite.map((record) => ({
          kind: 'attendance',
          sourceId: record.row.id,
          targetId: record.row.id,
          groupId: record.employee,
          fingerprint: record.fingerprint,
        }));
        await writeLedger(trx, ledgerRows, context.nowSql);
        // After the writes: the approved timesheets whose numbers they changed go back to open.
        const reopened = [...touched].map(([employeeId, dates]) => ({ employeeId, periods: now.approvedHolding(employeeId, dates) }));
        await reopenTimesheets(trx, reopened, { caller: undefined, now: context.now, requestId: undefined });
      });
    }
    done += rows.length;
    context.progress.running('attendance', done, total);
  }
  context.progress.tableDone('attendance', counts);
}

/** Employee ids in groups of about RECORDS_PER_BATCH records (an employee is never split). */
function* employeeBatches(ids: number[], perEmployee: Map<number, number>): Generator<number[]> {
  let batch: number[] = [];
  let records = 0;
  for (const id of ids) {
    batch.push(id);
    records += perEmployee.get(id) ?? 0;
    if (records >= RECORDS_PER_BATCH) {
      yield batch;
      batch = [];
      records = 0;
    }
  }
  if (batch.length > 0) yield batch;
}

/** Ids among `ids` that attendance here already uses for records no import wrote. */
async function foreignIdsAmong(context: ImportContext, ids: number[], ledger: Map<number, LedgerEntry>): Promise<Set<number>> {
  const taken = new Set<number>();
  const candidates = ids.filter((id) => !ledger.has(id));
  for (let start = 0; start < candidates.length; start += 500) {
    const rows = (await context
      .db('attendance')
      .whereIn('id', candidates.slice(start, start + 500))
      .select('id')) as Array<{ id: number }>;
    for (const row of rows) taken.add(Number(row.id));
  }
  return taken;
}

/**
 * One employee's records (in IceHrm's order: by in_time), checked against the rules; returns the
 * ones to keep as this server's columns and reports the others. Sorted by start, a record
 * overlaps an earlier kept one exactly when it starts before the latest end among them.
 */
function checkEmployeeRecords(
  context: ImportContext,
  rows: IcehrmAttendanceRow[],
  timezone: string,
  fixed: Interval[],
  taken: Set<number>,
  missed: ReadonlySet<number>,
  settings: AttendanceSettings,
  times: WallClockCache,
  withdraw: (id: number) => boolean,
): Array<{ id: number; columns: AttendanceColumns }> {
  const kept: Array<{ id: number; columns: AttendanceColumns }> = [];
  let latest: Interval | undefined;
  /** The open record met last, kept unless a later record is. */
  let open: { row: IcehrmAttendanceRow; record: { id: number; columns: AttendanceColumns } } | undefined;
  const reject = (row: IcehrmAttendanceRow, reason: string) => {
    const removed = !withdraw(Number(row.id))
      ? ''
      : context.dryRun
        ? '; an earlier run imported it: the import removes it'
        : '; an earlier run imported it: removed here';
    context.report.reject(
      'attendance',
      `attendance ${row.id} (employee ${row.employee}, in ${row.in_time ?? 'none'}, out ${row.out_time ?? 'none'}): ${reason}${removed}`,
    );
  };

  for (const row of rows) {
    const id = Number(row.id);
    if (taken.has(id)) {
      reject(row, `id ${id} is taken here by a record that did not come from IceHrm`);
      continue;
    }
    const inReading = wallClock(row.in_time);
    if (inReading === null) {
      reject(row, 'it has no in time');
      continue;
    }
    const outReading = wallClock(row.out_time);
    const inTime = times.instant(timezone, inReading);
    const outTime = outReading === null ? null : times.instant(timezone, outReading);
    if (!inTime || outTime === undefined) {
      reject(row, `${!inTime ? inReading : outReading} does not exist in ${timezone} (the clocks skip it for daylight saving time)`);
      continue;
    }
    const broken = checkTimes({ inTime, outTime }, { now: context.now, settings, checkFuture: { inTime: true, outTime: true } });
    if (broken.length > 0) {
      reject(row, broken.map((error) => `${error.field} ${error.message}`).join('; '));
      continue;
    }
    // A record here that a lock made a missed punch-out, still open in IceHrm, stays missed: it
    // holds only the second it began, as it does here, and is no open record.
    const end = outTime !== null ? outTime.getTime() : missed.has(id) ? inTime.getTime() + 1000 : Infinity;
    const interval: Interval = { id, start: inTime.getTime(), end };
    const clash =
      (latest && latest.end > interval.start ? latest : undefined) ??
      fixed.find((other) => other.start < interval.end && interval.start < other.end) ??
      (interval.end === Infinity ? fixed.find((other) => other.end === Infinity) : undefined);
    if (clash) {
      reject(
        row,
        clash.end === Infinity && interval.end === Infinity ? `record ${clash.id} is open already` : `it overlaps record ${clash.id}`,
      );
      continue;
    }
    const record = { id, columns: columnsOfRecord(row, timezone, { inReading, outReading, inTime, outTime }) };
    // An open record stays open only if no later record is kept: that one shows the employee
    // came back, so the open record is a forgotten punch-out.
    if (open) reject(open.row, `it is open, but record ${id} begins later (one open record per employee: the latest)`);
    open = undefined;
    if (interval.end === Infinity) open = { row, record };
    else {
      if (!latest || interval.end > latest.end) latest = interval;
      kept.push(record);
    }
  }
  if (open) kept.push(open.record);
  return kept;
}

/** Why an IceHrm row is held back: the locked period its record counts in, here or in IceHrm. */
interface Hold {
  date: string;
  period: Period;
  /** The record here is this row as imported before: unchanged rows are not reported. */
  unchangedIfImported: boolean;
}

/**
 * The rows whose record counts in a locked pay period, before (the record here, imported before)
 * or after (IceHrm's in_time, on the employee's wall clock as the import reads it).
 */
function heldRows(
  rows: IcehrmAttendanceRow[],
  known: {
    ledger: Map<number, LedgerEntry>;
    hereById: Map<number, { in_time_local: string }>;
    periods: PeriodStates;
  },
): Map<number, Hold> {
  const held = new Map<number, Hold>();
  if (known.periods.locks.length === 0) return held;
  for (const row of rows) {
    const id = Number(row.id);
    const here = known.ledger.has(id) ? known.hereById.get(id) : undefined;
    const dates = [here?.in_time_local.slice(0, 10), wallClock(row.in_time)?.slice(0, 10)].filter(
      (date): date is string => date !== undefined,
    );
    const locked = firstLockedDate(known.periods.of(Number(row.employee)), dates);
    if (locked) held.set(id, { ...locked, unchangedIfImported: here !== undefined });
  }
  return held;
}

function heldReason(hold: Hold, importedBefore: boolean): string {
  const kept = importedBefore ? 'the record imported before stays as it is' : 'not imported';
  return `it counts on ${hold.date}, in the locked pay period ${hold.period.start} to ${hold.period.end}: ${kept} (unlock the period and run the import again to take it)`;
}
