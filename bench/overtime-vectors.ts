// Builds docs/overtime-vectors.json, the published test vectors of hour classification
// (docs/overtime-vectors.md). The expected values never come from src/pay-rules: the core cases are
// written out by hand below, and the generated families are classified by the deliberately naive
// reference in this file (time-zone rules written out for the zones used, every worked second
// labelled one by one). The hand-written cases are checked against the reference too.
//
//   npm run build:bench && node dist/bench/overtime-vectors.js          checks the committed file
//   npm run build:bench && node dist/bench/overtime-vectors.js --write  rewrites it
import fs from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';

const VECTORS_FILE = path.join(__dirname, '..', '..', 'docs', 'overtime-vectors.json');

type Weekday = 'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday' | 'sunday';
const WEEKDAYS_FROM_SUNDAY: Weekday[] = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

interface Rules {
  daily_after_hours: number | null;
  daily_double_after_hours: number | null;
  weekly_after_hours: number | null;
  seventh_day: boolean;
}
interface VectorRecord {
  in_time_utc: string;
  out_time_utc: string | null;
  timezone: string;
}
interface ExpectedDay {
  date: string;
  records: number;
  worked_hours: string;
  regular_hours: string;
  overtime_hours: string;
  double_time_hours: string;
}
interface Expected {
  days: ExpectedDay[];
  totals: { worked_hours: string; regular_hours: string; overtime_hours: string; double_time_hours: string };
  open_records: number;
}
interface Vector {
  name: string;
  rules: Rules;
  workweek_start: Weekday;
  range: { from: string; to: string };
  records: VectorRecord[];
  expected: Expected;
}

const FLSA: Rules = { daily_after_hours: null, daily_double_after_hours: null, weekly_after_hours: 40, seventh_day: false };
const CALIFORNIA: Rules = { daily_after_hours: 8, daily_double_after_hours: 12, weekly_after_hours: 40, seventh_day: true };
const NONE: Rules = { daily_after_hours: null, daily_double_after_hours: null, weekly_after_hours: null, seventh_day: false };
const rules = (changes: Partial<Rules>, base: Rules = NONE): Rules => ({ ...base, ...changes });

// ---- The naive reference: time zones -----------------------------------------------------------

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

function weekdayOfMonthDay(year: number, month: number, day: number): number {
  return new Date(Date.UTC(year, month - 1, day)).getUTCDay();
}
function nthSunday(year: number, month: number, n: number): number {
  return 1 + ((7 - weekdayOfMonthDay(year, month, 1)) % 7) + 7 * (n - 1);
}
function lastSunday(year: number, month: number): number {
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return last - weekdayOfMonthDay(year, month, last);
}

/** The offset from UTC, in minutes, of each zone used, by its rules since 2008 written out by hand. */
function offsetMinutes(zone: string, utcMs: number): number {
  const year = new Date(utcMs).getUTCFullYear();
  // United States: from the second Sunday of March 02:00 standard time to the first Sunday of November 02:00 daylight time.
  const us = (standard: number) => {
    const start = Date.UTC(year, 2, nthSunday(year, 3, 2), 2) - standard * 60_000;
    const end = Date.UTC(year, 10, nthSunday(year, 11, 1), 2) - (standard + 60) * 60_000;
    return utcMs >= start && utcMs < end ? standard + 60 : standard;
  };
  // European Union and the UK: from the last Sunday of March to the last Sunday of October, 01:00 UTC.
  const eu = (standard: number) => {
    const start = Date.UTC(year, 2, lastSunday(year, 3), 1);
    const end = Date.UTC(year, 9, lastSunday(year, 10), 1);
    return utcMs >= start && utcMs < end ? standard + 60 : standard;
  };
  switch (zone) {
    case 'UTC':
      return 0;
    case 'America/Los_Angeles':
      return us(-480);
    case 'America/Chicago':
      return us(-360);
    case 'America/New_York':
      return us(-300);
    case 'America/Phoenix':
      return -420;
    case 'Europe/London':
      return eu(0);
    case 'Europe/Berlin':
      return eu(60);
    case 'Asia/Kolkata':
      return 330;
    case 'Asia/Tokyo':
      return 540;
    case 'Australia/Sydney': {
      // Southern summer: daylight time until the first Sunday of April 03:00 daylight, from the first Sunday of October 02:00 standard.
      const end = Date.UTC(year, 3, nthSunday(year, 4, 1), 3) - 660 * 60_000;
      const start = Date.UTC(year, 9, nthSunday(year, 10, 1), 2) - 600 * 60_000;
      return utcMs < end || utcMs >= start ? 660 : 600;
    }
    default:
      throw new Error(`no rules for ${zone}`);
  }
}

function utcMsOf(text: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  if (!match) throw new Error(`bad UTC time ${text}`);
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as number[];
  return Date.UTC(year!, month! - 1, day!, hour!, minute!, second!);
}
function utcText(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}
function dateText(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
function dateMs(date: string): number {
  return Date.parse(`${date}T00:00:00Z`);
}

/** The local date of a UTC instant in a zone, by the hand-written rules. */
function localDateOf(zone: string, utcMs: number): string {
  return dateText(utcMs + offsetMinutes(zone, utcMs) * 60_000);
}

/** The instant of a local wall-clock reading ('YYYY-MM-DD HH:MM[:SS]'); the earlier one when it occurs twice. */
function instantOfLocal(zone: string, wallClock: string): number {
  const wallMs = utcMsOf(wallClock.length === 16 ? `${wallClock}:00` : wallClock);
  const offsets = Array.from({ length: (840 + 720) / 15 + 1 }, (_, index) => -720 + index * 15);
  const candidates = offsets
    .map((offset) => wallMs - offset * 60_000)
    .filter((instant) => instant + offsetMinutes(zone, instant) * 60_000 === wallMs);
  if (candidates.length === 0) throw new Error(`${wallClock} does not occur in ${zone}`);
  return Math.min(...candidates);
}

// Intl is not the reference; it only confirms that the hand-written zone rules match the real ones.
const intlFormatters = new Map<string, Intl.DateTimeFormat>();
function intlLocalDate(zone: string, utcMs: number): string {
  let formatter = intlFormatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
    intlFormatters.set(zone, formatter);
  }
  return formatter.format(new Date(utcMs));
}

// ---- The naive reference: classification, one second at a time --------------------------------

function thresholdSecondsOf(hours: number | null): number | null {
  return hours === null ? null : Math.round(hours * 100) * 36;
}

