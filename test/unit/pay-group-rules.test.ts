import {
  classifyDays,
  mealBreakSeconds,
  roundedOnWallClock,
  roundedWorkedRecordOf,
  sheetClassifier,
  totalsOf,
  type WorkedRecord,
} from '../../src/pay-rules/classify';
import type { OvertimeRules } from '../../src/pay-rules/settings';

// The rules a pay group adds (CONTRACT 6.5; docs/pay-periods.md, "A group's rules"): exempt, meal
// break and rounding, as worked examples. docs/overtime-vectors.json holds more of them.

const at = (utc: string) => Date.parse(`${utc}Z`) / 1000;
const CALIFORNIA: OvertimeRules = { daily_after_hours: 8, daily_double_after_hours: 12, weekly_after_hours: 40, seventh_day: true };
const WEEK = { from: '2024-06-03', to: '2024-06-09' };
const timed = (from: string, to: string): WorkedRecord => ({
  date: from.slice(0, 10),
  seconds: at(to) - at(from),
  start: at(from),
  end: at(to),
});

describe('roundedOnWallClock', () => {
  it.each([
    ['2024-06-03T08:07:29', 15, 'UTC', '2024-06-03T08:00:00'],
    ['2024-06-03T08:07:30', 15, 'UTC', '2024-06-03T08:15:00'],
    ['2024-06-03T23:55:00', 10, 'UTC', '2024-06-04T00:00:00'],
    ['2024-06-03T08:03:00', 6, 'UTC', '2024-06-03T08:06:00'],
    ['2024-06-03T08:14:59', 30, 'UTC', '2024-06-03T08:00:00'],
    // Kathmandu is +05:45: 03:13 UTC is 08:58 there, 09:00 is 03:15 UTC (UTC's multiple would be 03:10).
    ['2024-06-03T03:13:00', 10, 'Asia/Kathmandu', '2024-06-03T03:15:00'],
    // Adelaide is +09:30 in June: 22:47 UTC is 08:17 there, 08:15 is 22:45 UTC.
    ['2024-06-02T22:47:00', 5, 'Australia/Adelaide', '2024-06-02T22:45:00'],
  ] as const)('%s to %i minutes on %s is %s', (utc, minutes, zone, expected) => {
    expect(roundedOnWallClock(at(utc), zone, minutes)).toBe(at(expected));
  });

  it('never makes a record negative, and keeps its stored date', () => {
    const record = roundedWorkedRecordOf(
      { in_time_utc: '2024-06-03 23:56:00', out_time_utc: '2024-06-04 00:01:00', timezone: 'UTC' },
      { minutes: 30 },
    );
    expect(record).toEqual({ date: '2024-06-03', seconds: 0, start: at('2024-06-04T00:00:00'), end: at('2024-06-04T00:00:00') });
  });
});

describe('mealBreakSeconds', () => {
  const rule = { after_hours: 6, minutes: 30 };

  it('deducts from a long day without a gap, and not from one with a gap of the break', () => {
    expect(mealBreakSeconds([timed('2024-06-03T08:00:00', '2024-06-03T17:00:00')], 9 * 3600, rule)).toBe(1800);
    const split = [timed('2024-06-03T12:30:00', '2024-06-03T17:00:00'), timed('2024-06-03T08:00:00', '2024-06-03T12:00:00')];
    expect(mealBreakSeconds(split, 8.5 * 3600, rule)).toBe(0);
  });

  it('measures a gap from the latest end before it, so overlapping records hide no break', () => {
    const records = [
      timed('2024-06-03T08:00:00', '2024-06-03T15:00:00'),
      timed('2024-06-03T09:00:00', '2024-06-03T10:00:00'),
      timed('2024-06-03T10:20:00', '2024-06-03T16:00:00'),
    ];
    expect(mealBreakSeconds(records, 13.7 * 3600, rule)).toBe(1800);
  });

  it('needs the hours exceeded, and deducts no more than was worked', () => {
    expect(mealBreakSeconds([timed('2024-06-03T08:00:00', '2024-06-03T14:00:00')], 6 * 3600, rule)).toBe(0);
    expect(mealBreakSeconds([timed('2024-06-03T08:00:00', '2024-06-03T09:30:00')], 5400, { after_hours: 1, minutes: 240 })).toBe(5400);
  });
});

describe('a group’s rules in the classification', () => {
  it('exempt: seven 13-hour days under California rules are all regular', () => {
    const records = ['03', '04', '05', '06', '07', '08', '09'].map((day) => timed(`2024-06-${day}T06:00:00`, `2024-06-${day}T19:00:00`));
    const days = classifyDays(records, CALIFORNIA, 'monday', WEEK, { exempt: true, meal_break: null, rounding: null });
    expect(totalsOf(days)).toEqual({ worked: 91 * 3600, regular: 91 * 3600, overtime: 0, double_time: 0, break_deducted: 0 });
  });

  it('meal break: deducted before the rules, so a 12.5-hour day reaches no double time', () => {
    const days = classifyDays([timed('2024-06-03T06:00:00', '2024-06-03T18:30:00')], CALIFORNIA, 'monday', WEEK, {
      exempt: false,
      meal_break: { after_hours: 6, minutes: 30 },
      rounding: null,
    });
    expect(days[0]).toEqual({
      date: '2024-06-03',
      worked: 12 * 3600,
      regular: 8 * 3600,
      overtime: 4 * 3600,
      double_time: 0,
      records: 1,
      break_deducted: 1800,
    });
  });

  it('rounding: the same stored punches classify by rounded times, and without rounding by their own', () => {
    const stored = [{ in_time_utc: '2024-06-03 08:07:30', out_time_utc: '2024-06-03 16:07:29', timezone: 'UTC' }];
    const rounded = sheetClassifier(CALIFORNIA, 'monday', WEEK, { exempt: false, meal_break: null, rounding: { minutes: 15 } })(stored);
    const exact = sheetClassifier(CALIFORNIA, 'monday', WEEK)(stored);
    expect(rounded.days[0]?.worked).toBe(7.75 * 3600);
    expect(exact.days[0]?.worked).toBe(8 * 3600 - 1);
    expect(stored[0]).toEqual({ in_time_utc: '2024-06-03 08:07:30', out_time_utc: '2024-06-03 16:07:29', timezone: 'UTC' });
  });
});
