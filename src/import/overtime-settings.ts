import { DEFAULT_GROUP_ID, findDefaultGroup, writeGroupSettings } from '../pay-groups/repository';
import { type OvertimeRules, parseStoredPayPeriodSettings, type Weekday } from '../pay-rules/settings';
import type { ImportContext } from './report';

// IceHrm's overtime settings carried into the pay-period settings (docs/import.md, "Overtime
// settings"). What IceHrm does with them (its attendance module, facts only):
// - `Attendance: Overtime Start Hour` (default 8) and `Attendance: Double time Start Hour`
//   (default 12): per day, hours past the first are overtime, past the second double time; 0 (or
//   anything not numeric) means none, and double time counts only above a non-zero overtime start.
// - `Attendance: Overtime Calculation Class`: BasicOvertimeCalculator (the daily rule alone) or
//   CaliforniaOvertimeCalculator (also the seventh consecutive working day of a workweek, whose
//   overtime hours become double time).
// - `Attendance: Work Week Start Day`: 0 (Sunday) to 6, where the California calculator's weeks start.
// - `Attendance: Overtime Calculation Period`: Daily (the calculators) or Weekly (attendance sheets
//   count regular hours up to 5 x the overtime start hour per Sunday-Saturday week, the rest overtime).

/** The IceHrm settings read, by name. */
export const ICEHRM_OVERTIME_SETTINGS = {
  overtimeStart: 'Attendance: Overtime Start Hour',
  doubleTimeStart: 'Attendance: Double time Start Hour',
  calculator: 'Attendance: Overtime Calculation Class',
  workWeekStart: 'Attendance: Work Week Start Day',
  period: 'Attendance: Overtime Calculation Period',
} as const;

