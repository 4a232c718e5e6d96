import { classifyDays, formatHours, hoursOf, totalsOf, type WorkedRecord, workedRecordOf } from '../../src/pay-rules/classify';
import { wallClockIn } from '../../src/time';
import {
  DEFAULT_PAY_PERIOD_SETTINGS,
  isThresholdHours,
  type OvertimeRules,
  parseStoredPayPeriodSettings,
  thresholdSeconds,
} from '../../src/pay-rules/settings';

const H = 3600;
const flsa: OvertimeRules = { daily_after_hours: null, daily_double_after_hours: null, weekly_after_hours: 40, seventh_day: false };
const california: OvertimeRules = { daily_after_hours: 8, daily_double_after_hours: 12, weekly_after_hours: 40, seventh_day: true };

describe('parseStoredPayPeriodSettings', () => {
  it('reads a missing row, bad JSON or a non-object as the defaults', () => {
    for (const stored of [undefined, '', 'not json', '[]', 'null', '42']) {
      expect(parseStoredPayPeriodSettings(stored)).toEqual(DEFAULT_PAY_PERIOD_SETTINGS);
    }
    expect(DEFAULT_PAY_PERIOD_SETTINGS).toEqual({
      frequency: 'monthly',
      anchor_date: '2024-01-01',
      month_start_day: 1,
      workweek_start: 'monday',
      overtime: { daily_after_hours: null, daily_double_after_hours: null, weekly_after_hours: 40, seventh_day: false },
    });
  });

  it('keeps every valid key and defaults each bad one on its own', () => {
    const stored = JSON.stringify({
      frequency: 'biweekly',
      anchor_date: '2023-02-30',
      month_start_day: 29,
      workweek_start: 'sunday',
      overtime: { daily_after_hours: 7.5, daily_double_after_hours: 'twelve', weekly_after_hours: null, seventh_day: 'yes' },
    });

    expect(parseStoredPayPeriodSettings(stored)).toEqual({
      frequency: 'biweekly',
      anchor_date: '2024-01-01',
      month_start_day: 1,
      workweek_start: 'sunday',
      overtime: { daily_after_hours: 7.5, daily_double_after_hours: null, weekly_after_hours: null, seventh_day: false },
    });
    expect(
      parseStoredPayPeriodSettings('{"month_start_day": 28, "overtime": {"weekly_after_hours": 0, "daily_after_hours": 8.123}}'),
    ).toEqual({
      ...DEFAULT_PAY_PERIOD_SETTINGS,
      month_start_day: 28,
    });
  });
});

describe('thresholds', () => {
  it('turns every 2-decimal hours value up to 200 into whole seconds, 36 per hundredth', () => {
    for (let hundredths = 1; hundredths <= 20_000; hundredths += 1) {
      const hours = Number((hundredths / 100).toFixed(2));
      expect(isThresholdHours(hours)).toBe(true);
      if (thresholdSeconds(hours) !== hundredths * 36) expect([hours, thresholdSeconds(hours)]).toEqual([hours, hundredths * 36]);
    }
  });

  it('accepts only numbers above 0 with at most 2 decimals', () => {
    for (const bad of [0, -1, 8.001, Number.NaN, Number.POSITIVE_INFINITY, '8', null]) expect(isThresholdHours(bad)).toBe(false);
  });
});

/** Whole seconds since the epoch, as the worked record's start and end. */
const at = (iso: string) => Math.floor(Date.parse(iso) / 1000);

