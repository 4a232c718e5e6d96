import type { Db } from '../db/connect';
import { ConflictError } from '../errors';
import { lastReadingOn } from '../time';

// Records without an out_time that count in a period (docs/pay-periods.md, "Period end, step by
// step"): the open ones refuse a lock (409 open_records) unless it passes them over as missed
// punch-outs; the lock's answer, its event and the JSON export list them all.

/** As the lock's answer, its refusal and the JSON export list it. */
export interface OpenRecord {
  /** The employee's id. */
  employee: string;
  /** The attendance record's id. */
  attendance: string;
  /** Its in_time on its own wall clock, as the attendance read shape's `in_time`. */
  in_time: string;
}

export interface UnclosedRecord {
  id: number;
  missed: boolean;
  json: OpenRecord;
}

/** At most this many open records are named in a 409 open_records (the detail gives the count). */
const MAX_LISTED_OPEN = 100;

/**
 * The records of a pay group's employees counted on the period's dates (rule 1: the date of in_time on their own wall clock)
 * without an out_time, by employee id, then start: `open` ones only (not yet missed punch-outs),
 * or all. Held in memory: an employee has at most one open record at a time, and a missed
 * punch-out only where a lock passed one over, so there are about as many as employees.
 */
export async function unclosedRecordsOf(
  db: Db,
  period: { start: string; end: string },
  which: 'open' | 'all',
  groupId: number,
): Promise<UnclosedRecord[]> {
  const query = db('attendance')
    // The records of the group's employees: the period is the group's.
    .whereIn('employee_id', db('employees').where('pay_group_id', groupId).select('id'))
    .where('in_time_local', '>=', `${period.start} 00:00:00`)
    .where('in_time_local', '<=', lastReadingOn(period.end));
  // The open ones through the unique open_employee_id index (a few rows, about 1 ms), not the
  // period's range of in_time_local (every record of the month: 60 to 80 ms at 200,000).
  if (which === 'open') query.whereNotNull('open_employee_id');
  else query.whereNull('out_time_utc');
  const rows = (await query
    .orderBy(['employee_id', 'in_time_utc', 'id'])
    .select('id', 'employee_id', 'in_time_local', 'missed_punch_out')) as Array<{
    id: number | string;
    employee_id: number | string;
    in_time_local: string;
    missed_punch_out: number | boolean;
  }>;
  return rows.map((row) => ({
    id: Number(row.id),
    missed: Boolean(Number(row.missed_punch_out)),
    json: { employee: String(row.employee_id), attendance: String(row.id), in_time: String(row.in_time_local).slice(0, 19) },
  }));
}

/** The refusal of a lock while records of the period are open: 409 open_records, the first 100 listed. */
export function openRecordsRefusal(open: readonly UnclosedRecord[]): ConflictError {
  const listed = open.slice(0, MAX_LISTED_OPEN).map((record) => record.json);
  const count = open.length;
  return new ConflictError({
    code: 'open_records',
    detail: `${count} record${count === 1 ? '' : 's'} of the period ${count === 1 ? 'has' : 'have'} no punch-out${count > listed.length ? ` (the first ${listed.length} are listed)` : ''}: punch out or correct ${count === 1 ? 'it' : 'them'}, or lock with allow_open_records=true to pass ${count === 1 ? 'it' : 'them'} over as missed punch-outs`,
    errors: listed.map((record) => ({
      field: 'attendance',
      message: `${record.attendance} of employee ${record.employee}, in at ${record.in_time}, has no punch-out`,
    })),
    extensions: { open_records: listed },
  });
}