/** IceHrm's day numbers (PHP's date('w')): 0 is Sunday. */
const ICEHRM_WEEKDAYS: readonly Weekday[] = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** The part of the pay-period settings the import sets; the rest (the periods' layout) stays as it is. */
export interface CarriedOvertime {
  workweek_start?: Weekday;
  overtime: OvertimeRules;
}

/** IceHrm's number of hours (`is_numeric`, else 0), to 2 decimals as the settings take them. */
function hoursOf(value: string | null | undefined, name: string, notes: string[]): number {
  const text = (value ?? '').trim();
  const number = /^[+-]?(\d+\.?\d*|\.\d+)$/.test(text) ? Number(text) : NaN;
  if (Number.isNaN(number)) {
    if (text !== '') notes.push(`IceHrm's ${quote(name)} is ${quote(text)}, not a number: read as 0 (no such rule), as IceHrm reads it`);
    return 0;
  }
  const rounded = Math.round(number * 100) / 100;
  if (rounded !== number && number > 0) notes.push(`IceHrm's ${quote(name)} ${text} is rounded to ${rounded} hours (2 decimals)`);
  return rounded;
}

const quote = (text: string) => JSON.stringify(text);

/**
 * IceHrm's settings (name -> value; a name missing from the map is missing in IceHrm) as the
 * overtime rules here, with a note for each thing carried differently or not at all.
 */
export function carryIcehrmOvertime(values: ReadonlyMap<string, string | null>): { carried: CarriedOvertime; notes: string[] } {
  const notes: string[] = [];
  const names = ICEHRM_OVERTIME_SETTINGS;
  const overtimeStart = hoursOf(values.get(names.overtimeStart), names.overtimeStart, notes);
  const doubleStart = hoursOf(values.get(names.doubleTimeStart), names.doubleTimeStart, notes);
  const calculator = (values.get(names.calculator) ?? 'BasicOvertimeCalculator').trim();
  const period = (values.get(names.period) ?? 'Daily').trim();
  const carried: CarriedOvertime = {
    overtime: { daily_after_hours: null, daily_double_after_hours: null, weekly_after_hours: null, seventh_day: false },
  };

  const workWeek = values.get(names.workWeekStart);
  if (workWeek !== undefined && workWeek !== null && /^[0-6]$/.test(workWeek.trim())) {
    carried.workweek_start = ICEHRM_WEEKDAYS[Number(workWeek.trim())];
  } else if (workWeek !== undefined) {
    notes.push(
      `IceHrm's ${quote(names.workWeekStart)} is ${quote(String(workWeek ?? ''))}, not a day 0-6: workweek_start is left as it is`,
    );
  }

  if (period === 'Weekly') {
    // IceHrm's weekly sheets: no daily rule, regular hours up to 5 x the overtime start per week.
    carried.overtime.weekly_after_hours = overtimeStart > 0 ? Math.round(overtimeStart * 5 * 100) / 100 : null;
    notes.push(
      `IceHrm calculates overtime per week (${quote(names.period)} Weekly): weekly_after_hours ${carried.overtime.weekly_after_hours ?? 'null'} (5 x ${quote(names.overtimeStart)}), no daily rule`,
    );
    if (doubleStart > 0) notes.push(`IceHrm's ${quote(names.doubleTimeStart)} ${doubleStart} has no weekly counterpart here: not carried`);
    if (carried.workweek_start !== undefined && carried.workweek_start !== 'sunday') {
      notes.push(
        `IceHrm's weekly sheets count Sunday to Saturday weeks whatever ${quote(names.workWeekStart)} says: workweek_start ${carried.workweek_start} is kept from that setting`,
      );
    }
  } else {
    if (period !== 'Daily') notes.push(`IceHrm's ${quote(names.period)} ${quote(period)} is not known here: carried as Daily`);
    if (overtimeStart > 0) {
      carried.overtime.daily_after_hours = overtimeStart;
      if (doubleStart > overtimeStart) carried.overtime.daily_double_after_hours = doubleStart;
      else if (doubleStart > 0) {
        notes.push(
          `IceHrm's ${quote(names.doubleTimeStart)} ${doubleStart} is not above the overtime start ${overtimeStart}, so IceHrm counts no double time: daily_double_after_hours null`,
        );
      }
    } else if (doubleStart > 0) {
      notes.push(
        `IceHrm counts no overtime (${quote(names.overtimeStart)} 0) and so no double time either: ${quote(names.doubleTimeStart)} ${doubleStart} is not carried`,
      );
    }
    notes.push(
      `IceHrm's overtime calculators have no weekly rule: weekly_after_hours null (set it with PUT /pay-periods/settings, e.g. 40 for the FLSA)`,
    );
  }

  if (calculator === 'CaliforniaOvertimeCalculator') {
    carried.overtime.seventh_day = true;
    notes.push(
      "IceHrm's CaliforniaOvertimeCalculator: seventh_day true. IceHrm's seventh consecutive working day keeps its first hours regular and turns only its overtime into double time; here that day's first 8 hours are overtime and the rest double time (docs/pay-periods.md)",
    );
  } else if (calculator !== 'BasicOvertimeCalculator') {
    notes.push(
      `IceHrm's ${quote(names.calculator)} ${quote(calculator)} is not known here: carried as BasicOvertimeCalculator (the daily rule alone)`,
    );
  }
  return { carried, notes };
}

/**
 * Carries IceHrm's overtime settings (undefined: IceHrm's database has no Settings table) into
 * the pay-period settings (group 1's, docs/pay-periods.md "Pay groups"), keeping the keys it does
 * not set; reported as the table
 * `pay_period_settings` (one row) with notes.
 */
export async function importOvertimeSettings(
  context: ImportContext,
  values: ReadonlyMap<string, string | null> | undefined,
): Promise<void> {
  const { report } = context;
  if (values === undefined) {
    report.notes.push("IceHrm's database has no Settings table: the pay-period settings are left as they are");
    return;
  }
  const counts = report.counts('pay_period_settings');
  counts.read = 1;
  const { carried, notes } = carryIcehrmOvertime(values);
  report.notes.push(...notes);
  const stored = (await findDefaultGroup(context.db))?.storedSettings ?? undefined;
  // Missing or unreadable keys read as their defaults (docs/pay-periods.md); the row is written whole.
  const current = parseStoredPayPeriodSettings(stored);
  const next = { ...current, workweek_start: carried.workweek_start ?? current.workweek_start, overtime: carried.overtime };
  if (stored !== undefined && JSON.stringify(current) === JSON.stringify(next)) {
    counts.unchanged++;
  } else {
    if (stored === undefined) counts.added++;
    else counts.updated++;
    if (!context.dryRun) await writeGroupSettings(context.db, DEFAULT_GROUP_ID, next, context.now);
  }
  context.progress.tableDone('pay_period_settings', counts);
}
