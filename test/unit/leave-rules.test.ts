import {
  DEFAULT_LEAVE_SETTINGS,
  defaultLeaveDates,
  fullDayHours,
  type LeaveDayInput,
  leaveDayHours,
  leaveHoursOf,
  weekdayNameOf,
} from '../../src/leave-rules/hours';

// The hours of leave and holidays (docs/leave.md, "Hours"), in worked examples. December 2026:
// Monday the 7th to Friday the 11th, Saturday the 12th, Friday the 25th is Christmas.

const settings = DEFAULT_LEAVE_SETTINGS;
const none = new Map<string, number>();
const approved = (date: string, portion: LeaveDayInput['portion'], hours: number | null = null, code = 'PTO'): LeaveDayInput => ({
  date,
  portion,
  hours,
  status: 'approved',
  paid: true,
  code,
});

describe('weekdays and default days', () => {
  it('names the weekday of a date', () => {
    expect(['2026-12-06', '2026-12-07', '2026-12-12'].map(weekdayNameOf)).toEqual(['sunday', 'monday', 'saturday']);
  });

  it('takes the working days of the work week without the holidays, unless the type includes them', () => {
    const week = { start: '2026-12-19', end: '2026-12-27', settings, planned: none, holidayDates: new Set(['2026-12-25']) };
    expect(defaultLeaveDates({ ...week, includeHolidays: false })).toEqual(['2026-12-21', '2026-12-22', '2026-12-23', '2026-12-24']);
    expect(defaultLeaveDates({ ...week, includeHolidays: true })).toEqual([
      '2026-12-21',
      '2026-12-22',
      '2026-12-23',
      '2026-12-24',
      '2026-12-25',
    ]);
  });

  it('a day with a published shift is a workday, whatever the work week says', () => {
    const planned = new Map([['2026-12-12', 6]]);
    expect(
      defaultLeaveDates({ start: '2026-12-11', end: '2026-12-13', settings, planned, holidayDates: new Set(), includeHolidays: false }),
    ).toEqual(['2026-12-11', '2026-12-12']);
  });
});

describe('the hours of a day of leave', () => {
  it("is standard_day_hours on a working day, 0 on a day off, the shifts' planned hours when there are any", () => {
    expect(fullDayHours('2026-12-07', settings, none)).toBe(8);
    expect(fullDayHours('2026-12-12', settings, none)).toBe(0);
    expect(fullDayHours('2026-12-12', settings, new Map([['2026-12-12', 6]]))).toBe(6);
    expect(fullDayHours('2026-12-07', { work_week: ['monday'], standard_day_hours: 7.5 }, none)).toBe(7.5);
  });

  it('halves am and pm, and takes hours as given', () => {
    expect(leaveDayHours({ date: '2026-12-07', portion: 'am', hours: null }, settings, none)).toBe(4);
    expect(leaveDayHours({ date: '2026-12-07', portion: 'pm', hours: null }, settings, new Map([['2026-12-07', 10]]))).toBe(5);
    expect(leaveDayHours({ date: '2026-12-12', portion: 'hours', hours: 2.5 }, settings, none)).toBe(2.5);
  });
});

describe('leaveHoursOf: a worked week', () => {
  it('counts approved paid leave under its code, paid holidays to those not on leave, and nothing else', () => {
    const days = leaveHoursOf({
      settings,
      planned: none,
      leaveDays: [
        approved('2026-12-21', 'full'),
        approved('2026-12-22', 'am', null, 'VAC'),
        approved('2026-12-23', 'hours', 3),
        // Pending: no hours yet, but the employee is on leave that day.
        { ...approved('2026-12-24', 'full'), status: 'pending' },
        // Unpaid: no hours.
        { ...approved('2026-12-28', 'full'), paid: false, code: null },
        // A Saturday: a full day off there is worth nothing.
        approved('2026-12-26', 'full'),
      ],
      holidays: [
        { date: '2026-12-24', portion: 'half', paid: true },
        { date: '2026-12-25', portion: 'full', paid: true },
        { date: '2026-12-25', portion: 'full', paid: true },
        { date: '2026-12-27', portion: 'full', paid: true },
        { date: '2026-12-31', portion: 'half', paid: true },
        { date: '2027-01-01', portion: 'full', paid: false },
      ],
    });
    expect(days).toEqual([
      { date: '2026-12-21', leave_hours: 8, holiday_hours: 0, code: 'PTO' },
      { date: '2026-12-22', leave_hours: 4, holiday_hours: 0, code: 'VAC' },
      { date: '2026-12-23', leave_hours: 3, holiday_hours: 0, code: 'PTO' },
      // 24th: on (pending) leave, so the half holiday pays nothing; 25th: two holidays pay the day
      // once; 27th is a Sunday; 1 January is unpaid.
      { date: '2026-12-25', leave_hours: 0, holiday_hours: 8, code: null },
      { date: '2026-12-31', leave_hours: 0, holiday_hours: 4, code: null },
    ]);
  });

  it('is empty without leave or holidays', () => {
    expect(leaveHoursOf({ settings, planned: none, leaveDays: [], holidays: [] })).toEqual([]);
  });
});
