// Calendar dates and IANA time zones. Nothing here depends on the server's own time zone.

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

/** An IANA zone name such as Europe/Berlin or UTC (not an offset like +02:00). */
export function isTimeZone(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(value)) return false;
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

/** The calendar date `days` days after `date` (before, when negative). */
export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}

/** 0 for Sunday to 6 for Saturday. */
export function weekdayOf(date: string): number {
  return new Date(`${date}T00:00:00Z`).getUTCDay();
}
