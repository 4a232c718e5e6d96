// Pay-period settings: their shape, defaults, limits and the lenient reading of the stored row
// (docs/pay-periods.md, "Settings"). The settings endpoint's schema (pay-periods/schemas.ts)
// checks a PUT against the same limits, with 422s.
import { dayNumber, isCalendarDate } from '../time';

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

/** The limits of the settings, for the PUT's schema and the stored row's reader alike. */
export const MONTH_START_DAYS = { min: 1, max: 28 } as const;
/** Hours of a threshold: at most a week (a larger one could never be reached). */
export const MAX_THRESHOLD_HOURS = 168;
/** The earliest anchor date of weekly and biweekly periods. */
export const EARLIEST_ANCHOR_DATE = '1970-01-01';

/**
 * A finite number > 0 with at most 2 decimals: exactly a hundredth's multiple as a double, so
 * 1e-9 (which a tolerance of rounding errors let through) is not one.
 */
export function isThresholdHours(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 && Math.round(value * 100) / 100 === value;
}

/** An hours setting as the API accepts it: isThresholdHours, at most MAX_THRESHOLD_HOURS. */
export function isSettingHours(value: unknown): value is number {
  return isThresholdHours(value) && value <= MAX_THRESHOLD_HOURS;
}

/** An anchor date as the API accepts it: a real date, EARLIEST_ANCHOR_DATE or later. */
export function isAnchorDate(value: unknown): value is string {
  return typeof value === 'string' && isCalendarDate(value) && dayNumber(value) >= dayNumber(EARLIEST_ANCHOR_DATE);
}

/** A month start day as the API accepts it. */
export function isMonthStartDay(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= MONTH_START_DAYS.min && (value as number) <= MONTH_START_DAYS.max;
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
const isThresholdOrNull = (value: unknown): value is number | null => value === null || isSettingHours(value);
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
    anchor_date: pick(value.anchor_date, isAnchorDate, defaults.anchor_date),
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

/** The rounding steps a group may round punches to (CONTRACT 6.5, `rounding`). */
export const ROUNDING_MINUTES = [5, 6, 10, 15, 30] as const;
export type RoundingMinutes = (typeof ROUNDING_MINUTES)[number];

/** A meal break deducted from a long day without a break of its length (CONTRACT 6.5, `meal_break`). */
export interface MealBreak {
  /** A date's worked hours must exceed these for the deduction. */
  after_hours: number;
  /** The break's length, deducted; also the shortest gap between records that counts as taken. */
  minutes: number;
}

/** The limits of a meal break: a day's hours, and a break of up to 4 hours. */
export const MEAL_BREAK_LIMITS = { maxAfterHours: 24, minMinutes: 1, maxMinutes: 240 } as const;

/** The rules of one pay group: the period layout and overtime of 6.3, and the rules 6.5 adds. */
export interface GroupRules extends PayPeriodSettings {
  exempt: boolean;
  meal_break: MealBreak | null;
  rounding: { minutes: RoundingMinutes } | null;
}

export const DEFAULT_GROUP_RULES: GroupRules = Object.freeze({
  ...DEFAULT_PAY_PERIOD_SETTINGS,
  exempt: false,
  meal_break: null,
  rounding: null,
}) as GroupRules;
