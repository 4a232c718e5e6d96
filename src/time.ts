// Calendar dates and IANA time zones. Nothing here depends on the server's own time zone.

import { TIME_ZONES } from './time-zones';

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date written YYYY-MM-DD (no 2023-02-30, no 0000-00-00). */
export function isCalendarDate(value: string): boolean {
  const match = DATE_PATTERN.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const zoneFormatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = zoneFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    zoneFormatters.set(timeZone, formatter);
  }
  return formatter;
}

const TIME_ZONE_NAMES = new Set(TIME_ZONES);

/**
 * An IANA zone name of TIME_ZONES, spelled exactly (Europe/Berlin, UTC; not an offset like +02:00),
 * that this process's Intl also knows: a name an older ICU lacks would fail every reading later.
 */
export function isTimeZone(value: string): boolean {
  if (!TIME_ZONE_NAMES.has(value)) return false;
  try {
    formatterFor(value);
    return true;
  } catch {
    return false;
  }
}

/** Per zone, the last second written and its reading: `now` in the same second costs a lookup. */
const lastReading = new Map<string, { second: number; text: string }>();

/** 'YYYY-MM-DD HH:MM:SS' wall-clock time of an instant in a zone. */
export function wallClockIn(timeZone: string, instant: Date): string {
  const second = Math.floor(instant.getTime() / 1000);
  // UTC needs no zone rules; years 1000-9999 print alike in ISO form and through Intl.
  if (timeZone === 'UTC' && second >= -30_610_224_000 && second < 253_402_300_800) {
    return new Date(second * 1000).toISOString().slice(0, 19).replace('T', ' ');
  }
  const last = lastReading.get(timeZone);
  if (last?.second === second) return last.text;
  const parts = Object.fromEntries(
    formatterFor(timeZone)
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  const text = `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
  lastReading.set(timeZone, { second, text });
  return text;
}

/** Today's date, YYYY-MM-DD, in a zone. */
export function todayIn(timeZone: string, now: Date): string {
  return wallClockIn(timeZone, now).slice(0, 10);
}

const WALL_CLOCK_PATTERN = /^(\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** 'YYYY-MM-DD HH:MM:SS' with a real calendar date and a time from 00:00:00 to 23:59:59. */
export function isWallClock(value: string): boolean {
  const match = WALL_CLOCK_PATTERN.exec(value);
  if (!match || !isCalendarDate(match[1] as string)) return false;
  return Number(match[2]) <= 23 && Number(match[3]) <= 59 && Number(match[4]) <= 59;
}

/** A wall-clock reading as milliseconds of the same reading in UTC, so readings can be compared. */
function readingMs(wallClock: string): number {
  return Date.UTC(
    Number(wallClock.slice(0, 4)),
    Number(wallClock.slice(5, 7)) - 1,
    Number(wallClock.slice(8, 10)),
    Number(wallClock.slice(11, 13)),
    Number(wallClock.slice(14, 16)),
    Number(wallClock.slice(17, 19)),
  );
}

/** How far the zone's clocks are ahead of UTC at an instant, in milliseconds. */
export function offsetMsAt(timeZone: string, instant: Date): number {
  const wholeSecond = Math.floor(instant.getTime() / 1000) * 1000;
  return readingMs(wallClockIn(timeZone, new Date(wholeSecond))) - wholeSecond;
}

const DAY_MS = 86_400_000;

/**
 * The instant a wall-clock reading ('YYYY-MM-DD HH:MM:SS') denotes in a zone, undefined when the
 * zone skips that reading (the hour clocks jump forward). A reading the zone shows twice (the
 * hour clocks fall back) is the earlier instant, as Temporal's "compatible" disambiguation takes.
 * Only Intl is used, so the server's own time zone plays no part.
 */
export function instantOfWallClock(timeZone: string, wallClock: string): Date | undefined {
  const reading = readingMs(wallClock);
  // The offsets in force a day either side include every offset the reading can have: zones
  // change offset at most once in two days.
  const candidates = [reading - DAY_MS, reading, reading + DAY_MS].map((probe) => reading - offsetMsAt(timeZone, new Date(probe)));
  const matching = candidates.filter((instant) => wallClockIn(timeZone, new Date(instant)) === wallClock);
  return matching.length === 0 ? undefined : new Date(Math.min(...matching));
}

const ISO_INSTANT_PATTERN = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/;

/**
 * An ISO-8601 date-time with a zone designator (Z or ±hh:mm), e.g. 2026-03-29T01:30:00+01:00,
 * truncated to the whole second; undefined for anything else (no offset, impossible date or time).
 */
export function parseIsoInstant(value: string): Date | undefined {
  const match = ISO_INSTANT_PATTERN.exec(value);
  if (!match) return undefined;
  const [, date, hour, minute, second = '00', zulu, sign, offsetHours = '00', offsetMinutes = '00'] = match;
  const wallClock = `${date} ${hour}:${minute}:${second}`;
  if (!isWallClock(wallClock) || Number(offsetHours) > 18 || Number(offsetMinutes) > 59) return undefined;
  const offsetMs = zulu ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
  return new Date(readingMs(wallClock) - offsetMs);
}

/** The first and last date the API accepts or computes (docs/security.md, "Third review"). */
export const MIN_DATE = '0001-01-01';
export const MAX_DATE = '9999-12-31';

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
export function dayNumberOfParts(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/**
 * A date's day number, for comparing and walking dates: as strings, '10000-01-01' sorts before
 * '9999-12-31', and a walk past the last date never ends.
 */
export function dayNumber(date: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return dayNumberOfParts(year, month, day);
}

export const MIN_DAY = dayNumber(MIN_DATE);
export const MAX_DAY = dayNumber(MAX_DATE);

/** The year, month and day of a day number (civil_from_days). */
export function partsOfDayNumber(dayNumber: number): [number, number, number] {
  const z = dayNumber + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

/** 'YYYY-MM-DD' (a year past 9999 gets a fifth digit: callers bound dates first). */
export function formatDate(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The date of a day number. */
export function dateOfDayNumber(dayNumber: number): string {
  return formatDate(...partsOfDayNumber(dayNumber));
}

/** Whether a date lies in MIN_DATE..MAX_DATE. */
export function isDayInRange(dayNumber: number): boolean {
  return dayNumber >= MIN_DAY && dayNumber <= MAX_DAY;
}

/**
 * The calendar date `days` days after `date` (before, when negative). On day numbers, not
 * Date.UTC, which reads years 0-99 as 1900-1999.
 */
export function addDays(date: string, days: number): string {
  return dateOfDayNumber(dayNumber(date) + days);
}

/** Days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from);
}

/**
 * The last wall-clock reading of a date, the inclusive upper bound of the readings counted on it.
 * Stored readings are whole seconds; unlike the next day's midnight, it exists for 9999-12-31.
 */
export function lastReadingOn(date: string): string {
  return `${date} 23:59:59`;
}

/** 0 for Sunday to 6 for Saturday. */
export function weekdayOf(date: string): number {
  // 1970-01-01, day 0, was a Thursday.
  return (((dayNumber(date) + 4) % 7) + 7) % 7;
}
