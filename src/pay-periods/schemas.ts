import { z } from 'zod';
import { idSchema } from '../http/field-schemas';
import { paginationFields } from '../http/pagination';
import { booleanQuery } from '../http/query-boolean';
import { MAX_PERIOD_RANGE_DAYS } from '../pay-rules/periods';
import type { payPeriodSettingsUpdateSchema } from '../pay-groups/schemas';
import { dayNumber, isCalendarDate } from '../time';

/** A date from 0001-01-01 to 9999-12-31 (isCalendarDate allows no other year). */
const date = z
  .string({ error: 'must be a date YYYY-MM-DD' })
  .max(10, { error: 'must be a date YYYY-MM-DD' })
  .refine(isCalendarDate, { error: 'must be a real date YYYY-MM-DD' })
  .meta({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', minLength: 10 });

/** `?group=`: the pay group whose periods a path names (default 1, `Default`; docs/pay-periods.md, "Groups"). */
const group = idSchema('a pay group')
  // Parsed as a sent value would be, so the document's default is the string a client sends.
  .prefault('1')
  .meta({ description: 'The pay group whose periods, locks and employees this is (GET /pay-groups); default 1, `Default`' });

/** GET /pay-periods/{start} and POST /pay-periods/{start}/unlock */
export const periodQuery = z.strictObject({ group });

/** The widest range GET /pay-periods lists (from..to, in days): ten years; every period walk's cap. */
export { MAX_PERIOD_RANGE_DAYS };

/** GET /pay-periods */
export const periodListQuery = z
  .strictObject({ ...paginationFields({ defaultLimit: 50, maxLimit: 200 }), from: date.optional(), to: date.optional(), group })
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
  group,
});

/** POST /pay-periods/{start}/lock */
export const lockQuery = z.strictObject({
  group,
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
  group,
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

// The settings' schema is a pay group's (group 1 holds them: docs/pay-periods.md, "Pay groups").
export { payPeriodSettingsSchema, payPeriodSettingsUpdateSchema } from '../pay-groups/schemas';

/** A PUT body as parsed: the sent keys only. */
export type PayPeriodSettingsUpdate = z.output<typeof payPeriodSettingsUpdateSchema>;
