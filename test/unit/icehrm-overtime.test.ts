import { carryIcehrmOvertime, ICEHRM_OVERTIME_SETTINGS as NAMES } from '../../src/import/overtime-settings';

const carry = (values: Record<string, string | null>) => carryIcehrmOvertime(new Map(Object.entries(values)));

describe("carrying IceHrm's overtime settings into the pay-period settings", () => {
  it("maps IceHrm's defaults (8, 12, the basic calculator, daily, weeks from Sunday) to the daily rules alone", () => {
    const { carried, notes } = carry({
      [NAMES.overtimeStart]: '8',
      [NAMES.doubleTimeStart]: '12',
      [NAMES.calculator]: 'BasicOvertimeCalculator',
      [NAMES.workWeekStart]: '0',
      [NAMES.period]: 'Daily',
    });

    expect(carried).toEqual({
      workweek_start: 'sunday',
      overtime: { daily_after_hours: 8, daily_double_after_hours: 12, weekly_after_hours: null, seventh_day: false },
    });
    expect(notes).toEqual([
      "IceHrm's overtime calculators have no weekly rule: weekly_after_hours null (set it with PUT /pay-periods/settings, e.g. 40 for the FLSA)",
    ]);
  });

  it('turns the California calculator into the seventh-day rule, saying how the two differ', () => {
    const { carried, notes } = carry({
      [NAMES.overtimeStart]: '8',
      [NAMES.doubleTimeStart]: '12',
      [NAMES.calculator]: 'CaliforniaOvertimeCalculator',
    });

    expect(carried.overtime.seventh_day).toBe(true);
    expect(carried.workweek_start).toBeUndefined();
    expect(notes[1]).toMatch(
      /^IceHrm's CaliforniaOvertimeCalculator: seventh_day true\. .*first 8 hours are overtime and the rest double time/,
    );
  });

  it('reads 0, missing and non-numeric hours as no rule, as IceHrm does, and double time only above a non-zero overtime start', () => {
    expect(carry({}).carried.overtime).toEqual({
      daily_after_hours: null,
      daily_double_after_hours: null,
      weekly_after_hours: null,
      seventh_day: false,
    });
    const noOvertime = carry({ [NAMES.overtimeStart]: '0', [NAMES.doubleTimeStart]: '12' });
    expect(noOvertime.carried.overtime.daily_double_after_hours).toBeNull();
    expect(noOvertime.notes[0]).toBe(
      'IceHrm counts no overtime ("Attendance: Overtime Start Hour" 0) and so no double time either: "Attendance: Double time Start Hour" 12 is not carried',
    );
    const notAbove = carry({ [NAMES.overtimeStart]: '8', [NAMES.doubleTimeStart]: '8' });
    expect(notAbove.carried.overtime).toMatchObject({ daily_after_hours: 8, daily_double_after_hours: null });
    expect(notAbove.notes[0]).toMatch(/is not above the overtime start 8, so IceHrm counts no double time/);
    const text = carry({ [NAMES.overtimeStart]: 'eight' });
    expect(text.carried.overtime.daily_after_hours).toBeNull();
    expect(text.notes[0]).toBe(
      'IceHrm\'s "Attendance: Overtime Start Hour" is "eight", not a number: read as 0 (no such rule), as IceHrm reads it',
    );
  });

  it('rounds hours to 2 decimals, saying so', () => {
    const { carried, notes } = carry({ [NAMES.overtimeStart]: '7.625', [NAMES.doubleTimeStart]: '10' });

    expect(carried.overtime).toMatchObject({ daily_after_hours: 7.63, daily_double_after_hours: 10 });
    expect(notes[0]).toBe('IceHrm\'s "Attendance: Overtime Start Hour" 7.625 is rounded to 7.63 hours (2 decimals)');
  });

  it('maps the weekly calculation period to a weekly rule of 5 x the overtime start and no daily rule', () => {
    const { carried, notes } = carry({
      [NAMES.overtimeStart]: '8',
      [NAMES.doubleTimeStart]: '12',
      [NAMES.period]: 'Weekly',
      [NAMES.workWeekStart]: '1',
    });

    expect(carried).toEqual({
      workweek_start: 'monday',
      overtime: { daily_after_hours: null, daily_double_after_hours: null, weekly_after_hours: 40, seventh_day: false },
    });
    expect(notes).toEqual([
      'IceHrm calculates overtime per week ("Attendance: Overtime Calculation Period" Weekly): weekly_after_hours 40 (5 x "Attendance: Overtime Start Hour"), no daily rule',
      'IceHrm\'s "Attendance: Double time Start Hour" 12 has no weekly counterpart here: not carried',
      'IceHrm\'s weekly sheets count Sunday to Saturday weeks whatever "Attendance: Work Week Start Day" says: workweek_start monday is kept from that setting',
    ]);
  });

  it('names a calculator, a period or a work-week day it does not know, and carries the rest', () => {
    const { carried, notes } = carry({
      [NAMES.overtimeStart]: '8',
      [NAMES.calculator]: 'AlfaOvertimeCalculator',
      [NAMES.period]: 'Monthly',
      [NAMES.workWeekStart]: '9',
    });

    expect(carried).toEqual({
      overtime: { daily_after_hours: 8, daily_double_after_hours: null, weekly_after_hours: null, seventh_day: false },
    });
    expect(notes).toEqual([
      'IceHrm\'s "Attendance: Work Week Start Day" is "9", not a day 0-6: workweek_start is left as it is',
      'IceHrm\'s "Attendance: Overtime Calculation Period" "Monthly" is not known here: carried as Daily',
      "IceHrm's overtime calculators have no weekly rule: weekly_after_hours null (set it with PUT /pay-periods/settings, e.g. 40 for the FLSA)",
      'IceHrm\'s "Attendance: Overtime Calculation Class" "AlfaOvertimeCalculator" is not known here: carried as BasicOvertimeCalculator (the daily rule alone)',
    ]);
  });
});
