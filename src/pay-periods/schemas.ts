import { z } from 'zod';
import { idSchema } from '../http/field-schemas';
import { paginationFields } from '../http/pagination';
import { booleanQuery } from '../http/query-boolean';
import { MAX_PERIOD_RANGE_DAYS } from '../pay-rules/periods';
import {
  EARLIEST_ANCHOR_DATE,
  FREQUENCIES,
  isAnchorDate,
  isSettingHours,
  MAX_THRESHOLD_HOURS,
  MONTH_START_DAYS,
  WEEKDAYS,
} from '../pay-rules/settings';
import { dayNumber, isCalendarDate } from '../time';

/** A date from 0001-01-01 to 9999-12-31 (isCalendarDate allows no other year). */
const date = z
  .string({ error: 'must be a date YYYY-MM-DD' })
  .max(10, { error: 'must be a date YYYY-MM-DD' })
  .refine(isCalendarDate, { error: 'must be a real date YYYY-MM-DD' })
  .meta({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', minLength: 10 });

/** The widest range GET /pay-periods lists (from..to, in days): ten years; every period walk's cap. */
export { MAX_PERIOD_RANGE_DAYS };

/** GET /pay-periods */
export const periodListQuery = z
  .strictObject({ ...paginationFields({ defaultLimit: 50, maxLimit: 200 }), from: date.optional(), to: date.optional() })
  .refine((range) => range.from === undefined || range.to === undefined || dayNumber(range.from) <= dayNumber(range.to), {
    error: 'must not be before from',
    path: ['to'],
  });

/** GET /timesheets */
export const timesheetListQuery = z.strictObject({
  ...paginationFields({ defaultLimit: 50, maxLimit: 200 }),
  period: date.meta({ description: 'The start of the pay period' }),
  employee: idSchema('an employee').optional(),
  department: idSchema('a department').optional(),
  status: z.enum(['open', 'approved'], { error: 'must be open or approved' }).optional(),
});

/** POST /pay-periods/{start}/lock */
export const lockQuery = z.strictObject({
  require_approved: booleanQuery()
    .optional()
    .meta({ description: 'true: 409 `unapproved_timesheets` while a timesheet with hours is not approved' }),
  allow_open_records: booleanQuery().optional().meta({
    description:
      'true: lock even while records of the period have no punch-out; each becomes `missed_punch_out` (no hours, no longer open) and is listed in `open_records`. Otherwise such records are 409 `open_records`',
  }),
});

const SINCE_VERSION_MESSAGE = 'must be a whole number from 1 (a lock version of the period)';

/** GET /pay-periods/{start}/export */
export const exportQuery = z.strictObject({
  format: z.enum(['csv', 'json'], { error: 'must be csv or json' }).default('csv'),
  profile: z
    .string({ error: 'must be an export profile id' })
    .max(40, { error: 'must be an export profile id' })
    .regex(/^[a-z0-9-]{1,40}$/, { error: 'must be an export profile id' })
    .optional()
    .meta({ description: 'The export profile of a CSV (GET /export-profiles); default `default`, the CSV of CONTRACT 6.3' }),
  since_version: z
    .preprocess(
      (value) => (typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : value),
      z
        .number({ error: SINCE_VERSION_MESSAGE })
        .int({ error: SINCE_VERSION_MESSAGE })
        .min(1, { error: SINCE_VERSION_MESSAGE })
        .max(2_147_483_647, { error: SINCE_VERSION_MESSAGE }),
    )
    .optional()
    .meta({
      format: 'int32',
      description:
        'A lock version of the period: answer only the difference between it and the current lock (signed hours; docs/pay-periods.md, "Adjustments after a re-lock")',
    }),
});

const HOURS_MESSAGE = `must be null or a number of hours above 0, at most ${MAX_THRESHOLD_HOURS}, with at most 2 decimals`;
const hours = z
  .number({ error: HOURS_MESSAGE })
  .gt(0, { error: HOURS_MESSAGE })
  .max(MAX_THRESHOLD_HOURS, { error: HOURS_MESSAGE })
  .multipleOf(0.01, { error: HOURS_MESSAGE })
  // zod's multipleOf rounds 1e-9 to 0.00 and lets it through; this check is exact.
  .refine(isSettingHours, { error: HOURS_MESSAGE })
  .nullable()
  .meta({ description: 'Hours (at most 2 decimals, above 0); null switches the rule off' });

const oneOf = (values: readonly string[]) => ({ error: `must be one of ${values.join(', ')}` });
const MONTH_DAY_MESSAGE = `must be a whole number from ${MONTH_START_DAYS.min} to ${MONTH_START_DAYS.max}`;

/** The settings as answered, and as a PUT sends them (every key optional there). */
export const payPeriodSettingsSchema = z
  .strictObject({
    frequency: z
      .enum(FREQUENCIES, oneOf(FREQUENCIES))
      .meta({ description: "semimonthly: the 1st to the 15th, and the 16th to the month's last day" }),
    anchor_date: date
      .refine(isAnchorDate, { error: `must be a real date YYYY-MM-DD (${EARLIEST_ANCHOR_DATE.slice(0, 4)} or later)` })
      .meta({ description: `The first day of one weekly or biweekly period (${EARLIEST_ANCHOR_DATE} or later)`, example: '2024-01-01' }),
    month_start_day: z
      .number({ error: MONTH_DAY_MESSAGE })
      .int({ error: MONTH_DAY_MESSAGE })
      .min(MONTH_START_DAYS.min, { error: MONTH_DAY_MESSAGE })
      .max(MONTH_START_DAYS.max, { error: MONTH_DAY_MESSAGE })
      .meta({ format: 'int32', description: 'Monthly: a period runs from this day to the day before it a month later' }),
    workweek_start: z
      .enum(WEEKDAYS, oneOf(WEEKDAYS))
      .meta({ description: 'The first day of the workweeks the weekly and seventh-day rules count in' }),
    overtime: z.strictObject(
      {
        daily_after_hours: hours,
        daily_double_after_hours: hours.meta({ description: 'At least daily_after_hours; the hours of a date past it are double time' }),
        weekly_after_hours: hours,
        seventh_day: z
          .boolean({ error: 'must be true or false' })
          .meta({ description: "Hours on all seven dates of a workweek: the seventh date's first 8 h overtime, the rest double time" }),
      },
      { error: 'must be an object' },
    ),
  })
  .meta({ id: 'PayPeriodSettings' });

/** PUT /pay-periods/settings: any of the settings, each checked as the answer's schema checks it. */
export const payPeriodSettingsUpdateSchema = payPeriodSettingsSchema
  .extend({
    overtime: payPeriodSettingsSchema.shape.overtime.partial(),
  })
  .partial()
  .meta({ id: 'PayPeriodSettingsUpdate', description: 'Any of the settings; omitted keys keep their value' });

/** A PUT body as parsed: the sent keys only. */
export type PayPeriodSettingsUpdate = z.output<typeof payPeriodSettingsUpdateSchema>;