describe('workedRecordOf', () => {
  it('dates a record by its in_time on its own wall clock and counts elapsed seconds', () => {
    expect(
      workedRecordOf({ in_time_utc: '2024-03-09 06:00:00', out_time_utc: '2024-03-09 14:00:00', timezone: 'America/Los_Angeles' }),
    ).toEqual({
      date: '2024-03-08',
      seconds: 8 * H,
      start: at('2024-03-09T06:00:00Z'),
      end: at('2024-03-09T14:00:00Z'),
    });
    // 22:00 PST to 06:00 PDT across the spring-forward night: 7 hours.
    expect(
      workedRecordOf({ in_time_utc: '2024-03-10 06:00:00', out_time_utc: '2024-03-10 13:00:00', timezone: 'America/Los_Angeles' }),
    ).toEqual({
      date: '2024-03-09',
      seconds: 7 * H,
      start: at('2024-03-10T06:00:00Z'),
      end: at('2024-03-10T13:00:00Z'),
    });
    expect(
      workedRecordOf({ in_time_utc: '2024-10-26T20:00:00Z', out_time_utc: '2024-10-27T05:00:00Z', timezone: 'Europe/Berlin' }),
    ).toEqual({
      date: '2024-10-26',
      seconds: 9 * H,
      start: at('2024-10-26T20:00:00Z'),
      end: at('2024-10-27T05:00:00Z'),
    });
    expect(workedRecordOf({ in_time_utc: '2024-06-30 23:30:00', out_time_utc: '2024-07-01 00:00:01', timezone: 'UTC' })).toEqual({
      date: '2024-06-30',
      seconds: 1801,
      start: at('2024-06-30T23:30:00Z'),
      end: at('2024-07-01T00:00:01Z'),
    });
  });

  it('finds the same local date as the wall clock at every instant around the changes of odd zones', () => {
    const zones = [
      'Australia/Lord_Howe',
      'Pacific/Chatham',
      'Asia/Kathmandu',
      'America/St_Johns',
      'Pacific/Apia',
      'America/Santiago',
      'Europe/Dublin',
    ];
    const mismatches: string[] = [];
    for (const timezone of zones) {
      for (let ms = Date.UTC(2011, 0, 1); ms < Date.UTC(2013, 0, 1); ms += 97 * 60_000) {
        const inTime = new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
        const { date } = workedRecordOf({ in_time_utc: inTime, out_time_utc: inTime, timezone });
        if (date !== wallClockIn(timezone, new Date(ms)).slice(0, 10)) mismatches.push(`${timezone} ${inTime} ${date}`);
      }
    }

    expect(mismatches).toEqual([]);
  });

  it('reads stored times with fractions and ISO times with offsets, and never counts negative time', () => {
    expect(
      workedRecordOf({ in_time_utc: '2024-06-03 09:00:00.750', out_time_utc: '2024-06-03T11:00:00+02:00', timezone: 'Europe/Berlin' }),
    ).toEqual({
      date: '2024-06-03',
      seconds: 0,
      start: at('2024-06-03T09:00:00.750Z'),
      end: at('2024-06-03T11:00:00+02:00'),
    });
    expect(workedRecordOf({ in_time_utc: '2024-06-03T09:00:00Z', out_time_utc: '2024-06-03 17:30:15', timezone: 'Asia/Kolkata' })).toEqual({
      date: '2024-06-03',
      seconds: 8 * H + 30 * 60 + 15,
      start: at('2024-06-03T09:00:00Z'),
      end: at('2024-06-03T17:30:15Z'),
    });
    expect(() => workedRecordOf({ in_time_utc: 'yesterday', out_time_utc: '2024-06-03 17:30:15', timezone: 'UTC' })).toThrow(RangeError);
  });
});

const day = (date: string, worked: number, regular: number, overtime: number, double_time: number, records: number) => ({
  date,
  worked,
  regular,
  overtime,
  double_time,
  records,
  // No meal break rule in these cases (pay-group-rules.test.ts has them).
  break_deducted: 0,
});

