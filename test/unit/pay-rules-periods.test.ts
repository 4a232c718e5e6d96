import {
  addDays,
  datesOf,
  daysBetween,
  periodContaining,
  periodStartingOn,
  periodsOverlapping,
  workweekStartOf,
} from '../../src/pay-rules/periods';
import { DEFAULT_PAY_PERIOD_SETTINGS, type PayPeriodSettings } from '../../src/pay-rules/settings';

const settings = (changes: Partial<PayPeriodSettings>): PayPeriodSettings => ({ ...DEFAULT_PAY_PERIOD_SETTINGS, ...changes });

describe('calendar arithmetic', () => {
  it.each([
    ['2024-02-28', 1, '2024-02-29'],
    ['2024-02-29', 1, '2024-03-01'],
    ['2023-02-28', 1, '2023-03-01'],
    ['2100-02-28', 1, '2100-03-01'],
    ['2000-02-28', 1, '2000-02-29'],
    ['2024-12-31', 1, '2025-01-01'],
    ['2025-01-01', -1, '2024-12-31'],
    ['2024-03-01', -366, '2023-03-01'],
    ['1999-12-25', 14, '2000-01-08'],
    ['2024-01-01', 0, '2024-01-01'],
  ])('adds to %s %i days: %s', (date, days, expected) => {
    expect(addDays(date, days)).toBe(expected);
  });

  it('agrees with Date over forty years, day by day', () => {
    let date = '1990-01-01';
    for (let day = 0; day < 366 * 40; day += 1) {
      const next = addDays(date, 1);
      expect(next).toBe(new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10));
      expect(daysBetween(date, next)).toBe(1);
      date = next;
    }
  });

  it('lists the dates of a period, both ends included', () => {
    expect(datesOf({ start: '2024-02-27', end: '2024-03-02' })).toEqual([
      '2024-02-27',
      '2024-02-28',
      '2024-02-29',
      '2024-03-01',
      '2024-03-02',
    ]);
    expect(datesOf({ start: '2024-03-02', end: '2024-03-02' })).toEqual(['2024-03-02']);
    expect(datesOf({ start: '2024-03-03', end: '2024-03-02' })).toEqual([]);
  });

  it.each([
    ['2024-06-12', 'monday', '2024-06-10'],
    ['2024-06-10', 'monday', '2024-06-10'],
    ['2024-06-09', 'monday', '2024-06-03'],
    ['2024-06-09', 'sunday', '2024-06-09'],
    ['2024-06-08', 'sunday', '2024-06-02'],
    ['2024-06-12', 'thursday', '2024-06-06'],
    ['2025-01-02', 'saturday', '2024-12-28'],
  ] as const)('starts the workweek of %s beginning %s on %s', (date, start, expected) => {
    expect(workweekStartOf(date, start)).toBe(expected);
  });
});

describe('weekly and biweekly periods', () => {
  const weekly = settings({ frequency: 'weekly', anchor_date: '2024-01-01' });
  const biweekly = settings({ frequency: 'biweekly', anchor_date: '2024-01-05' });

  it('counts weekly periods from the anchor, before it too', () => {
    expect(periodContaining(weekly, '2024-01-01')).toEqual({ start: '2024-01-01', end: '2024-01-07' });
    expect(periodContaining(weekly, '2024-01-07')).toEqual({ start: '2024-01-01', end: '2024-01-07' });
    expect(periodContaining(weekly, '2024-12-31')).toEqual({ start: '2024-12-30', end: '2025-01-05' });
    expect(periodContaining(weekly, '2023-12-31')).toEqual({ start: '2023-12-25', end: '2023-12-31' });
    expect(periodContaining(weekly, '2020-02-29')).toEqual({ start: '2020-02-24', end: '2020-03-01' });
  });

  it('counts biweekly periods from the anchor, before it too', () => {
    expect(periodContaining(biweekly, '2024-01-05')).toEqual({ start: '2024-01-05', end: '2024-01-18' });
    expect(periodContaining(biweekly, '2024-01-18')).toEqual({ start: '2024-01-05', end: '2024-01-18' });
    expect(periodContaining(biweekly, '2024-01-19')).toEqual({ start: '2024-01-19', end: '2024-02-01' });
    expect(periodContaining(biweekly, '2024-01-04')).toEqual({ start: '2023-12-22', end: '2024-01-04' });
    expect(periodContaining(biweekly, '2023-12-22')).toEqual({ start: '2023-12-22', end: '2024-01-04' });
    expect(periodContaining(biweekly, '2024-02-29')).toEqual({ start: '2024-02-16', end: '2024-02-29' });
    expect(periodContaining(biweekly, '2024-03-01')).toEqual({ start: '2024-03-01', end: '2024-03-14' });
  });

  it('names a period by its start only', () => {
    expect(periodStartingOn(biweekly, '2024-01-19')).toEqual({ start: '2024-01-19', end: '2024-02-01' });
    expect(periodStartingOn(biweekly, '2023-12-22')).toEqual({ start: '2023-12-22', end: '2024-01-04' });
    expect(periodStartingOn(biweekly, '2024-01-12')).toBeUndefined();
    expect(periodStartingOn(weekly, '2024-01-08')).toEqual({ start: '2024-01-08', end: '2024-01-14' });
    expect(periodStartingOn(weekly, '2024-01-09')).toBeUndefined();
  });
});

