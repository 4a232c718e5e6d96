// Pay periods and workweeks as calendar dates (docs/pay-periods.md, "Periods"). Dates are
// 'YYYY-MM-DD' strings; the arithmetic is on day numbers, so no time zone or clock plays a part.
import { type PayPeriodSettings, type Weekday, WEEKDAYS } from './settings';

/** A pay period, both dates inclusive. */
export interface Period {
  start: string;
  end: string;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function dayNumberOf(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The date of a day number (civil_from_days). */
function dateOfDayNumber(dayNumber: number): string {
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
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return formatDate(year, month, day);
}

function formatDate(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function partsOf(date: string): [number, number, number] {
  return [Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10))];
}

function dayNumber(date: string): number {
  return dayNumberOf(...partsOf(date));
}

function daysInMonth(year: number, month: number): number {
  return dayNumberOf(month === 12 ? year + 1 : year, month === 12 ? 1 : month + 1, 1) - dayNumberOf(year, month, 1);
}

/** The calendar date `days` days after `date` (before, when negative). */
export function addDays(date: string, days: number): string {
  return dateOfDayNumber(dayNumber(date) + days);
}

/** Days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from);
}

/** Every date of a period, ascending. */
export function datesOf(period: Period): string[] {
  const first = dayNumber(period.start);
  const count = dayNumber(period.end) - first + 1;
  return Array.from({ length: Math.max(0, count) }, (_, index) => dateOfDayNumber(first + index));
}

/** 0 for Monday to 6 for Sunday (1970-01-01, day 0, was a Thursday). */
function mondayIndexOf(date: string): number {
  return (((dayNumber(date) + 3) % 7) + 7) % 7;
}

/** The first date of the workweek that contains `date`, for workweeks starting on `workweekStart`. */
export function workweekStartOf(date: string, workweekStart: Weekday): string {
  const back = (mondayIndexOf(date) - WEEKDAYS.indexOf(workweekStart) + 7) % 7;
  return addDays(date, -back);
}

/** The month `months` after year/month (before, when negative). */
function shiftMonth(year: number, month: number, months: number): [number, number] {
  const index = year * 12 + (month - 1) + months;
  return [Math.floor(index / 12), (index % 12) + 1];
}

function fixedLengthPeriod(anchor: string, length: number, date: string): Period {
  const offset = Math.floor(daysBetween(anchor, date) / length) * length;
  const start = addDays(anchor, offset);
  return { start, end: addDays(start, length - 1) };
}

/** The pay period that contains `date`. */
export function periodContaining(settings: PayPeriodSettings, date: string): Period {
  const [year, month, day] = partsOf(date);
  switch (settings.frequency) {
    case 'weekly':
      return fixedLengthPeriod(settings.anchor_date, 7, date);
    case 'biweekly':
      return fixedLengthPeriod(settings.anchor_date, 14, date);
    case 'semimonthly':
      return day <= 15
        ? { start: formatDate(year, month, 1), end: formatDate(year, month, 15) }
        : { start: formatDate(year, month, 16), end: formatDate(year, month, daysInMonth(year, month)) };
    case 'monthly': {
      const startDay = settings.month_start_day;
      const [startYear, startMonth] = day >= startDay ? [year, month] : shiftMonth(year, month, -1);
      const [nextYear, nextMonth] = shiftMonth(startYear, startMonth, 1);
      return { start: formatDate(startYear, startMonth, startDay), end: addDays(formatDate(nextYear, nextMonth, startDay), -1) };
    }
  }
}

/** The period that starts on `date`; undefined when no period starts that day. */
export function periodStartingOn(settings: PayPeriodSettings, date: string): Period | undefined {
  const period = periodContaining(settings, date);
  return period.start === date ? period : undefined;
}

/** The periods with at least one date in from..to (inclusive), ascending; none when from > to. */
export function periodsOverlapping(settings: PayPeriodSettings, from: string, to: string): Period[] {
  const periods: Period[] = [];
  if (from > to) return periods;
  let period = periodContaining(settings, from);
  while (period.start <= to) {
    periods.push(period);
    period = periodContaining(settings, addDays(period.end, 1));
  }
  return periods;
}
