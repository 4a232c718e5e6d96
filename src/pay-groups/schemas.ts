import { z } from 'zod';
import { paginationFields } from '../http/pagination';
import {
  EARLIEST_ANCHOR_DATE,
  FREQUENCIES,
  isAnchorDate,
  isSettingHours,
  MAX_THRESHOLD_HOURS,
  MEAL_BREAK_LIMITS,
  MONTH_START_DAYS,
  ROUNDING_MINUTES,
  WEEKDAYS,
} from '../pay-rules/settings';
import { isCalendarDate } from '../time';

// The one schema of a pay group (CONTRACT 6.5): it checks every write (each invalid field a 422
// naming it) and documents the API. The pay-period settings of 6.3 are its first part: group 1's.

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

const oneOf = (values: readonly unknown[]) => ({ error: `must be one of ${values.join(', ')}` });
const MONTH_DAY_MESSAGE = `must be a whole number from ${MONTH_START_DAYS.min} to ${MONTH_START_DAYS.max}`;
const ANCHOR_MESSAGE = `must be a real date YYYY-MM-DD (${EARLIEST_ANCHOR_DATE.slice(0, 4)} or later)`;

/** The settings as answered, and as a PUT sends them (every key optional there). */
export const payPeriodSettingsSchema = z
  .strictObject({
    frequency: z
      .enum(FREQUENCIES, oneOf(FREQUENCIES))
      .meta({ description: "semimonthly: the 1st to the 15th, and the 16th to the month's last day" }),
    anchor_date: z
      .string({ error: 'must be a date YYYY-MM-DD' })
      .max(10, { error: 'must be a date YYYY-MM-DD' })
      .refine(isCalendarDate, { error: 'must be a real date YYYY-MM-DD' })
      .refine(isAnchorDate, { error: ANCHOR_MESSAGE })
      .meta({
        format: 'date',
        pattern: '^\\d{4}-\\d{2}-\\d{2}$',
        minLength: 10,
        description: `The first day of one weekly or biweekly period (${EARLIEST_ANCHOR_DATE} or later)`,
        example: '2024-01-01',
      }),
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

const MEAL_HOURS_MESSAGE = `must be a number of hours above 0, at most ${MEAL_BREAK_LIMITS.maxAfterHours}, with at most 2 decimals`;
const MEAL_MINUTES_MESSAGE = `must be a whole number of minutes from ${MEAL_BREAK_LIMITS.minMinutes} to ${MEAL_BREAK_LIMITS.maxMinutes}`;
const PROFILE_MESSAGE = 'must be null or an export profile id';

/** The rules and names a pay group adds to the settings. */
const groupFields = {
  name: z
    .string({ error: 'must be a text of 1 to 100 characters' })
    .trim()
    .min(1, { error: 'must be a text of 1 to 100 characters' })
    .max(100, { error: 'must be a text of 1 to 100 characters' })
    .meta({ description: 'Unique among the groups', example: 'Hourly, California' }),
  exempt: z
    .boolean({ error: 'must be true or false' })
    .meta({ description: 'true: every worked hour is REG; no daily, weekly or seventh-day rule' }),
  meal_break: z
    .strictObject(
      {
        after_hours: z
          .number({ error: MEAL_HOURS_MESSAGE })
          .gt(0, { error: MEAL_HOURS_MESSAGE })
          .max(MEAL_BREAK_LIMITS.maxAfterHours, { error: MEAL_HOURS_MESSAGE })
          .refine(isSettingHours, { error: MEAL_HOURS_MESSAGE })
          .meta({ description: "A date's worked hours must exceed these" }),
        minutes: z
          .number({ error: MEAL_MINUTES_MESSAGE })
          .int({ error: MEAL_MINUTES_MESSAGE })
          .min(MEAL_BREAK_LIMITS.minMinutes, { error: MEAL_MINUTES_MESSAGE })
          .max(MEAL_BREAK_LIMITS.maxMinutes, { error: MEAL_MINUTES_MESSAGE })
          .meta({ format: 'int32', description: 'Deducted, unless two records of the date leave a gap of at least this long' }),
      },
      { error: 'must be null or an object {after_hours, minutes}' },
    )
    .nullable()
    .meta({ description: 'null: no deduction' }),
  rounding: z
    .strictObject(
      {
        minutes: z
          .union(
            ROUNDING_MINUTES.map((minutes) => z.literal(minutes)),
            oneOf(ROUNDING_MINUTES),
          )
          .meta({ description: 'Each in and out time is rounded to the nearest multiple on its own wall clock, a tie up' }),
      },
      { error: 'must be null or an object {minutes}' },
    )
    .nullable()
    .meta({ description: 'null: exact punches. For classification only; stored punches never change' }),
  export_profile: z
    .string({ error: PROFILE_MESSAGE })
    .max(40, { error: PROFILE_MESSAGE })
    .regex(/^[a-z0-9-]{1,40}$/, { error: PROFILE_MESSAGE })
    .nullable()
    .meta({ description: "The export's profile when the request names none; null: `default`", example: 'gusto' }),
};

/** What is read-only in a group's read shape: sent back by a PUT or PATCH, it is ignored (`id` must match the path). */
const readOnlyFields = {
  id: z
    .union([z.string().max(20), z.number()])
    .optional()
    .meta({ description: 'Read-only: may be sent back, must match the path' }),
  created_at: z.string().max(100).optional().meta({ description: 'Read-only: ignored' }),
  updated_at: z.string().max(100).optional().meta({ description: 'Read-only: ignored' }),
};

/** POST /pay-groups, PUT /pay-groups/{id}: `name` required; every omitted rule (also of `overtime`) takes its default. */
export const payGroupWriteSchema = payPeriodSettingsSchema
  .extend({ overtime: payPeriodSettingsSchema.shape.overtime.partial(), ...groupFields })
  .partial()
  .required({ name: true })
  .meta({ id: 'PayGroupWrite', description: 'A whole pay group: `name` required, omitted rules take their defaults' });

/** PUT /pay-groups/{id}: as POST, with the read shape's read-only fields allowed back. */
export const payGroupReplaceSchema = payGroupWriteSchema.extend(readOnlyFields).meta({ id: 'PayGroupReplace' });

/** PATCH /pay-groups/{id}: any of the fields (also of `overtime`); omitted ones keep their value. */
export const payGroupPatchSchema = payGroupWriteSchema
  .partial()
  .extend(readOnlyFields)
  .meta({ id: 'PayGroupPatch', description: 'Any of the fields; omitted ones keep their value' });

export type PayGroupWrite = z.output<typeof payGroupPatchSchema>;

/** The read shape (CONTRACT 6.5). */
export const payGroupSchema = payPeriodSettingsSchema
  .extend({
    id: z.string().max(10).meta({ example: '2' }),
    ...groupFields,
    created_at: z.string().max(30).meta({ format: 'date-time' }),
    updated_at: z.string().max(30).meta({ format: 'date-time' }),
  })
  .meta({ id: 'PayGroup', description: 'A pay group: its period layout and pay rules (docs/pay-periods.md, "Pay groups")' });

/** GET /pay-groups */
export const payGroupListQuery = z.strictObject(paginationFields({ defaultLimit: 50, maxLimit: 200 }));
