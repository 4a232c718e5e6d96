// How worked hours are classified as regular, overtime and double time (docs/pay-periods.md, "How
// hours are classified"; checked against docs/overtime-vectors.json). Exact seconds throughout.
import { parseIsoInstant, wallClockIn } from '../time';
import { datesOf, workweekStartOf } from './periods';
import { type OvertimeRules, type Weekday, thresholdSeconds } from './settings';

/**
 * A closed record as classification sees it: the date of its in_time on its own wall clock, and
 * its elapsed time (out_time_utc - in_time_utc) in whole seconds.
 */
export interface WorkedRecord {
  date: string;
  seconds: number;
}

/** One date's hours in seconds; `records` is the number of closed records counted on it. */
export interface DayHours {
  date: string;
  worked: number;
  regular: number;
  overtime: number;
  double_time: number;
  records: number;
}

const SQL_UTC_PATTERN = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?$/;

/** Seconds since the epoch of a UTC time written 'YYYY-MM-DD HH:MM:SS' (as stored) or ISO-8601. */
function utcSecondsOf(value: string): number {
  const match = SQL_UTC_PATTERN.exec(value);
  if (match) {
    const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
    const date = new Date(0);
    date.setUTCFullYear(year, month - 1, day);
    date.setUTCHours(hour, minute, second, 0);
    return Math.floor(date.getTime() / 1000);
  }
  const instant = parseIsoInstant(value);
  if (!instant) throw new RangeError(`not a UTC time: ${JSON.stringify(value)}`);
  return Math.floor(instant.getTime() / 1000);
}

/** A closed record's date (its in_time on its own wall clock) and elapsed seconds. */
export function workedRecordOf(record: { in_time_utc: string; out_time_utc: string; timezone: string }): WorkedRecord {
  const inSeconds = utcSecondsOf(record.in_time_utc);
  const seconds = utcSecondsOf(record.out_time_utc) - inSeconds;
  return { date: wallClockIn(record.timezone, new Date(inSeconds * 1000)).slice(0, 10), seconds: Math.max(0, seconds) };
}

const SEVENTH_DAY_OVERTIME_SECONDS = 8 * 3600;

interface Thresholds {
  daily: number | null;
  double: number | null;
  weekly: number | null;
  seventhDay: boolean;
}

function thresholdsOf(rules: OvertimeRules): Thresholds {
  const seconds = (hours: number | null) => (hours === null ? null : thresholdSeconds(hours));
  return {
    daily: seconds(rules.daily_after_hours),
    double: seconds(rules.daily_double_after_hours),
    weekly: seconds(rules.weekly_after_hours),
    seventhDay: rules.seventh_day,
  };
}

/** The daily rule over one date's worked seconds: regular up to daily, overtime up to double, the rest double time. */
function classifyDay(worked: number, thresholds: Thresholds): { regular: number; overtime: number; double_time: number } {
  const doubleFrom = thresholds.double === null ? worked : Math.min(worked, thresholds.double);
  const regular = Math.min(doubleFrom, thresholds.daily === null ? worked : thresholds.daily);
  return { regular, overtime: doubleFrom - regular, double_time: worked - doubleFrom };
}

/**
 * Each date of range.from..range.to (ascending, zeros included) with its worked seconds classified
 * by the daily rule, then the seventh-day rule, then the weekly rule. `records` may include the
 * dates of the first workweek before range.from: they count towards that week's weekly and
 * seventh-day rules but are not returned. Records on other dates are ignored.
 */
export function classifyDays(
  records: readonly WorkedRecord[],
  rules: OvertimeRules,
  workweekStart: Weekday,
  range: { from: string; to: string },
): DayHours[] {
  if (range.from > range.to) return [];
  const thresholds = thresholdsOf(rules);
  const first = workweekStartOf(range.from, workweekStart);
  const dates = datesOf({ start: first, end: range.to });
  const byDate = new Map<string, { worked: number; records: number }>();
  for (const record of records) {
    if (record.date < first || record.date > range.to) continue;
    const day = byDate.get(record.date) ?? { worked: 0, records: 0 };
    day.worked += record.seconds;
    day.records += 1;
    byDate.set(record.date, day);
  }

  const days: DayHours[] = [];
  for (let weekStart = 0; weekStart < dates.length; weekStart += 7) {
    const week = dates.slice(weekStart, weekStart + 7).map((date) => {
      const { worked = 0, records: count = 0 } = byDate.get(date) ?? {};
      return { date, worked, ...classifyDay(worked, thresholds), records: count };
    });
    const seventh = week[6];
    if (thresholds.seventhDay && seventh && week.every((day) => day.worked > 0)) {
      seventh.regular = 0;
      seventh.overtime = Math.min(seventh.worked, SEVENTH_DAY_OVERTIME_SECONDS);
      seventh.double_time = seventh.worked - seventh.overtime;
    }
    if (thresholds.weekly !== null) {
      let regularSoFar = 0;
      for (const day of week) {
        const kept = Math.max(0, Math.min(day.regular, thresholds.weekly - regularSoFar));
        regularSoFar += day.regular;
        day.overtime += day.regular - kept;
        day.regular = kept;
      }
    }
    days.push(...week);
  }
  return days.filter((day) => day.date >= range.from);
}

/** Seconds as hours rounded to 2 decimals, half up, in integer arithmetic (no binary fractions). */
export function hoursOf(seconds: number): number {
  return Math.floor((seconds + 18) / 36) / 100;
}

/** hoursOf written with exactly 2 decimals, e.g. "8.00". */
export function formatHours(seconds: number): string {
  const hundredths = Math.floor((seconds + 18) / 36);
  const sign = hundredths < 0 ? '-' : '';
  const absolute = Math.abs(hundredths);
  return `${sign}${Math.floor(absolute / 100)}.${String(absolute % 100).padStart(2, '0')}`;
}

/** Exact sums of the days' seconds (round only when reporting: hoursOf of each sum). */
export function totalsOf(days: readonly DayHours[]): { worked: number; regular: number; overtime: number; double_time: number } {
  const totals = { worked: 0, regular: 0, overtime: 0, double_time: 0 };
  for (const day of days) {
    totals.worked += day.worked;
    totals.regular += day.regular;
    totals.overtime += day.overtime;
    totals.double_time += day.double_time;
  }
  return totals;
}

/** The first date whose records classifyDays needs for range.from (the start of its workweek). */
export function firstCountedDate(from: string, workweekStart: Weekday): string {
  return workweekStartOf(from, workweekStart);
}