describe('classifyDays', () => {
  it('returns every date of the range, zeros included', () => {
    expect(classifyDays([], flsa, 'monday', { from: '2024-06-01', to: '2024-06-03' })).toEqual([
      day('2024-06-01', 0, 0, 0, 0, 0),
      day('2024-06-02', 0, 0, 0, 0, 0),
      day('2024-06-03', 0, 0, 0, 0, 0),
    ]);
  });

  it('applies the weekly 40 to regular hours in date order', () => {
    const records: WorkedRecord[] = ['2024-06-03', '2024-06-04', '2024-06-05', '2024-06-06', '2024-06-07'].map((date) => ({
      date,
      seconds: 9 * H,
    }));
    const days = classifyDays(records, flsa, 'monday', { from: '2024-06-03', to: '2024-06-09' });

    expect(days.slice(3, 5)).toEqual([day('2024-06-06', 9 * H, 9 * H, 0, 0, 1), day('2024-06-07', 9 * H, 4 * H, 5 * H, 0, 1)]);
    expect(totalsOf(days)).toEqual({ worked: 45 * H, regular: 40 * H, overtime: 5 * H, double_time: 0, break_deducted: 0 });
  });

  it('applies California daily 8/12, the seventh day and the weekly 40 on regular hours only', () => {
    const records: WorkedRecord[] = [
      { date: '2024-06-03', seconds: 13 * H },
      { date: '2024-06-04', seconds: 8 * H },
      { date: '2024-06-05', seconds: 8 * H },
      { date: '2024-06-06', seconds: 8 * H },
      { date: '2024-06-07', seconds: 8 * H },
      { date: '2024-06-08', seconds: 6 * H },
      { date: '2024-06-09', seconds: 5 * H },
      { date: '2024-06-09', seconds: 5 * H },
    ];
    const days = classifyDays(records, california, 'monday', { from: '2024-06-03', to: '2024-06-09' });

    expect(days).toEqual([
      day('2024-06-03', 13 * H, 8 * H, 4 * H, 1 * H, 1),
      day('2024-06-04', 8 * H, 8 * H, 0, 0, 1),
      day('2024-06-05', 8 * H, 8 * H, 0, 0, 1),
      day('2024-06-06', 8 * H, 8 * H, 0, 0, 1),
      day('2024-06-07', 8 * H, 8 * H, 0, 0, 1),
      day('2024-06-08', 6 * H, 0, 6 * H, 0, 1),
      day('2024-06-09', 10 * H, 0, 8 * H, 2 * H, 2),
    ]);
  });

  it('counts the earlier dates of the first workweek but does not return them', () => {
    const records: WorkedRecord[] = [
      { date: '2024-05-27', seconds: 10 * H },
      { date: '2024-05-28', seconds: 10 * H },
      { date: '2024-05-29', seconds: 10 * H },
      { date: '2024-05-30', seconds: 10 * H },
      { date: '2024-05-26', seconds: 10 * H },
      { date: '2024-05-31', seconds: 3 * H },
      { date: '2024-06-03', seconds: 3 * H },
    ];

    expect(classifyDays(records, flsa, 'monday', { from: '2024-05-31', to: '2024-06-03' })).toEqual([
      day('2024-05-31', 3 * H, 0, 3 * H, 0, 1),
      day('2024-06-01', 0, 0, 0, 0, 0),
      day('2024-06-02', 0, 0, 0, 0, 0),
      day('2024-06-03', 3 * H, 3 * H, 0, 0, 1),
    ]);
  });

  it('takes daily double time without a daily overtime rule, and decimal thresholds to the second', () => {
    const rules: OvertimeRules = { daily_after_hours: null, daily_double_after_hours: 10, weekly_after_hours: null, seventh_day: false };

    expect(classifyDays([{ date: '2024-06-03', seconds: 11 * H }], rules, 'monday', { from: '2024-06-03', to: '2024-06-03' })).toEqual([
      day('2024-06-03', 11 * H, 10 * H, 0, 1 * H, 1),
    ]);
    const decimal: OvertimeRules = { daily_after_hours: 7.5, daily_double_after_hours: 9.99, weekly_after_hours: null, seventh_day: false };
    expect(classifyDays([{ date: '2024-06-03', seconds: 11 * H }], decimal, 'monday', { from: '2024-06-03', to: '2024-06-03' })).toEqual([
      day('2024-06-03', 11 * H, 27_000, 35_964 - 27_000, 11 * H - 35_964, 1),
    ]);
  });
});

describe('hours', () => {
  it.each([
    [0, 0, '0.00'],
    [17, 0, '0.00'],
    [18, 0.01, '0.01'],
    [53, 0.01, '0.01'],
    [54, 0.02, '0.02'],
    [8 * H, 8, '8.00'],
    [8 * H + 1799, 8.5, '8.50'],
    [27_000, 7.5, '7.50'],
    [40 * H - 19, 39.99, '39.99'],
    [40 * H - 18, 40, '40.00'],
    [1_000 * H + 36, 1000.01, '1000.01'],
  ])('reads %i seconds as %d hours, %s', (seconds, hours, text) => {
    expect(hoursOf(seconds)).toBe(hours);
    expect(formatHours(seconds)).toBe(text);
  });
});
