// Pay-period settings: their shape, defaults and the lenient reading of the stored row
// (docs/pay-periods.md, "Settings"). Validation with 422s belongs to the settings endpoint.
import { isCalendarDate } from '../time';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const FREQUENCIES = ['weekly', 'biweekly', 'semimonthly', 'monthly'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

export interface OvertimeRules {
  daily_after_hours: number | null;
  daily_double_after_hours: number | null;
  weekly_after_hours: number | null;
  seventh_day: boolean;
}

export interface PayPeriodSettings {
  frequency: Frequency;
  anchor_date: string;
  month_start_day: number;
  workweek_start: Weekday;
  overtime: OvertimeRules;
}

export const DEFAULT_PAY_PERIOD_SETTINGS: PayPeriodSettings = Object.freeze({
  frequency: 'monthly',
  anchor_date: '2024-01-01',
  month_start_day: 1,
  workweek_start: 'monday',
  overtime: Object.freeze({ daily_after_hours: null, daily_double_after_hours: null, weekly_after_hours: 40, seventh_day: false }),
}) as PayPeriodSettings;

/** An hours setting as the API accepts it: a finite number > 0 with at most 2 decimals. */
export function isThresholdHours(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 && Math.abs(value * 100 - Math.round(value * 100)) < 1e-6;
}

/** An hours setting as whole seconds (settings have at most 2 decimals: 0.01 h is 36 s). */
export function thresholdSeconds(hours: number): number {
  return Math.round(hours * 3600);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pick<T>(value: unknown, valid: (value: unknown) => value is T, fallback: T): T {
  return valid(value) ? value : fallback;
}

const isFrequency = (value: unknown): value is Frequency => FREQUENCIES.includes(value as Frequency);
const isWeekday = (value: unknown): value is Weekday => WEEKDAYS.includes(value as Weekday);
const isDate = (value: unknown): value is string => typeof value === 'string' && isCalendarDate(value);
const isMonthStartDay = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 28;
const isThresholdOrNull = (value: unknown): value is number | null => value === null || isThresholdHours(value);
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';

/**
 * The settings stored as JSON in the `pay_periods` settings row. A missing row, bad JSON or a bad
 * key reads as the default for that key, so a hand-edited row never stops timesheets or exports.
 */
export function parseStoredPayPeriodSettings(json: string | undefined): PayPeriodSettings {
  let stored: unknown;
  try {
    stored = json === undefined ? undefined : JSON.parse(json);
  } catch {
    stored = undefined;
  }
  const value = isRecord(stored) ? stored : {};
  const overtime = isRecord(value.overtime) ? value.overtime : {};
  const defaults = DEFAULT_PAY_PERIOD_SETTINGS;
  return {
    frequency: pick(value.frequency, isFrequency, defaults.frequency),
    anchor_date: pick(value.anchor_date, isDate, defaults.anchor_date),
    month_start_day: pick(value.month_start_day, isMonthStartDay, defaults.month_start_day),
    workweek_start: pick(value.workweek_start, isWeekday, defaults.workweek_start),
    overtime: {
      daily_after_hours: pick(overtime.daily_after_hours, isThresholdOrNull, defaults.overtime.daily_after_hours),
      daily_double_after_hours: pick(overtime.daily_double_after_hours, isThresholdOrNull, defaults.overtime.daily_double_after_hours),
      weekly_after_hours: pick(overtime.weekly_after_hours, isThresholdOrNull, defaults.overtime.weekly_after_hours),
      seventh_day: pick(overtime.seventh_day, isBoolean, defaults.overtime.seventh_day),
    },
  };
}