/** Seconds as hours with 2 decimals, half up: whole hours, then the hundredths of the rest. */
function hoursText(seconds: number): string {
  const whole = Math.floor(seconds / 3600);
  const hundredths = Math.floor(((seconds % 3600) * 100 + 1800) / 3600);
  const total = whole * 100 + hundredths;
  return `${Math.floor(total / 100)}.${String(total % 100).padStart(2, '0')}`;
}

function reference(vector: Omit<Vector, 'expected'>): Expected {
  const { rules: r, range } = vector;
  const daily = thresholdSecondsOf(r.daily_after_hours);
  const double = thresholdSecondsOf(r.daily_double_after_hours);
  const weekly = thresholdSecondsOf(r.weekly_after_hours);

  // Walk back from range.from, one day at a time, to the day the workweek starts.
  let firstMs = dateMs(range.from);
  while (WEEKDAYS_FROM_SUNDAY[new Date(firstMs).getUTCDay()] !== vector.workweek_start) firstMs -= DAY_MS;
  const dates: string[] = [];
  for (let ms = firstMs; dateText(ms) <= range.to; ms += DAY_MS) dates.push(dateText(ms));

  const worked = new Map<string, number>();
  const counted = new Map<string, number>();
  let open = 0;
  for (const record of vector.records) {
    if (record.out_time_utc === null) {
      open += 1;
      continue;
    }
    const inMs = utcMsOf(record.in_time_utc);
    const date = localDateOf(record.timezone, inMs);
    if (date !== intlLocalDate(record.timezone, inMs))
      throw new Error(`zone rules disagree with Intl: ${record.timezone} ${record.in_time_utc}`);
    // Records outside the range's workweeks count nothing (no rule reaches them).
    if (!dates.includes(date)) continue;
    worked.set(date, (worked.get(date) ?? 0) + (utcMsOf(record.out_time_utc) - inMs) / 1000);
    counted.set(date, (counted.get(date) ?? 0) + 1);
  }

  const tally = new Map<string, { worked: number; regular: number; overtime: number; double_time: number }>();
  for (let weekIndex = 0; weekIndex < dates.length; weekIndex += 7) {
    const week = dates.slice(weekIndex, weekIndex + 7);
    const seventhDay = r.seventh_day && week.length === 7 && week.every((date) => (worked.get(date) ?? 0) > 0);
    let weeklyRegular = 0;
    for (const [position, date] of week.entries()) {
      const day = { worked: 0, regular: 0, overtime: 0, double_time: 0 };
      const seconds = worked.get(date) ?? 0;
      for (let second = 0; second < seconds; second += 1) {
        let label: 'regular' | 'overtime' | 'double_time';
        if (seventhDay && position === 6) label = second < 8 * 3600 ? 'overtime' : 'double_time';
        else if (double !== null && second >= double) label = 'double_time';
        else if (daily !== null && second >= daily) label = 'overtime';
        else label = 'regular';
        if (label === 'regular' && weekly !== null) {
          weeklyRegular += 1;
          if (weeklyRegular > weekly) label = 'overtime';
        }
        day.worked += 1;
        day[label] += 1;
      }
      tally.set(date, day);
    }
  }

  const days: ExpectedDay[] = [];
  const sums = { worked: 0, regular: 0, overtime: 0, double_time: 0 };
  for (const date of dates) {
    if (date < range.from) continue;
    const day = tally.get(date)!;
    for (const key of ['worked', 'regular', 'overtime', 'double_time'] as const) sums[key] += day[key];
    if ((counted.get(date) ?? 0) === 0) continue;
    days.push({
      date,
      records: counted.get(date)!,
      worked_hours: hoursText(day.worked),
      regular_hours: hoursText(day.regular),
      overtime_hours: hoursText(day.overtime),
      double_time_hours: hoursText(day.double_time),
    });
  }
  return {
    days,
    totals: {
      worked_hours: hoursText(sums.worked),
      regular_hours: hoursText(sums.regular),
      overtime_hours: hoursText(sums.overtime),
      double_time_hours: hoursText(sums.double_time),
    },
    open_records: open,
  };
}

// ---- Building records --------------------------------------------------------------------------

/** A record by its UTC in and out times ('YYYY-MM-DD HH:MM[:SS]'); out null for an open record. */
function utc(inTime: string, outTime: string | null, timezone = 'UTC'): VectorRecord {
  const full = (text: string) => (text.length === 16 ? `${text}:00` : text);
  return { in_time_utc: full(inTime), out_time_utc: outTime === null ? null : full(outTime), timezone };
}

/** A record that begins at a local wall-clock reading and lasts `seconds`. */
function shift(timezone: string, localStart: string, seconds: number): VectorRecord {
  const inMs = instantOfLocal(timezone, localStart);
  return { in_time_utc: utcText(inMs), out_time_utc: utcText(inMs + seconds * 1000), timezone };
}

/** A record from one local reading to another (its hours are the elapsed time between them). */
function localShift(timezone: string, localStart: string, localEnd: string): VectorRecord {
  return {
    in_time_utc: utcText(instantOfLocal(timezone, localStart)),
    out_time_utc: utcText(instantOfLocal(timezone, localEnd)),
    timezone,
  };
}

function openShift(timezone: string, localStart: string): VectorRecord {
  return { in_time_utc: utcText(instantOfLocal(timezone, localStart)), out_time_utc: null, timezone };
}

// ---- The hand-written core cases ---------------------------------------------------------------

type DayRow = [date: string, records: number, worked: string, regular: string, overtime: string, doubleTime: string];
type TotalsRow = [worked: string, regular: string, overtime: string, doubleTime: string];

function hand(
  name: string,
  vectorRules: Rules,
  workweekStart: Weekday,
  range: [string, string],
  records: VectorRecord[],
  days: DayRow[],
  totals: TotalsRow,
  openRecords = 0,
): Vector {
  return {
    name,
    rules: vectorRules,
    workweek_start: workweekStart,
    range: { from: range[0], to: range[1] },
    records,
    expected: {
      days: days.map(([date, count, worked, regular, overtime, doubleTime]) => ({
        date,
        records: count,
        worked_hours: worked,
        regular_hours: regular,
        overtime_hours: overtime,
        double_time_hours: doubleTime,
      })),
      totals: { worked_hours: totals[0], regular_hours: totals[1], overtime_hours: totals[2], double_time_hours: totals[3] },
      open_records: openRecords,
    },
  };
}

