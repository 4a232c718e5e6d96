import type { Db } from '../db/connect';
import { addDays, todayIn } from '../time';
import { hoursOf } from './output';
import { countAttendance } from './list-repository';
import type { AttendanceEmployee } from './repository';

/**
 * IceHrm's summary (docs/api.md, "IceHrm compatibility"): its four members count and sum as IceHrm does, and two more
 * say what IceHrm's leave open (how many records are closed, and this month's hours).
 */
interface AttendanceSummary {
  /** Records whose in_time falls in the range (all of them without a range), open ones included. */
  total: number;
  /** Hours of the closed ones among them, summed from whole seconds and rounded once to 2 decimals. */
  totalHours: number;
  /** Records whose in_time falls in the current calendar month of the employee's zone, open ones included, whatever the range. */
  thisMonth: number;
  /** totalHours / total, rounded to 2 decimals; 0 when there is no record. */
  avgHours: number;
  /** The closed records among `total`: those totalHours counts. */
  closed: number;
  /** Hours of the closed records among `thisMonth`. */
  thisMonthHours: number;
}

/** GET /employees/{id}/attendance/summary. */
export async function summarizeAttendance(
  db: Db,
  employee: AttendanceEmployee,
  range: { from?: string; to?: string },
  now: Date,
): Promise<AttendanceSummary> {
  const monthStart = `${todayIn(employee.timezone, now).slice(0, 7)}-01`;
  const monthEnd = addDays(`${addDays(monthStart, 31).slice(0, 7)}-01`, -1);
  const [inRange, inMonth] = await Promise.all([
    countAttendance(db, { employeeId: employee.id, ...range }),
    countAttendance(db, { employeeId: employee.id, from: monthStart, to: monthEnd }),
  ]);
  return {
    total: inRange.records,
    totalHours: hoursOf(inRange.seconds),
    thisMonth: inMonth.records,
    avgHours: inRange.records === 0 ? 0 : hoursOf(inRange.seconds / inRange.records),
    closed: inRange.closed,
    thisMonthHours: hoursOf(inMonth.seconds),
  };
}
