import { z } from 'zod';
import { CALENDAR_DATE_PATTERN, countryCode, idSchema, isPlainObject, optionalText, requiredText } from '../http/field-schemas';
import { paginationFields } from '../http/pagination';
import { isCalendarDate } from '../time';

// The bodies and queries of /leave-types, /leaves and /holidays, parsed once at the edge.

export const calendarDate = z
  .string({ error: 'must be a real date YYYY-MM-DD' })
  .max(10, { error: 'must be a real date YYYY-MM-DD' })
  .refine(isCalendarDate, { error: 'must be a real date YYYY-MM-DD' })
  .meta({ pattern: CALENDAR_DATE_PATTERN, example: '2026-12-24' });

export const leaveCode = z
  .string({ error: 'must be an export code: 1 to 20 letters, digits, _ or -' })
  .regex(/^[A-Za-z0-9_-]{1,20}$/, { error: 'must be an export code: 1 to 20 letters, digits, _ or -' })
  .meta({ maxLength: 20, example: 'PTO' });

const leaveTypeFields = {
  name: requiredText(100),
  paid: z.boolean().optional().meta({ description: 'Paid leave counts as hours in payroll (default true)' }),
  code: leaveCode.nullable().optional().meta({ description: 'The export code of a paid type (default PTO); null for an unpaid one' }),
  private: z.boolean().optional().meta({ description: "Calendar feeds show the type's name only when false (default true)" }),
  include_holidays: z
    .boolean()
    .optional()
    .meta({ description: "A leave's default days include the holidays of its range (default false)" }),
};

export const leaveTypeCreate = z.strictObject(leaveTypeFields).meta({ id: 'LeaveTypeWrite' });
export const leaveTypeReplace = z
  .strictObject({
    ...leaveTypeFields,
    id: idSchema('this leave type').optional().meta({ description: 'Read-only: must match the path' }),
  })
  .meta({ id: 'LeaveTypeReplace' });

export const PORTIONS = ['full', 'am', 'pm', 'hours'] as const;

/** An id, or a read reference {"type", "id", "display"} as a GET answered it (CONTRACT 5.1). */
const referenceId = (what: string) => z.preprocess((value) => (isPlainObject(value) ? value.id : value), idSchema(what));

export const leaveDayInput = z.strictObject({
  date: calendarDate,
  portion: z.enum(PORTIONS, { error: 'must be full, am, pm or hours' }),
  hours: z
    .number({ error: 'must be a number of hours' })
    .gt(0, { error: 'must be more than 0' })
    .max(24, { error: 'must be at most 24' })
    .optional()
    .meta({ description: "With portion hours only: the hours off, at most the day's hours" }),
});

export const leaveCreate = z
  .strictObject({
    employee: referenceId('an employee').optional().meta({ description: "The employee (default: the caller's own)" }),
    leave_type: referenceId('a leave type'),
    start_date: calendarDate,
    end_date: calendarDate,
    days: z
      .array(leaveDayInput)
      .max(366)
      .optional()
      .meta({ description: 'The days off and their portions (default: full on every workday of the range)' }),
    note: optionalText(1000).optional(),
    status: z.enum(['pending', 'approved']).optional().meta({ description: 'Admins may create a leave approved (default pending)' }),
  })
  .meta({ id: 'LeaveCreate' });
export type LeaveCreate = z.output<typeof leaveCreate>;

const readOnly = (description: string) =>
  z
    .unknown()
    .optional()
    .meta({ description: `Read-only: ${description}` });

/** PUT /leaves/{id}: the read shape may be sent back; its read-only members are ignored. */
export const leaveReplace = z
  .strictObject({
    id: idSchema('this leave').optional().meta({ description: 'Read-only: must match the path' }),
    leave_type: referenceId('a leave type'),
    start_date: calendarDate,
    end_date: calendarDate,
    days: leaveCreate.shape.days,
    note: optionalText(1000).optional(),
    employee: readOnly('ignored (a leave keeps its employee)'),
    status: readOnly('ignored (approve, reject and cancel change it)'),
    decided_by: readOnly('ignored'),
    decided_at: readOnly('ignored'),
    created_at: readOnly('ignored'),
    updated_at: readOnly('ignored'),
  })
  .meta({ id: 'LeaveReplace' });

export const LEAVE_STATUS_VALUES = ['pending', 'approved', 'rejected', 'cancelled'] as const;

export const leaveListQuery = z.strictObject({
  employee: idSchema('an employee').optional().meta({ description: "One employee's leaves" }),
  from: calendarDate.optional().meta({ description: 'Leaves that end on or after this date' }),
  to: calendarDate.optional().meta({ description: 'Leaves that start on or before this date' }),
  status: z.enum(LEAVE_STATUS_VALUES).optional(),
  ...paginationFields({ defaultLimit: 50, maxLimit: 200 }),
});

export const employeeLeaveQuery = leaveListQuery.omit({ employee: true });

export const leaveTypeListQuery = z.strictObject(paginationFields({ defaultLimit: 50, maxLimit: 200 }));

export const holidayCreate = z
  .strictObject({
    date: calendarDate,
    name: requiredText(150),
    portion: z.enum(['full', 'half']).optional().meta({ description: 'Default full' }),
    country: countryCode.optional().meta({ description: 'ISO 3166-1 alpha-2; null or absent: everyone' }),
    paid: z.boolean().optional().meta({ description: 'Default true' }),
  })
  .meta({ id: 'HolidayCreate' });

export const holidayImport = z
  .strictObject({
    country: z
      .string({ error: 'must be a two-letter ISO 3166-1 country code' })
      .regex(/^[A-Za-z]{2}$/, { error: 'must be a two-letter ISO 3166-1 country code' })
      .meta({ maxLength: 2 })
      .transform((code) => code.toUpperCase()),
    region: z
      .string({ error: 'must be a region code of the country' })
      .regex(/^[A-Za-z0-9]{1,10}$/, { error: 'must be a region code of the country' })
      .meta({ maxLength: 10 })
      .optional(),
    year: z.number({ error: 'must be a year from 1970 to 2100' }).int().min(1970).max(2100).meta({ format: 'int32' }),
  })
  .meta({ id: 'HolidayImport' });

export const holidayListQuery = z.strictObject({
  from: calendarDate.optional(),
  to: calendarDate.optional(),
  country: z
    .string()
    .regex(/^([A-Za-z]{2}|none)$/, { error: 'must be a two-letter country code, or none for the holidays of everyone' })
    .meta({ maxLength: 4 })
    .optional()
    .meta({ description: "One country's holidays; `none`: those of everyone (country null)" }),
  ...paginationFields({ defaultLimit: 100, maxLimit: 500 }),
});
