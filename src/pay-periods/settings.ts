import type { Caller } from '../caller';
import { writeAudit } from '../audit/repository';
import type { Db } from '../db/connect';
import { type FieldError, ValidationError } from '../errors';
import {
  FREQUENCIES,
  type Frequency,
  type OvertimeRules,
  parseStoredPayPeriodSettings,
  type PayPeriodSettings,
  WEEKDAYS,
  type Weekday,
} from '../pay-rules/settings';
import { readSetting, writeSetting } from '../settings/repository';
import { isCalendarDate } from '../time';

/** The `settings` row that holds the pay-period settings (JSON of the API shape); missing = defaults. */
export const PAY_PERIODS_SETTING = 'pay_periods';

/** The settings in force: the stored row, each missing or unreadable key at its default. */
export async function readPayPeriodSettings(db: Db): Promise<PayPeriodSettings> {
  return parseStoredPayPeriodSettings(await readSetting(db, PAY_PERIODS_SETTING));
}

/** The stored JSON exactly (an export's fingerprint covers it); undefined while unset. */
export async function readStoredPayPeriodSettings(db: Db): Promise<string | undefined> {
  return readSetting(db, PAY_PERIODS_SETTING);
}

/** The API shape, keys in a fixed order. */
export function payPeriodSettingsResponse(settings: PayPeriodSettings): PayPeriodSettings {
  return {
    frequency: settings.frequency,
    anchor_date: settings.anchor_date,
    month_start_day: settings.month_start_day,
    workweek_start: settings.workweek_start,
    overtime: {
      daily_after_hours: settings.overtime.daily_after_hours,
      daily_double_after_hours: settings.overtime.daily_double_after_hours,
      weekly_after_hours: settings.overtime.weekly_after_hours,
      seventh_day: settings.overtime.seventh_day,
    },
  };
}

const TOP_KEYS = ['frequency', 'anchor_date', 'month_start_day', 'workweek_start', 'overtime'] as const;
const OVERTIME_KEYS = ['daily_after_hours', 'daily_double_after_hours', 'weekly_after_hours', 'seventh_day'] as const;
/** Hours of a threshold: at most a week (a larger one could never be reached). */
const MAX_HOURS = 168;

/**
 * A PUT body applied to the current settings: the sent keys replace theirs, omitted ones keep
 * their value (docs/pay-periods.md, "Settings"). Every invalid key is reported at once (422).
 */
export function applySettingsBody(current: PayPeriodSettings, body: Record<string, unknown>): PayPeriodSettings {
  const errors: FieldError[] = [];
  const next: PayPeriodSettings = { ...current, overtime: { ...current.overtime } };
  for (const key of Object.keys(body)) {
    if (!(TOP_KEYS as readonly string[]).includes(key)) errors.push({ field: key, message: 'is not a known field' });
  }
  if ('frequency' in body) {
    if (typeof body.frequency === 'string' && (FREQUENCIES as readonly string[]).includes(body.frequency))
      next.frequency = body.frequency as Frequency;
    else errors.push({ field: 'frequency', message: `must be one of ${FREQUENCIES.join(', ')}` });
  }
  if ('anchor_date' in body) {
    if (typeof body.anchor_date === 'string' && isCalendarDate(body.anchor_date) && body.anchor_date >= '1970-01-01')
      next.anchor_date = body.anchor_date;
    else errors.push({ field: 'anchor_date', message: 'must be a real date YYYY-MM-DD (1970 or later)' });
  }
  if ('month_start_day' in body) {
    const day = body.month_start_day;
    if (typeof day === 'number' && Number.isInteger(day) && day >= 1 && day <= 28) next.month_start_day = day;
    else errors.push({ field: 'month_start_day', message: 'must be a whole number from 1 to 28' });
  }
  if ('workweek_start' in body) {
    if (typeof body.workweek_start === 'string' && (WEEKDAYS as readonly string[]).includes(body.workweek_start))
      next.workweek_start = body.workweek_start as Weekday;
    else errors.push({ field: 'workweek_start', message: `must be one of ${WEEKDAYS.join(', ')}` });
  }
  if ('overtime' in body) {
    const overtime = body.overtime;
    if (overtime === null || typeof overtime !== 'object' || Array.isArray(overtime)) {
      errors.push({ field: 'overtime', message: 'must be an object' });
    } else {
      applyOvertime(next.overtime, overtime as Record<string, unknown>, errors);
    }
  }
  const { daily_after_hours: daily, daily_double_after_hours: double } = next.overtime;
  if (errors.length === 0 && daily !== null && double !== null && double < daily) {
    errors.push({
      field: 'overtime.daily_double_after_hours',
      message: `must be at least daily_after_hours (${daily})`,
    });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return next;
}

function applyOvertime(rules: OvertimeRules, sent: Record<string, unknown>, errors: FieldError[]): void {
  for (const key of Object.keys(sent)) {
    if (!(OVERTIME_KEYS as readonly string[]).includes(key)) errors.push({ field: `overtime.${key}`, message: 'is not a known field' });
  }
  for (const key of ['daily_after_hours', 'daily_double_after_hours', 'weekly_after_hours'] as const) {
    if (!(key in sent)) continue;
    const value = sent[key];
    if (value === null || isHours(value)) rules[key] = value;
    else
      errors.push({
        field: `overtime.${key}`,
        message: `must be null or a number of hours above 0, at most ${MAX_HOURS}, with at most 2 decimals`,
      });
  }
  if ('seventh_day' in sent) {
    if (typeof sent.seventh_day === 'boolean') rules.seventh_day = sent.seventh_day;
    else errors.push({ field: 'overtime.seventh_day', message: 'must be true or false' });
  }
}

function isHours(value: unknown): value is number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_HOURS) return false;
  const hundredths = value * 100;
  return Math.abs(hundredths - Math.round(hundredths)) < 1e-6;
}

/** Stores new settings (one row) with an audit row naming what changed; in the write's transaction. */
export async function savePayPeriodSettings(
  trx: Db,
  before: PayPeriodSettings,
  after: PayPeriodSettings,
  context: { caller: Caller; now: Date; requestId: string },
): Promise<void> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of ['frequency', 'anchor_date', 'month_start_day', 'workweek_start'] as const) {
    if (before[key] !== after[key]) changes[key] = { from: before[key], to: after[key] };
  }
  for (const key of OVERTIME_KEYS) {
    if (before.overtime[key] !== after.overtime[key]) changes[`overtime.${key}`] = { from: before.overtime[key], to: after.overtime[key] };
  }
  // A PUT that changes nothing writes nothing (the stored row stays as it was, defaults unstored).
  if (Object.keys(changes).length === 0) return;
  await writeSetting(trx, PAY_PERIODS_SETTING, JSON.stringify(payPeriodSettingsResponse(after)), context.now);
  await writeAudit(
    trx,
    { action: 'pay_periods.settings', entityType: 'settings', entityId: 0, fields: Object.keys(changes), changes },
    context,
  );
}
