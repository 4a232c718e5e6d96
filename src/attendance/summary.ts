import type { Db } from '../db/connect';
import { addDays, todayIn } from '../time';
import { hoursOf } from './output';
import { type AttendanceEmployee, sumClosedAttendance } from './repository';

export interface AttendanceSummary {
  /** Closed records whose in_time falls in the range (all of them without a range). */
  total: number;
  /** Their hours, summed from whole seconds and rounded once to 2 decimals. */
  totalHours: number;
  /** Hours of closed records whose in_time falls in the current calendar month of the employee's zone, whatever the range. */
  thisMonth: number;
  /** totalHours / total, rounded to 2 decimals; 0 when there is no record. */
  avgHours: number;
}

/** GET /employees/{id}/attendance/summary. Open records have no hours yet and count nowhere. */
export async function summarizeAttendance(
  db: Db,
  employee: AttendanceEmployee,
  range: { from?: string; to?: string },
  now: Date,
): Promise<AttendanceSummary> {
  const monthStart = `${todayIn(employee.timezone, now).slice(0, 7)}-01`;
  const monthEnd = addDays(`${addDays(monthStart, 31).slice(0, 7)}-01`, -1);
  const [inRange, inMonth] = await Promise.all([
    sumClosedAttendance(db, { employeeId: employee.id, ...range }),
    sumClosedAttendance(db, { employeeId: employee.id, from: monthStart, to: monthEnd }),
  ]);
  return {
    total: inRange.count,
    totalHours: hoursOf(inRange.seconds),
    thisMonth: hoursOf(inMonth.seconds),
    avgHours: inRange.count === 0 ? 0 : hoursOf(inRange.seconds / inRange.count),
  };
}