describe('semimonthly periods', () => {
  const semimonthly = settings({ frequency: 'semimonthly' });

  it.each([
    ['2024-02-01', '2024-02-01', '2024-02-15'],
    ['2024-02-15', '2024-02-01', '2024-02-15'],
    ['2024-02-16', '2024-02-16', '2024-02-29'],
    ['2023-02-20', '2023-02-16', '2023-02-28'],
    ['2024-04-30', '2024-04-16', '2024-04-30'],
    ['2024-12-31', '2024-12-16', '2024-12-31'],
    ['2025-01-01', '2025-01-01', '2025-01-15'],
  ])('puts %s in %s..%s', (date, start, end) => {
    expect(periodContaining(semimonthly, date)).toEqual({ start, end });
  });

  it('starts periods on the 1st and the 16th only', () => {
    expect(periodStartingOn(semimonthly, '2024-02-16')).toEqual({ start: '2024-02-16', end: '2024-02-29' });
    expect(periodStartingOn(semimonthly, '2024-02-02')).toBeUndefined();
  });
});

describe('monthly periods', () => {
  it('are calendar months by default', () => {
    const monthly = settings({});

    expect(periodContaining(monthly, '2024-02-10')).toEqual({ start: '2024-02-01', end: '2024-02-29' });
    expect(periodContaining(monthly, '2023-02-28')).toEqual({ start: '2023-02-01', end: '2023-02-28' });
    expect(periodContaining(monthly, '2024-12-31')).toEqual({ start: '2024-12-01', end: '2024-12-31' });
    expect(periodStartingOn(monthly, '2024-03-01')).toEqual({ start: '2024-03-01', end: '2024-03-31' });
    expect(periodStartingOn(monthly, '2024-03-02')).toBeUndefined();
  });

  it('run from the start day to the day before it in the next month', () => {
    const monthly = settings({ month_start_day: 26 });

    expect(periodContaining(monthly, '2024-01-26')).toEqual({ start: '2024-01-26', end: '2024-02-25' });
    expect(periodContaining(monthly, '2024-02-25')).toEqual({ start: '2024-01-26', end: '2024-02-25' });
    expect(periodContaining(monthly, '2024-01-05')).toEqual({ start: '2023-12-26', end: '2024-01-25' });
    expect(periodContaining(monthly, '2024-12-27')).toEqual({ start: '2024-12-26', end: '2025-01-25' });
    expect(periodStartingOn(monthly, '2024-02-26')).toEqual({ start: '2024-02-26', end: '2024-03-25' });
  });

  it('handle the 28th around February in leap and common years', () => {
    const monthly = settings({ month_start_day: 28 });

    expect(periodContaining(monthly, '2024-02-28')).toEqual({ start: '2024-02-28', end: '2024-03-27' });
    expect(periodContaining(monthly, '2024-02-27')).toEqual({ start: '2024-01-28', end: '2024-02-27' });
    expect(periodContaining(monthly, '2024-02-29')).toEqual({ start: '2024-02-28', end: '2024-03-27' });
    expect(periodContaining(monthly, '2023-03-01')).toEqual({ start: '2023-02-28', end: '2023-03-27' });
  });
});

describe('periodsOverlapping', () => {
  it('lists every period touching the range, ascending, with no gaps', () => {
    expect(periodsOverlapping(settings({ frequency: 'semimonthly' }), '2024-01-10', '2024-02-16')).toEqual([
      { start: '2024-01-01', end: '2024-01-15' },
      { start: '2024-01-16', end: '2024-01-31' },
      { start: '2024-02-01', end: '2024-02-15' },
      { start: '2024-02-16', end: '2024-02-29' },
    ]);
    expect(periodsOverlapping(settings({ month_start_day: 15 }), '2024-12-20', '2025-01-14')).toEqual([
      { start: '2024-12-15', end: '2025-01-14' },
    ]);
    expect(periodsOverlapping(settings({ frequency: 'weekly' }), '2024-01-08', '2024-01-07')).toEqual([]);
  });

  it.each(['weekly', 'biweekly', 'semimonthly', 'monthly'] as const)('tiles two years of %s periods exactly', (frequency) => {
    const periods = periodsOverlapping(settings({ frequency, anchor_date: '2024-01-03', month_start_day: 9 }), '2023-06-01', '2025-06-01');
    for (const [index, period] of periods.entries()) {
      expect(period.start <= period.end).toBe(true);
      if (index > 0) expect(period.start).toBe(addDays(periods[index - 1]!.end, 1));
      expect(periodStartingOn(settings({ frequency, anchor_date: '2024-01-03', month_start_day: 9 }), period.start)).toEqual(period);
    }
    expect(periods[0]!.start <= '2023-06-01').toBe(true);
    expect(periods.at(-1)!.end >= '2025-06-01').toBe(true);
  });
});
