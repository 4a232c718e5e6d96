import { z } from 'zod';
import { idSchema } from '../http/field-schemas';
import { paginationFields } from '../http/pagination';
import { MAX_PERIOD_RANGE_DAYS } from '../pay-rules/periods';
import { FREQUENCIES, WEEKDAYS } from '../pay-rules/settings';
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
  require_approved: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .transform((value) => value === 'true')
    .optional(),
});

/** GET /pay-periods/{start}/export */
export const exportQuery = z.strictObject({
  format: z.enum(['csv', 'json'], { error: 'must be csv or json' }).default('csv'),
});

const hours = z
  .number()
  .gt(0)
  .max(168)
  .multipleOf(0.01)
  .nullable()
  .meta({ description: 'Hours (at most 2 decimals, above 0); null switches the rule off' });

/** The settings as answered, and as a PUT sends them (every key optional there). */
export const payPeriodSettingsSchema = z
  .strictObject({
    frequency: z.enum(FREQUENCIES).meta({ description: "semimonthly: the 1st to the 15th, and the 16th to the month's last day" }),
    anchor_date: date.meta({ description: 'The first day of one weekly or biweekly period', example: '2024-01-01' }),
    month_start_day: z
      .number()
      .int()
      .min(1)
      .max(28)
      .meta({ format: 'int32', description: 'Monthly: a period runs from this day to the day before it a month later' }),
    workweek_start: z.enum(WEEKDAYS).meta({ description: 'The first day of the workweeks the weekly and seventh-day rules count in' }),
    overtime: z.strictObject({
      daily_after_hours: hours,
      daily_double_after_hours: hours.meta({ description: 'At least daily_after_hours; the hours of a date past it are double time' }),
      weekly_after_hours: hours,
      seventh_day: z
        .boolean()
        .meta({ description: "Hours on all seven dates of a workweek: the seventh date's first 8 h overtime, the rest double time" }),
    }),
  })
  .meta({ id: 'PayPeriodSettings' });

export const payPeriodSettingsUpdateSchema = payPeriodSettingsSchema
  .extend({ overtime: payPeriodSettingsSchema.shape.overtime.partial() })
  .partial()
  .meta({ id: 'PayPeriodSettingsUpdate', description: 'Any of the settings; omitted keys keep their value' });
