import { periodContaining, periodsOverlapping, rangeProblem } from '../../src/pay-rules/periods';
import { DEFAULT_PAY_PERIOD_SETTINGS, type PayPeriodSettings } from '../../src/pay-rules/settings';
import { addDays, dateOfDayNumber, dayNumber, MAX_DAY, MIN_DAY, weekdayOf } from '../../src/time';

// Dates at the ends of the calendar (docs/security.md, "Third review").

const weekly: PayPeriodSettings = { ...DEFAULT_PAY_PERIOD_SETTINGS, frequency: 'weekly' };

describe('day numbers', () => {
  it('round-trip every date of the first and the last years', () => {
    for (const day of [MIN_DAY, MIN_DAY + 400, MAX_DAY - 400, MAX_DAY]) expect(dayNumber(dateOfDayNumber(day))).toBe(day);
    expect(dateOfDayNumber(MIN_DAY)).toBe('0001-01-01');
    expect(dateOfDayNumber(MAX_DAY)).toBe('9999-12-31');
  });

  it('add days to years 1 to 99 without reading them as 1900 to 1999', () => {
    expect(addDays('0050-02-28', 1)).toBe('0050-03-01');
    expect(addDays('0001-01-01', 365)).toBe('0002-01-01');
  });

  it('name weekdays of any year', () => {
    expect(weekdayOf('2026-11-22')).toBe(0);
    expect(weekdayOf('9999-12-27')).toBe(1);
    expect(weekdayOf('0001-01-01')).toBe(1);
  });
});

describe('periods at the calendar ends', () => {
  it('cut the last period at 9999-12-31 and the first at 0001-01-01', () => {
    expect(periodContaining(weekly, '9999-12-30')).toEqual({ start: '9999-12-27', end: '9999-12-31' });
    expect(periodContaining({ ...DEFAULT_PAY_PERIOD_SETTINGS, month_start_day: 15 }, '9999-12-20')).toEqual({
      start: '9999-12-15',
      end: '9999-12-31',
    });
    expect(periodContaining({ ...DEFAULT_PAY_PERIOD_SETTINGS, month_start_day: 15 }, '0001-01-02')).toEqual({
      start: '0001-01-01',
      end: '0001-01-14',
    });
  });

  it('walk up to 9999-12-31 and stop', () => {
    const periods = periodsOverlapping(weekly, '9999-12-01', '9999-12-31');

    expect(periods.at(-1)).toEqual({ start: '9999-12-27', end: '9999-12-31' });
    expect(periods).toHaveLength(5);
  });

  it('refuse a walk wider than ten years or past the calendar, naming why', () => {
    expect(rangeProblem({ from: '0001-01-01', to: '9999-12-31' })).toBe('must be at most 3660 days after from');
    expect(rangeProblem({ from: '9999-12-01', to: '10000-01-01' })).toBe('must lie from 0001-01-01 to 9999-12-31');
    expect(() => periodsOverlapping(weekly, '0001-01-01', '9999-12-31')).toThrow(RangeError);
  });
});
