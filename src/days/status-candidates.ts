import type { Knex } from 'knex';
import { type Db, dialectOf } from '../db/connect';
import type { DayStatusName } from '../day-rules/types';
import { addDays, lastReadingOn } from '../time';

// GET /days?status= (CONTRACT 6.7, docs/schedules.md "Status filters"): a status exists only once
// computed (src/day-rules), so the filter computes the candidates' days and keeps the matches. The
// candidates are narrowed here, in SQL, to a SUPERSET of the employees whose day on the date has
// the status: each condition below follows from statusOf's precedence and the matching rule, and
// may let through employees of another status, never keep one out. The rules stay the only judge.

/** `e` is the employees alias of the query the conditions are added to. */
type Where = (query: Knex.QueryBuilder) => void;

/**
 * The instant halfway through a shift `ds`, rounded down to the second, as the dialect compares
 * it with a stored instant: 'YYYY-MM-DD HH:MM:SS' text on SQLite, a DATETIME on MySQL.
 */
function shiftMidpoint(db: Db): Knex.Raw {
  if (dialectOf(db) === 'mysql')
    return db.raw('DATE_ADD(ds.start_utc, INTERVAL TIMESTAMPDIFF(SECOND, ds.start_utc, ds.end_utc) DIV 2 SECOND)');
  return db.raw("datetime((CAST(strftime('%s', ds.start_utc) AS INTEGER) + CAST(strftime('%s', ds.end_utc) AS INTEGER)) / 2, 'unixepoch')");
}

/**
 * `EXISTS (subquery)`, asked of each employee the scan reads. A top-level EXISTS is one MariaDB
 * may turn into a semi-join that materializes the subquery for every employee of the instance
 * (all shifts on the date) at each batch of the scan: 22 ms against 10 ms per batch of 2,000 at
 * 10,000 employees, growing with the instance. Inside an OR it stays a lookup per employee
 * through the (employee_id, ...) indexes.
 */
function exists(subquery: Knex.QueryBuilder): Where {
  return (q) => void q.where((either) => either.whereExists(subquery).orWhereRaw('1 = 0'));
}

/**
 * Narrows `query` (employees as `e`, employed on `date`) to a superset of those whose day on
 * `date` can have `status`. What readDays reads for one date: the published shifts dated the day
 * before to the day after, the records whose local start falls in that span.
 */
export function narrowToStatus(db: Db, query: Knex.QueryBuilder, status: DayStatusName, date: string): void {
  const before = addDays(date, -1);
  const after = addDays(date, 1);
  const shifts = (dates: readonly string[]) =>
    db('shifts as ds')
      .select(db.raw('1'))
      .where('ds.employee_id', db.ref('e.id'))
      .where('ds.status', 'published')
      .whereIn('ds.date', dates);
  const records = () => db('attendance as a').select(db.raw('1')).where('a.employee_id', db.ref('e.id'));
  // Every record a day of `date` can hold: readDays reads these and no others.
  const readRecords = () => records().whereBetween('a.in_time_local', [`${before} 00:00:00`, lastReadingOn(after)]);
  // The records whose own local date is `date`: a day without a shift holds those not matched to a neighbour's shift.
  const recordsOfDate = () =>
    records().where('a.in_time_local', '>=', `${date} 00:00:00`).where('a.in_time_local', '<', `${after} 00:00:00`);
  const withShift = () => exists(shifts([date]));
  const withoutShift: Where = (q) => void q.whereNotExists(shifts([date]));
  // A record starting in the first half of a shift (from its start to its midpoint) belongs to it:
  // shifts of one employee never overlap, so any other shift whose window holds that start
  // starts farther from it (or as far, and later). Such a day has a record.
  const surelyMatched = () =>
    shifts([date])
      .join('attendance as a', 'a.employee_id', 'ds.employee_id')
      .whereBetween('a.in_time_local', [`${before} 00:00:00`, lastReadingOn(after)])
      .where('a.in_time_utc', '>=', db.ref('ds.start_utc'))
      .where('a.in_time_utc', '<=', shiftMidpoint(db));
  // statusOf judges a day's worked hours by its first shift's thresholds: some shift must have one.
  const withThreshold = (column: 'absent_below_hours' | 'half_day_below_hours') => shifts([date]).whereNotNull(`ds.${column}`);

  const narrowing: Record<DayStatusName, () => Where[]> = {
    // Approved full-day leave on the date, whatever else.
    on_leave: () => [
      exists(
        db('leave_days as ld')
          .join('leaves as l', 'l.id', 'ld.leave_id')
          .select(db.raw('1'))
          .where('ld.live_employee_id', db.ref('e.id'))
          .where('ld.date', date)
          .where('ld.portion', 'full')
          .where('l.status', 'approved'),
      ),
    ],
    // No shift, and a holiday of the employee's country or of every country.
    holiday: () => [
      withoutShift,
      exists(
        db('holidays as h')
          .select(db.raw('1'))
          .where('h.date', date)
          .where((country) => country.whereNull('h.country').orWhere('h.country', db.ref('e.country_code'))),
      ),
    ],
    // No shift, and no record of the date, unless a neighbour's shift may have taken them.
    day_off: () => [
      withoutShift,
      (q) => void q.where((free) => free.whereNotExists(recordsOfDate()).orWhereExists(shifts([before, after]))),
    ],
    // No shift, and a record of the date.
    unscheduled: () => [withoutShift, exists(recordsOfDate())],
    // An open record (no out_time) among those the day can hold, with or without a shift.
    incomplete: () => [exists(readRecords().whereNull('a.out_time_utc'))],
    // A shift and no record surely its (a shift without records), or a short day's threshold.
    absent: () => [
      withShift(),
      (q) => void q.where((none) => none.whereNotExists(surelyMatched()).orWhereExists(withThreshold('absent_below_hours'))),
    ],
    pending: () => [withShift(), (q) => void q.whereNotExists(surelyMatched())],
    // A shift and a record.
    present: () => [withShift(), exists(readRecords())],
    half_day: () => [withShift(), exists(readRecords()), exists(withThreshold('half_day_below_hours'))],
  };
  for (const where of narrowing[status]()) where(query);
}
