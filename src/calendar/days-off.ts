import type { Db } from '../db/connect';
import { type LeaveDay, readHolidaysOf, readLeaveDays } from '../leave/days';
import { addDays } from '../time';

// What a feed shows of leave and holidays (CONTRACT 6.7, docs/schedules.md "Calendar feeds"):
// all-day events, read through the leave adapter (src/leave/days.ts).

/** An all-day event: `start` its first date, `end` the day after its last (RFC 5545 DTEND). */
export interface FeedDayOff {
  uid: string;
  start: string;
  end: string;
  summary: string;
  sequence: number;
  stamp: Date;
}

/** What a leave's events are called: the type's name unless the type is private. */
const PRIVATE_SUMMARY = 'Time off';

/** Consecutive dates of one leave become one event (a leave of Monday and Wednesday is two). */
function leaveEvents(days: readonly LeaveDay[]): FeedDayOff[] {
  const events: FeedDayOff[] = [];
  const byLeave = new Map<number, LeaveDay[]>();
  for (const day of days) byLeave.set(day.leaveId, [...(byLeave.get(day.leaveId) ?? []), day]);
  for (const [leaveId, leaveDays] of byLeave) {
    const dates = leaveDays.map((day) => day.date).sort();
    const first = leaveDays[0] as LeaveDay;
    let runStart = dates[0] as string;
    dates.forEach((date, index) => {
      const next = dates[index + 1];
      if (next === addDays(date, 1)) return;
      events.push({
        uid: `leave-${leaveId}-${runStart}@hrm`,
        start: runStart,
        end: addDays(date, 1),
        summary: first.private ? PRIVATE_SUMMARY : first.typeName,
        sequence: first.version,
        stamp: first.updatedAt,
      });
      if (next !== undefined) runStart = next;
    });
  }
  return events;
}

/** The employee's approved leave and holidays dated from..to, as all-day events by date. */
export async function feedDaysOff(db: Db, employeeId: number, from: string, to: string): Promise<FeedDayOff[]> {
  const [leaveDays, holidays] = await Promise.all([readLeaveDays(db, [employeeId], from, to), readHolidaysOf(db, [employeeId], from, to)]);
  const events = leaveEvents(leaveDays.filter((day) => day.status === 'approved'));
  for (const holiday of holidays.get(employeeId) ?? []) {
    events.push({
      uid: `holiday-${holiday.holidayId}@hrm`,
      start: holiday.date,
      end: addDays(holiday.date, 1),
      summary: holiday.portion === 'half' ? `${holiday.name} (half day)` : holiday.name,
      // Holidays are never changed (only added and deleted): the first version, stamped with its date.
      sequence: 0,
      stamp: new Date(`${holiday.date}T00:00:00Z`),
    });
  }
  return events.sort((a, b) => (a.start === b.start ? (a.uid < b.uid ? -1 : 1) : a.start < b.start ? -1 : 1));
}
