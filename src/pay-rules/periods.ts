// Pay periods and workweeks as calendar dates (docs/pay-periods.md, "Periods"). Dates are
// 'YYYY-MM-DD' strings; the arithmetic and every comparison are on day numbers, so no time zone
// or clock plays a part, and no walk can pass 9999-12-31 (docs/security.md, "Third review").
import { addDays, dateOfDayNumber, dayNumber, dayNumberOfParts, daysBetween, formatDate, MAX_DAY, MIN_DAY } from '../time';
import { type PayPeriodSettings, type Weekday, WEEKDAYS } from './settings';

export { addDays, daysBetween };

/** A pay period, both dates inclusive. */
export interface Period {
  start: string;
  end: string;
}

/** A range of dates, both inclusive: what the period code lists and walks. */
export interface DateRange {
  from: string;
  to: string;
}

/** The widest range of dates a walk over periods covers (from..to, in days): ten years. */
export const MAX_PERIOD_RANGE_DAYS = 3660;

function daysInMonth(year: number, month: number): number {
  return dayNumberOfParts(month === 12 ? year + 1 : year, month === 12 ? 1 : month + 1, 1) - dayNumberOfParts(year, month, 1);
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

/**
 * A period of day numbers as dates, cut to 0001-01-01..9999-12-31: the first and the last period
 * of the calendar are shorter than the rest rather than naming dates no database stores.
 */
function periodOfDays(start: number, end: number): Period {
  return { start: dateOfDayNumber(Math.max(start, MIN_DAY)), end: dateOfDayNumber(Math.min(end, MAX_DAY)) };
}

function fixedLengthPeriod(anchor: string, length: number, date: string): Period {
  const anchorDay = dayNumber(anchor);
  const start = anchorDay + Math.floor((dayNumber(date) - anchorDay) / length) * length;
  return periodOfDays(start, start + length - 1);
}

/** The pay period that contains `date` (a date from 0001-01-01 to 9999-12-31). */
export function periodContaining(settings: PayPeriodSettings, date: string): Period {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
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
      return periodOfDays(dayNumberOfParts(startYear, startMonth, startDay), dayNumberOfParts(nextYear, nextMonth, startDay) - 1);
    }
  }
}

/** The period that starts on `date`; undefined when no period starts that day. */
export function periodStartingOn(settings: PayPeriodSettings, date: string): Period | undefined {
  const period = periodContaining(settings, date);
  return period.start === date ? period : undefined;
}

/**
 * Why a range cannot be walked, or undefined when it can: both dates within 0001-01-01..9999-12-31
 * and at most MAX_PERIOD_RANGE_DAYS apart, so every walk ends, and soon.
 */
export function rangeProblem(range: DateRange): string | undefined {
  const [from, to] = [dayNumber(range.from), dayNumber(range.to)];
  if (!(from >= MIN_DAY && to <= MAX_DAY)) return 'must lie from 0001-01-01 to 9999-12-31';
  if (to - from > MAX_PERIOD_RANGE_DAYS) return `must be at most ${MAX_PERIOD_RANGE_DAYS} days after from`;
  return undefined;
}

/**
 * The periods with at least one date in from..to (inclusive), ascending; none when from > to.
 * A range rangeProblem refuses is a RangeError: callers check their input first.
 */
export function periodsOverlapping(settings: PayPeriodSettings, from: string, to: string): Period[] {
  const problem = rangeProblem({ from, to });
  if (problem) throw new RangeError(`The range ${from}..${to} ${problem}`);
  const periods: Period[] = [];
  const last = dayNumber(to);
  let day = dayNumber(from);
  while (day <= last) {
    const period = periodContaining(settings, dateOfDayNumber(day));
    periods.push(period);
    day = dayNumber(period.end) + 1;
  }
  return periods;
}