/** Day shifts 09:00-(09:00+hours) UTC on consecutive dates from `first`. */
function daysFrom(first: string, hours: number[]): VectorRecord[] {
  return hours.flatMap((length, index) => {
    if (length === 0) return [];
    const start = dateMs(first) + index * DAY_MS + 9 * HOUR_MS;
    return [{ in_time_utc: utcText(start), out_time_utc: utcText(start + length * HOUR_MS), timezone: 'UTC' }];
  });
}

// 2024-06-03 is a Monday; 2024-06-09 a Sunday.
const WEEK = ['2024-06-03', '2024-06-09'] as [string, string];

const HAND_CASES: Vector[] = [
  hand(
    'hand: FLSA, five 8-hour days',
    FLSA,
    'monday',
    WEEK,
    daysFrom('2024-06-03', [8, 8, 8, 8, 8]),
    [
      ['2024-06-03', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-04', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-05', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-06', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-07', 1, '8.00', '8.00', '0.00', '0.00'],
    ],
    ['40.00', '40.00', '0.00', '0.00'],
  ),
  hand(
    'hand: FLSA, five 9-hour days: overtime only past 40 in the week, on Friday',
    FLSA,
    'monday',
    WEEK,
    daysFrom('2024-06-03', [9, 9, 9, 9, 9]),
    [
      ['2024-06-03', 1, '9.00', '9.00', '0.00', '0.00'],
      ['2024-06-04', 1, '9.00', '9.00', '0.00', '0.00'],
      ['2024-06-05', 1, '9.00', '9.00', '0.00', '0.00'],
      ['2024-06-06', 1, '9.00', '9.00', '0.00', '0.00'],
      ['2024-06-07', 1, '9.00', '4.00', '5.00', '0.00'],
    ],
    ['45.00', '40.00', '5.00', '0.00'],
  ),
  hand(
    'hand: FLSA, six 8-hour days: Saturday is all overtime',
    FLSA,
    'monday',
    WEEK,
    daysFrom('2024-06-03', [8, 8, 8, 8, 8, 8]),
    [
      ['2024-06-03', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-04', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-05', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-06', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-07', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-08', 1, '8.00', '0.00', '8.00', '0.00'],
    ],
    ['48.00', '40.00', '8.00', '0.00'],
  ),
  hand(
    'hand: FLSA, seven 10-hour days: no seventh-day rule, no double time',
    FLSA,
    'monday',
    WEEK,
    daysFrom('2024-06-03', [10, 10, 10, 10, 10, 10, 10]),
    [
      ['2024-06-03', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-04', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-05', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-06', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-07', 1, '10.00', '0.00', '10.00', '0.00'],
      ['2024-06-08', 1, '10.00', '0.00', '10.00', '0.00'],
      ['2024-06-09', 1, '10.00', '0.00', '10.00', '0.00'],
    ],
    ['70.00', '40.00', '30.00', '0.00'],
  ),
  hand(
    'hand: FLSA, four 10-hour days are exactly 40',
    FLSA,
    'monday',
    WEEK,
    daysFrom('2024-06-03', [10, 10, 10, 10]),
    [
      ['2024-06-03', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-04', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-05', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-06', 1, '10.00', '10.00', '0.00', '0.00'],
    ],
    ['40.00', '40.00', '0.00', '0.00'],
  ),
  hand(
    'hand: FLSA, 40 hours and 18 seconds: 18 seconds round up to 0.01 overtime',
    FLSA,
    'monday',
    WEEK,
    [...daysFrom('2024-06-03', [10, 10, 10, 10]), utc('2024-06-07 09:00:00', '2024-06-07 09:00:18')],
    [
      ['2024-06-03', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-04', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-05', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-06', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-07', 1, '0.01', '0.00', '0.01', '0.00'],
    ],
    ['40.01', '40.00', '0.01', '0.00'],
  ),
  hand(
    'hand: FLSA, 40 hours and 17 seconds: 17 seconds round down to 0.00',
    FLSA,
    'monday',
    WEEK,
    [...daysFrom('2024-06-03', [10, 10, 10, 10]), utc('2024-06-07 09:00:00', '2024-06-07 09:00:17')],
    [
      ['2024-06-03', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-04', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-05', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-06', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-07', 1, '0.00', '0.00', '0.00', '0.00'],
    ],
    ['40.00', '40.00', '0.00', '0.00'],
  ),
  hand(
    'hand: FLSA, workweek starting Sunday: the Sunday after five 9-hour days starts a new week',
    FLSA,
    'sunday',
    ['2024-06-02', '2024-06-15'],
    daysFrom('2024-06-03', [9, 9, 9, 9, 9, 0, 9]),
    [
      ['2024-06-03', 1, '9.00', '9.00', '0.00', '0.00'],
      ['2024-06-04', 1, '9.00', '9.00', '0.00', '0.00'],
      ['2024-06-05', 1, '9.00', '9.00', '0.00', '0.00'],
      ['2024-06-06', 1, '9.00', '9.00', '0.00', '0.00'],
      ['2024-06-07', 1, '9.00', '4.00', '5.00', '0.00'],
      ['2024-06-09', 1, '9.00', '9.00', '0.00', '0.00'],
    ],
    ['54.00', '49.00', '5.00', '0.00'],
  ),
  hand(
    'hand: the worked week of docs/overtime-vectors.md, California',
    CALIFORNIA,
    'monday',
    WEEK,
    [...daysFrom('2024-06-03', [13, 8, 8, 8, 8, 6, 5]), utc('2024-06-09 15:00', '2024-06-09 20:00')],
    [
      ['2024-06-03', 1, '13.00', '8.00', '4.00', '1.00'],
      ['2024-06-04', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-05', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-06', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-07', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-08', 1, '6.00', '0.00', '6.00', '0.00'],
      ['2024-06-09', 2, '10.00', '0.00', '8.00', '2.00'],
    ],
    ['61.00', '40.00', '18.00', '3.00'],
  ),
  hand(
    'hand: the worked week of docs/overtime-vectors.md, FLSA',
    FLSA,
    'monday',
    WEEK,
    [...daysFrom('2024-06-03', [13, 8, 8, 8, 8, 6, 5]), utc('2024-06-09 15:00', '2024-06-09 20:00')],
    [
      ['2024-06-03', 1, '13.00', '13.00', '0.00', '0.00'],
      ['2024-06-04', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-05', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-06', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-07', 1, '8.00', '3.00', '5.00', '0.00'],
      ['2024-06-08', 1, '6.00', '0.00', '6.00', '0.00'],
      ['2024-06-09', 2, '10.00', '0.00', '10.00', '0.00'],
    ],
    ['61.00', '40.00', '21.00', '0.00'],
  ),
  hand(
    'hand: California, one 13-hour day: 8 regular, 4 overtime, 1 double time',
    CALIFORNIA,
    'monday',
    WEEK,
    daysFrom('2024-06-03', [13]),
    [['2024-06-03', 1, '13.00', '8.00', '4.00', '1.00']],
    ['13.00', '8.00', '4.00', '1.00'],
  ),
  hand(
    'hand: California, one 12-hour day: no double time yet',
    CALIFORNIA,
    'monday',
    WEEK,
    daysFrom('2024-06-03', [12]),
    [['2024-06-03', 1, '12.00', '8.00', '4.00', '0.00']],
    ['12.00', '8.00', '4.00', '0.00'],
  ),
  hand(
    'hand: California, five 10-hour days: daily overtime, the weekly 40 counts regular hours only',
    CALIFORNIA,
    'monday',
    WEEK,
    daysFrom('2024-06-03', [10, 10, 10, 10, 10]),
    [
      ['2024-06-03', 1, '10.00', '8.00', '2.00', '0.00'],
      ['2024-06-04', 1, '10.00', '8.00', '2.00', '0.00'],
      ['2024-06-05', 1, '10.00', '8.00', '2.00', '0.00'],
      ['2024-06-06', 1, '10.00', '8.00', '2.00', '0.00'],
      ['2024-06-07', 1, '10.00', '8.00', '2.00', '0.00'],
    ],
    ['50.00', '40.00', '10.00', '0.00'],
  ),
  hand(
    'hand: California, six 9-hour days: Saturday past the weekly 40',
    CALIFORNIA,
    'monday',
    WEEK,
    daysFrom('2024-06-03', [9, 9, 9, 9, 9, 9]),
    [
      ['2024-06-03', 1, '9.00', '8.00', '1.00', '0.00'],
      ['2024-06-04', 1, '9.00', '8.00', '1.00', '0.00'],
      ['2024-06-05', 1, '9.00', '8.00', '1.00', '0.00'],
      ['2024-06-06', 1, '9.00', '8.00', '1.00', '0.00'],
      ['2024-06-07', 1, '9.00', '8.00', '1.00', '0.00'],
      ['2024-06-08', 1, '9.00', '0.00', '9.00', '0.00'],
    ],
    ['54.00', '40.00', '14.00', '0.00'],
  ),
  hand(
    'hand: California, seven 8-hour days: the seventh day is overtime',
    CALIFORNIA,
    'monday',
    WEEK,
    daysFrom('2024-06-03', [8, 8, 8, 8, 8, 8, 8]),
    [
      ['2024-06-03', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-04', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-05', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-06', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-07', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-08', 1, '8.00', '0.00', '8.00', '0.00'],
      ['2024-06-09', 1, '8.00', '0.00', '8.00', '0.00'],
    ],
    ['56.00', '40.00', '16.00', '0.00'],
  ),
  hand(
    'hand: California, seventh day of 13 hours: 8 overtime and 5 double time instead of the daily 8/4/1',
    CALIFORNIA,
    'monday',
    WEEK,
    daysFrom('2024-06-03', [4, 4, 4, 4, 4, 4, 13]),
    [
      ['2024-06-03', 1, '4.00', '4.00', '0.00', '0.00'],
      ['2024-06-04', 1, '4.00', '4.00', '0.00', '0.00'],
      ['2024-06-05', 1, '4.00', '4.00', '0.00', '0.00'],
      ['2024-06-06', 1, '4.00', '4.00', '0.00', '0.00'],
      ['2024-06-07', 1, '4.00', '4.00', '0.00', '0.00'],
      ['2024-06-08', 1, '4.00', '4.00', '0.00', '0.00'],
      ['2024-06-09', 1, '13.00', '0.00', '8.00', '5.00'],
    ],
    ['37.00', '24.00', '8.00', '5.00'],
  ),
  hand(
    'hand: California, a short seventh day is all overtime',
    CALIFORNIA,
    'monday',
    WEEK,
    daysFrom('2024-06-03', [6, 6, 6, 6, 6, 6, 3]),
    [
      ['2024-06-03', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-04', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-05', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-06', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-07', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-08', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-09', 1, '3.00', '0.00', '3.00', '0.00'],
    ],
    ['39.00', '36.00', '3.00', '0.00'],
  ),
  hand(
    'hand: California, six days and a free Sunday: no seventh-day rule',
    CALIFORNIA,
    'monday',
    WEEK,
    daysFrom('2024-06-03', [6, 6, 6, 6, 6, 6, 0]),
    [
      ['2024-06-03', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-04', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-05', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-06', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-07', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-08', 1, '6.00', '6.00', '0.00', '0.00'],
    ],
    ['36.00', '36.00', '0.00', '0.00'],
  ),
  hand(
    'hand: California, a zero-length record is no hours: no seventh day',
    CALIFORNIA,
    'monday',
    WEEK,
    [...daysFrom('2024-06-03', [6, 6, 0, 6, 6, 6, 9]), utc('2024-06-05 09:00', '2024-06-05 09:00')],
    [
      ['2024-06-03', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-04', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-05', 1, '0.00', '0.00', '0.00', '0.00'],
      ['2024-06-06', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-07', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-08', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-09', 1, '9.00', '8.00', '1.00', '0.00'],
    ],
    ['39.00', '38.00', '1.00', '0.00'],
  ),
  hand(
    'hand: California, seven days but the week starts Wednesday: two workweeks, no seventh day',
    CALIFORNIA,
    'wednesday',
    ['2024-06-03', '2024-06-11'],
    daysFrom('2024-06-03', [6, 6, 6, 6, 6, 6, 6]),
    [
      ['2024-06-03', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-04', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-05', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-06', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-07', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-08', 1, '6.00', '6.00', '0.00', '0.00'],
      ['2024-06-09', 1, '6.00', '6.00', '0.00', '0.00'],
    ],
    ['42.00', '42.00', '0.00', '0.00'],
  ),
  hand(
    'hand: California, three records on one day add up before the daily rule',
    CALIFORNIA,
    'monday',
    WEEK,
    [utc('2024-06-03 06:00', '2024-06-03 09:00'), utc('2024-06-03 10:00', '2024-06-03 14:00'), utc('2024-06-03 15:00', '2024-06-03 21:00')],
    [['2024-06-03', 3, '13.00', '8.00', '4.00', '1.00']],
    ['13.00', '8.00', '4.00', '1.00'],
  ),
  hand(
    'hand: no weekly rule, seventh day only: seven 10-hour days',
    rules({ seventh_day: true }),
    'monday',
    WEEK,
    daysFrom('2024-06-03', [10, 10, 10, 10, 10, 10, 10]),
    [
      ['2024-06-03', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-04', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-05', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-06', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-07', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-08', 1, '10.00', '10.00', '0.00', '0.00'],
      ['2024-06-09', 1, '10.00', '0.00', '8.00', '2.00'],
    ],
    ['70.00', '60.00', '8.00', '2.00'],
  ),
  hand(
    'hand: no rules at all: everything regular',
    NONE,
    'monday',
    WEEK,
    daysFrom('2024-06-03', [14, 14, 14, 14, 14]),
    [
      ['2024-06-03', 1, '14.00', '14.00', '0.00', '0.00'],
      ['2024-06-04', 1, '14.00', '14.00', '0.00', '0.00'],
      ['2024-06-05', 1, '14.00', '14.00', '0.00', '0.00'],
      ['2024-06-06', 1, '14.00', '14.00', '0.00', '0.00'],
      ['2024-06-07', 1, '14.00', '14.00', '0.00', '0.00'],
    ],
    ['70.00', '70.00', '0.00', '0.00'],
  ),
  hand(
    'hand: night shift across midnight counts whole on the date it began',
    FLSA,
    'monday',
    WEEK,
    [utc('2024-06-03 22:00', '2024-06-04 06:30')],
    [['2024-06-03', 1, '8.50', '8.50', '0.00', '0.00']],
    ['8.50', '8.50', '0.00', '0.00'],
  ),
  hand(
    'hand: a night shift that begins on the last date of the range counts whole in it',
    rules({ daily_after_hours: 8 }),
    'monday',
    ['2024-06-01', '2024-06-15'],
    [utc('2024-06-15 21:00', '2024-06-16 07:00')],
    [['2024-06-15', 1, '10.00', '8.00', '2.00', '0.00']],
    ['10.00', '8.00', '2.00', '0.00'],
  ),
  hand(
    'hand: Los Angeles, the spring-forward night 22:00-06:00 has 7 hours',
    CALIFORNIA,
    'monday',
    ['2024-03-04', '2024-03-10'],
    [utc('2024-03-10 06:00', '2024-03-10 13:00', 'America/Los_Angeles')],
    [['2024-03-09', 1, '7.00', '7.00', '0.00', '0.00']],
    ['7.00', '7.00', '0.00', '0.00'],
  ),
  hand(
    'hand: Los Angeles, the fall-back night 22:00-06:00 has 9 hours: one daily overtime',
    CALIFORNIA,
    'monday',
    ['2024-10-28', '2024-11-03'],
    [utc('2024-11-03 05:00', '2024-11-03 14:00', 'America/Los_Angeles')],
    [['2024-11-02', 1, '9.00', '8.00', '1.00', '0.00']],
    ['9.00', '8.00', '1.00', '0.00'],
  ),
  hand(
    'hand: Berlin, the spring-forward night 22:00-06:00 has 7 hours',
    rules({ daily_after_hours: 8, weekly_after_hours: 40 }),
    'monday',
    ['2024-03-25', '2024-03-31'],
    [utc('2024-03-30 21:00', '2024-03-31 04:00', 'Europe/Berlin')],
    [['2024-03-30', 1, '7.00', '7.00', '0.00', '0.00']],
    ['7.00', '7.00', '0.00', '0.00'],
  ),
  hand(
    'hand: Berlin, the fall-back night 22:00-06:00 has 9 hours',
    rules({ daily_after_hours: 8, weekly_after_hours: 40 }),
    'monday',
    ['2024-10-21', '2024-10-27'],
    [utc('2024-10-26 20:00', '2024-10-27 05:00', 'Europe/Berlin')],
    [['2024-10-26', 1, '9.00', '8.00', '1.00', '0.00']],
    ['9.00', '8.00', '1.00', '0.00'],
  ),
  hand(
    'hand: Tokyo, a morning shift is on the local date, the day after its UTC date',
    FLSA,
    'monday',
    WEEK,
    [utc('2024-06-03 23:00', '2024-06-04 08:00', 'Asia/Tokyo')],
    [['2024-06-04', 1, '9.00', '9.00', '0.00', '0.00']],
    ['9.00', '9.00', '0.00', '0.00'],
  ),
  hand(
    'hand: the workweek crosses the period start: earlier dates count towards the weekly 40 but are not reported',
    FLSA,
    'monday',
    ['2024-06-16', '2024-06-30'],
    [...daysFrom('2024-06-10', [8, 8, 8, 8, 8, 0, 5]), ...daysFrom('2024-06-17', [8])],
    [
      ['2024-06-16', 1, '5.00', '0.00', '5.00', '0.00'],
      ['2024-06-17', 1, '8.00', '8.00', '0.00', '0.00'],
    ],
    ['13.00', '8.00', '5.00', '0.00'],
  ),
  hand(
    'hand: the same records with the workweek starting Sunday: the period starts a new week',
    FLSA,
    'sunday',
    ['2024-06-16', '2024-06-30'],
    [...daysFrom('2024-06-10', [8, 8, 8, 8, 8, 0, 5]), ...daysFrom('2024-06-17', [8])],
    [
      ['2024-06-16', 1, '5.00', '5.00', '0.00', '0.00'],
      ['2024-06-17', 1, '8.00', '8.00', '0.00', '0.00'],
    ],
    ['13.00', '13.00', '0.00', '0.00'],
  ),
  hand(
    'hand: the seventh day of a workweek that began in the previous period',
    CALIFORNIA,
    'monday',
    ['2024-06-06', '2024-06-12'],
    daysFrom('2024-06-03', [5, 5, 5, 5, 5, 5, 5, 5]),
    [
      ['2024-06-06', 1, '5.00', '5.00', '0.00', '0.00'],
      ['2024-06-07', 1, '5.00', '5.00', '0.00', '0.00'],
      ['2024-06-08', 1, '5.00', '5.00', '0.00', '0.00'],
      ['2024-06-09', 1, '5.00', '0.00', '5.00', '0.00'],
      ['2024-06-10', 1, '5.00', '5.00', '0.00', '0.00'],
    ],
    ['25.00', '20.00', '5.00', '0.00'],
  ),
  hand(
    'hand: a zero-length record is counted on its date with no hours',
    FLSA,
    'monday',
    WEEK,
    [utc('2024-06-04 09:00', '2024-06-04 09:00')],
    [['2024-06-04', 1, '0.00', '0.00', '0.00', '0.00']],
    ['0.00', '0.00', '0.00', '0.00'],
  ),
  hand(
    'hand: an open record counts nothing and is reported',
    CALIFORNIA,
    'monday',
    WEEK,
    [utc('2024-06-04 09:00', null)],
    [],
    ['0.00', '0.00', '0.00', '0.00'],
    1,
  ),
  hand(
    'hand: an open record beside closed ones',
    CALIFORNIA,
    'monday',
    WEEK,
    [...daysFrom('2024-06-03', [9, 9]), utc('2024-06-05 09:00', null)],
    [
      ['2024-06-03', 1, '9.00', '8.00', '1.00', '0.00'],
      ['2024-06-04', 1, '9.00', '8.00', '1.00', '0.00'],
    ],
    ['18.00', '16.00', '2.00', '0.00'],
    1,
  ),
  hand(
    'hand: daily 7.5: an 8-hour day has half an hour of overtime',
    rules({ daily_after_hours: 7.5 }),
    'monday',
    WEEK,
    daysFrom('2024-06-03', [8]),
    [['2024-06-03', 1, '8.00', '7.50', '0.50', '0.00']],
    ['8.00', '7.50', '0.50', '0.00'],
  ),
  hand(
    'hand: weekly 37.5: five 8-hour days',
    rules({ weekly_after_hours: 37.5 }),
    'monday',
    WEEK,
    daysFrom('2024-06-03', [8, 8, 8, 8, 8]),
    [
      ['2024-06-03', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-04', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-05', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-06', 1, '8.00', '8.00', '0.00', '0.00'],
      ['2024-06-07', 1, '8.00', '5.50', '2.50', '0.00'],
    ],
    ['40.00', '37.50', '2.50', '0.00'],
  ),
  hand(
    'hand: daily 8, double after 10.5: an 11-hour day',
    rules({ daily_after_hours: 8, daily_double_after_hours: 10.5 }),
    'monday',
    WEEK,
    daysFrom('2024-06-03', [11]),
    [['2024-06-03', 1, '11.00', '8.00', '2.50', '0.50']],
    ['11.00', '8.00', '2.50', '0.50'],
  ),
  hand(
    'hand: double time after 12 without a daily overtime rule',
    rules({ daily_double_after_hours: 12 }),
    'monday',
    WEEK,
    daysFrom('2024-06-03', [13]),
    [['2024-06-03', 1, '13.00', '12.00', '0.00', '1.00']],
    ['13.00', '12.00', '0.00', '1.00'],
  ),
  hand(
    'hand: totals are rounded from exact sums, not added from rounded days',
    NONE,
    'monday',
    WEEK,
    [
      utc('2024-06-03 09:00:00', '2024-06-03 10:00:12'),
      utc('2024-06-04 09:00:00', '2024-06-04 10:00:12'),
      utc('2024-06-05 09:00:00', '2024-06-05 10:00:12'),
    ],
    [
      ['2024-06-03', 1, '1.00', '1.00', '0.00', '0.00'],
      ['2024-06-04', 1, '1.00', '1.00', '0.00', '0.00'],
      ['2024-06-05', 1, '1.00', '1.00', '0.00', '0.00'],
    ],
    ['3.01', '3.01', '0.00', '0.00'],
  ),
  hand(
    'hand: leap day and a workweek across the year end',
    FLSA,
    'monday',
    ['2024-12-30', '2025-01-05'],
    daysFrom('2024-12-30', [12, 12, 12, 12]),
    [
      ['2024-12-30', 1, '12.00', '12.00', '0.00', '0.00'],
      ['2024-12-31', 1, '12.00', '12.00', '0.00', '0.00'],
      ['2025-01-01', 1, '12.00', '12.00', '0.00', '0.00'],
      ['2025-01-02', 1, '12.00', '4.00', '8.00', '0.00'],
    ],
    ['48.00', '40.00', '8.00', '0.00'],
  ),
  hand(
    'hand: 29 February in a workweek',
    FLSA,
    'thursday',
    ['2024-02-29', '2024-03-06'],
    daysFrom('2024-02-29', [11, 11, 11, 11]),
    [
      ['2024-02-29', 1, '11.00', '11.00', '0.00', '0.00'],
      ['2024-03-01', 1, '11.00', '11.00', '0.00', '0.00'],
      ['2024-03-02', 1, '11.00', '11.00', '0.00', '0.00'],
      ['2024-03-03', 1, '11.00', '7.00', '4.00', '0.00'],
    ],
    ['44.00', '40.00', '4.00', '0.00'],
  ),
];

// ---- Generated families, classified by the reference -------------------------------------------

/** Mulberry32: a small seeded generator, so the file is the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const random = seeded(20_240_603);
const pickOne = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const between = (low: number, high: number): number => low + Math.floor(random() * (high - low + 1));

const ALL_WEEKDAYS: Weekday[] = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const ZONES = [
  'UTC',
  'America/Los_Angeles',
  'America/Chicago',
  'America/New_York',
  'America/Phoenix',
  'Europe/London',
  'Europe/Berlin',
  'Australia/Sydney',
  'Asia/Kolkata',
  'Asia/Tokyo',
];

function addDaysText(date: string, days: number): string {
  return dateText(dateMs(date) + days * DAY_MS);
}
function weekStartOf(date: string, workweekStart: Weekday): string {
  let ms = dateMs(date);
  while (WEEKDAYS_FROM_SUNDAY[new Date(ms).getUTCDay()] !== workweekStart) ms -= DAY_MS;
  return dateText(ms);
}

function describeRules(r: Rules): string {
  const hours = (value: number | null) => (value === null ? 'none' : String(value));
  return `daily ${hours(r.daily_after_hours)}, double ${hours(r.daily_double_after_hours)}, weekly ${hours(r.weekly_after_hours)}${r.seventh_day ? ', seventh day' : ''}`;
}

function generated(name: string, vectorRules: Rules, workweekStart: Weekday, range: [string, string], records: VectorRecord[]): Vector {
  const vector = {
    name: `${name} (${describeRules(vectorRules)})`,
    rules: vectorRules,
    workweek_start: workweekStart,
    range: { from: range[0], to: range[1] },
    records,
  };
  return { ...vector, expected: reference(vector) };
}

/** Random working days over the dates from..to: each date worked with probability `chance`, one to three shifts. */
function randomShifts(zone: string, from: string, to: string, chance: number, options: { maxShifts?: number; seconds?: boolean } = {}) {
  const records: VectorRecord[] = [];
  for (let date = from; date <= to; date = addDaysText(date, 1)) {
    if (random() >= chance) continue;
    let hour = between(5, 10);
    for (let count = between(1, options.maxShifts ?? 1); count > 0; count -= 1) {
      const minutes = between(1, 10) * 60 + between(0, 3) * 15;
      // Shifts of one day never overlap each other or the next day's.
      if (hour + Math.ceil(minutes / 60) > 24) break;
      const seconds = minutes * 60 + (options.seconds ? between(0, 59) : 0);
      records.push(
        shift(
          zone,
          `${date} ${String(hour).padStart(2, '0')}:${options.seconds ? String(between(0, 59)).padStart(2, '0') : '00'}`,
          seconds,
        ),
      );
      hour += Math.ceil(minutes / 60) + 1;
    }
  }
  return records;
}

function generateFamilies(): Vector[] {
  const vectors: Vector[] = [];
  const mondays = ['2024-01-08', '2024-04-15', '2024-07-22', '2025-02-24', '2025-09-01', '2026-05-11'];

  // FLSA weekly 40, random weeks in every zone and workweek start.
  for (let index = 0; index < 40; index += 1) {
    const workweekStart = pickOne(ALL_WEEKDAYS);
    const from = weekStartOf(addDaysText(pickOne(mondays), between(0, 6)), workweekStart);
    const to = addDaysText(from, between(1, 2) * 7 - 1);
    const zone = pickOne(ZONES);
    vectors.push(
      generated(
        `FLSA weekly 40, ${zone}, week from ${workweekStart} ${from}`,
        FLSA,
        workweekStart,
        [from, to],
        randomShifts(zone, from, addDaysText(to, -1), 0.8),
      ),
    );
  }

  // California daily 8/12, weekly 40 and the seventh day: long days and full weeks.
  for (let index = 0; index < 40; index += 1) {
    const workweekStart = index % 3 === 0 ? 'sunday' : 'monday';
    const from = weekStartOf(pickOne(mondays), workweekStart);
    const to = addDaysText(from, 13);
    const zone = pickOne(['America/Los_Angeles', 'America/Los_Angeles', 'UTC', 'America/Phoenix']);
    const records: VectorRecord[] = [];
    for (let date = from; date <= addDaysText(to, -1); date = addDaysText(date, 1)) {
      if (random() < (index % 2 === 0 ? 0.97 : 0.75))
        records.push(shift(zone, `${date} 0${between(5, 9)}:00`, between(2, 15) * 3600 + between(0, 3) * 900));
    }
    vectors.push(
      generated(`California 8/12/40 with seventh day, ${zone}, two weeks from ${from}`, CALIFORNIA, workweekStart, [from, to], records),
    );
  }

  // Night shifts across midnight.
  for (let index = 0; index < 20; index += 1) {
    const zone = pickOne(ZONES);
    const from = pickOne(mondays);
    const to = addDaysText(from, 6);
    const records: VectorRecord[] = [];
    for (let offset = 0; offset < 7; offset += 1) {
      if (random() < 0.7)
        records.push(shift(zone, `${addDaysText(from, offset)} ${between(18, 23)}:${pickOne(['00', '30'])}`, between(6, 12) * 3600));
    }
    vectors.push(
      generated(`night shifts across midnight, ${zone}, week of ${from}`, index % 2 ? CALIFORNIA : FLSA, 'monday', [from, to], records),
    );
  }

  // Both daylight-saving changes of each zone that has them: nights, days and shifts that end inside the change.
  const changes: [string, string, string][] = [
    ['America/Los_Angeles', '2024-03-09', 'spring forward'],
    ['America/Los_Angeles', '2024-11-02', 'fall back'],
    ['America/New_York', '2025-03-08', 'spring forward'],
    ['America/New_York', '2025-11-01', 'fall back'],
    ['America/Chicago', '2026-03-07', 'spring forward'],
    ['America/Chicago', '2026-10-31', 'fall back'],
    ['Europe/Berlin', '2024-03-30', 'spring forward'],
    ['Europe/Berlin', '2024-10-26', 'fall back'],
    ['Europe/London', '2025-03-29', 'spring forward'],
    ['Europe/London', '2025-10-25', 'fall back'],
    ['Australia/Sydney', '2024-10-05', 'spring forward'],
    ['Australia/Sydney', '2025-04-05', 'fall back'],
  ];
  for (const [zone, nightOf, kind] of changes) {
    const next = addDaysText(nightOf, 1);
    const from = weekStartOf(nightOf, 'monday');
    const to = addDaysText(from, 6 + 7);
    const shapes: [string, VectorRecord[]][] = [
      ['night 22:00-06:00', [localShift(zone, `${nightOf} 22:00`, `${next} 06:00`)]],
      [
        'night 20:00-08:00 after four 8-hour days',
        [
          ...[4, 3, 2, 1].map((back) => shift(zone, `${addDaysText(nightOf, -back)} 09:00`, 8 * 3600)),
          localShift(zone, `${nightOf} 20:00`, `${next} 08:00`),
        ],
      ],
      [
        'night 23:30-04:00, then a day shift 10:00-18:00 on the change date',
        [localShift(zone, `${nightOf} 23:30`, `${next} 04:00`), localShift(zone, `${next} 10:00`, `${next} 18:00`)],
      ],
      [
        'seven nights 21:00-07:00 around the change',
        [-3, -2, -1, 0, 1, 2, 3].map((day) =>
          localShift(zone, `${addDaysText(nightOf, day)} 21:00`, `${addDaysText(nightOf, day + 1)} 07:00`),
        ),
      ],
    ];
    for (const [shape, records] of shapes) {
      for (const rulesOfCase of [CALIFORNIA, rules({ daily_after_hours: 8, weekly_after_hours: 40 })]) {
        vectors.push(generated(`${zone} ${kind} (${nightOf}): ${shape}`, rulesOfCase, 'monday', [from, to], records));
      }
    }
  }

  // Workweeks crossing a period boundary: records before range.from count towards the weekly and seventh-day rules.
  for (let index = 0; index < 24; index += 1) {
    const workweekStart = pickOne(ALL_WEEKDAYS);
    const from = pickOne(['2024-02-16', '2024-03-01', '2024-12-16', '2025-01-01', '2025-06-16', '2026-03-01']);
    const to = addDaysText(from, between(13, 15));
    const first = weekStartOf(from, workweekStart);
    const zone = pickOne(['UTC', 'America/Chicago', 'Europe/Berlin', 'Asia/Kolkata']);
    const caseRules = pickOne([FLSA, CALIFORNIA, rules({ weekly_after_hours: 37.5, seventh_day: true })]);
    vectors.push(
      generated(
        `workweek from ${first} crossing the period start ${from}, ${zone}`,
        caseRules,
        workweekStart,
        [from, to],
        randomShifts(zone, first, addDaysText(to, -1), 0.9),
      ),
    );
  }

  // Several records a day, with seconds.
  for (let index = 0; index < 20; index += 1) {
    const from = pickOne(mondays);
    const zone = pickOne(ZONES);
    const caseRules = pickOne([FLSA, CALIFORNIA, rules({ daily_after_hours: 8, daily_double_after_hours: 10 })]);
    vectors.push(
      generated(
        `several records a day, ${zone}, week of ${from}`,
        caseRules,
        'monday',
        [from, addDaysText(from, 6)],
        randomShifts(zone, from, addDaysText(from, 5), 0.9, { maxShifts: 3, seconds: true }),
      ),
    );
  }

  // Zero-length and open records among others.
  for (let index = 0; index < 12; index += 1) {
    const from = pickOne(mondays);
    const zone = pickOne(ZONES);
    const records = randomShifts(zone, from, addDaysText(from, 4), 0.8);
    const zeroDate = addDaysText(from, between(0, 5));
    records.push(shift(zone, `${zeroDate} 22:45`, 0));
    if (index % 2 === 0) records.push(shift(zone, `${addDaysText(from, 6)} 08:00`, 0));
    // At most one open record, the latest: a new punch-in needs the open one closed first.
    if (index % 3 !== 2) records.push(openShift(zone, `${addDaysText(from, 6)} 21:00`));
    vectors.push(
      generated(
        `zero-length and open records, ${zone}, week of ${from}`,
        index % 2 ? CALIFORNIA : FLSA,
        'monday',
        [from, addDaysText(from, 6)],
        records,
      ),
    );
  }

  // Every workweek start over the same records.
  const sameRecords = randomShifts('America/New_York', '2025-02-24', '2025-03-16', 0.85);
  for (const workweekStart of ALL_WEEKDAYS) {
    for (const caseRules of [FLSA, CALIFORNIA]) {
      vectors.push(
        generated(
          `workweek starting ${workweekStart}, three weeks in New York`,
          caseRules,
          workweekStart,
          ['2025-03-03', '2025-03-16'],
          sameRecords.filter((record) => record.in_time_utc >= `${weekStartOf('2025-03-03', workweekStart)} 05`),
        ),
      );
    }
  }

  // Decimal thresholds, to the second.
  const decimalRules: Rules[] = [
    rules({ daily_after_hours: 7.5, weekly_after_hours: 37.5 }),
    rules({ daily_after_hours: 8.25, daily_double_after_hours: 11.75, weekly_after_hours: 38.5 }),
    rules({ daily_after_hours: 9.99, daily_double_after_hours: 10.01 }),
    rules({ daily_double_after_hours: 9.33, weekly_after_hours: 35.05, seventh_day: true }),
    rules({ daily_after_hours: 0.01, daily_double_after_hours: 0.02 }),
    rules({ weekly_after_hours: 0.5, seventh_day: true }),
  ];
  for (let index = 0; index < 24; index += 1) {
    const from = pickOne(mondays);
    const zone = pickOne(ZONES);
    const caseRules = decimalRules[index % decimalRules.length]!;
    vectors.push(
      generated(
        `decimal thresholds, ${zone}, week of ${from}`,
        caseRules,
        'monday',
        [from, addDaysText(from, 6)],
        randomShifts(zone, from, addDaysText(from, 6), 0.95, { maxShifts: 2, seconds: true }),
      ),
    );
  }

  // Whole monthly periods (several workweeks, the first beginning in the month before).
  for (const [from, to] of [
    ['2024-02-01', '2024-02-29'],
    ['2024-12-01', '2024-12-31'],
    ['2025-02-01', '2025-02-28'],
    ['2025-10-15', '2025-11-14'],
    ['2026-03-01', '2026-03-31'],
  ] as const) {
    const zone = pickOne(['America/Los_Angeles', 'Europe/Berlin', 'Australia/Sydney']);
    for (const caseRules of [FLSA, CALIFORNIA]) {
      vectors.push(
        generated(
          `a whole period ${from}..${to}, ${zone}`,
          caseRules,
          'monday',
          [from, to],
          randomShifts(zone, weekStartOf(from, 'monday'), addDaysText(to, -1), 0.8, { maxShifts: 2 }),
        ),
      );
    }
  }
  return vectors;
}

// ---- The file ----------------------------------------------------------------------------------

async function main(): Promise<void> {
  for (const vector of HAND_CASES) {
    const computed = reference(vector);
    if (JSON.stringify(computed) !== JSON.stringify(vector.expected)) {
      throw new Error(
        `the reference disagrees with the hand-written case "${vector.name}":\n${JSON.stringify(computed)}\n${JSON.stringify(vector.expected)}`,
      );
    }
  }
  const cases = [...HAND_CASES, ...generateFamilies()];
  const names = new Set<string>();
  for (const vector of cases) {
    let name = vector.name;
    for (let copy = 2; names.has(name); copy += 1) name = `${vector.name} #${copy}`;
    vector.name = name;
    names.add(name);
  }
  const document = {
    about:
      'Test vectors of hour classification for pay periods: regular, overtime and double time. Format and rules: docs/overtime-vectors.md.',
    version: 1,
    cases,
  };
  const options = (await prettier.resolveConfig(VECTORS_FILE)) ?? {};
  const text = await prettier.format(JSON.stringify(document), { ...options, parser: 'json', filepath: VECTORS_FILE });
  if (process.argv.includes('--write')) {
    fs.writeFileSync(VECTORS_FILE, text);
    console.log(`wrote ${cases.length} cases to docs/overtime-vectors.json`);
  } else if (!fs.existsSync(VECTORS_FILE) || fs.readFileSync(VECTORS_FILE, 'utf8') !== text) {
    console.error('docs/overtime-vectors.json differs from what this script generates (run it with --write)');
    process.exitCode = 1;
  } else {
    console.log(`docs/overtime-vectors.json is up to date: ${cases.length} cases`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
