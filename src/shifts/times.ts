import { addDays, instantOfWallClock, isCalendarDate, offsetMsAt } from '../time';

// A shift's local times and the instants they denote (docs/schedules.md, "Daylight saving").
// Stored local times are the plan; the instants are derived from them whenever they are written.

const DAY_MS = 86_400_000;
/** The longest a shift may last: a day. */
export const MAX_SHIFT_MS = DAY_MS;

const LOCAL_PATTERN = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):([0-5]\d)$/;

/** 'YYYY-MM-DDTHH:MM' with a real calendar date. */
export function isLocalDateTime(value: string): boolean {
  const match = LOCAL_PATTERN.exec(value);
  return match !== null && isCalendarDate(match[1] as string);
}

/**
 * The instant a local 'YYYY-MM-DDTHH:MM' denotes in `zone`. A reading the zone skips (the
 * spring-forward gap) moves forward by the gap: it is read with the offset in force before the
 * change, so 02:30 on a night clocks jump from 02:00 to 03:00 is 03:30. A reading the zone shows
 * twice (fall back) is its first occurrence.
 */
export function instantOfLocal(zone: string, local: string): Date {
  const wallClock = `${local.replace('T', ' ')}:00`;
  const found = instantOfWallClock(zone, wallClock);
  if (found) return found;
  const reading = Date.parse(`${local}:00Z`);
  // Zones change offset at most once in two days: a day earlier the old offset is in force.
  return new Date(reading - offsetMsAt(zone, new Date(reading - DAY_MS)));
}

/** The local start and end of a shift made from a type's times on `date`: an end at or before the start is the next day's. */
export function localTimesOn(date: string, startTime: string, endTime: string): { start_local: string; end_local: string } {
  const endDate = endTime <= startTime ? addDays(date, 1) : date;
  return { start_local: `${date}T${startTime}`, end_local: `${endDate}T${endTime}` };
}

/** Planned hours: the elapsed time minus the unpaid break, never below 0, to two decimals. */
export function plannedHoursOf(start: Date, end: Date, unpaidBreakMinutes: number): number {
  const minutes = Math.max(0, (end.getTime() - start.getTime()) / 60_000 - unpaidBreakMinutes);
  return Math.round((minutes / 60) * 100) / 100;
}
