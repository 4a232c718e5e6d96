import type { Db } from '../db/connect';

// The change marks of attendance (migration 0024): a revision per employee and month, incremented
// in the transaction of every write of a record that counts in that month, before and after the
// write. An open period's export tag sums the marks of the months it reads (src/pay-periods/export.ts):
// revisions only grow, so any such write changes the sum, and a write in other months does not.

/** An employee's attendance write and the dates ('YYYY-MM-DD') its records count on, before and after it. */
export interface AttendanceChange {
  employeeId: number;
  dates: Iterable<string>;
}

/** Rows per upsert: three values each, under SQLite's 999 parameters. */
const MARKS_PER_STATEMENT = 300;

/** Increments the mark of each employee and month the changes touch, once per pair. */
export async function markAttendanceChanges(trx: Db, changes: Iterable<AttendanceChange>): Promise<void> {
  const pairs = new Map<string, { employee_id: number; month: string; revision: number }>();
  for (const { employeeId, dates } of changes) {
    for (const date of dates) {
      const month = date.slice(0, 7);
      if (!/^\d{4}-\d{2}$/.test(month)) continue;
      pairs.set(`${employeeId}:${month}`, { employee_id: employeeId, month, revision: 1 });
    }
  }
  // Sorted, so two batches touching the same rows lock them in the same order.
  const rows = [...pairs.values()].sort((a, b) => a.employee_id - b.employee_id || (a.month < b.month ? -1 : 1));
  for (let at = 0; at < rows.length; at += MARKS_PER_STATEMENT) {
    await trx('attendance_marks')
      .insert(rows.slice(at, at + MARKS_PER_STATEMENT))
      .onConflict(['employee_id', 'month'])
      .merge({ revision: trx.raw('attendance_marks.revision + 1') });
  }
}

/** The marks of the months from..to overlaps (dates 'YYYY-MM-DD'), as a count and a sum: what an export tag reads. */
export async function readAttendanceMarks(db: Db, from: string, to: string): Promise<{ n: unknown; revisions: unknown }> {
  const row = (await db('attendance_marks')
    .where('month', '>=', from.slice(0, 7))
    .where('month', '<=', to.slice(0, 7))
    .first(db.raw('count(*) as n'), db.raw('sum(revision) as revisions'))) as { n: unknown; revisions: unknown } | undefined;
  return row ?? { n: 0, revisions: null };
}
