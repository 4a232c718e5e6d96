import { z } from 'zod';
import { CALENDAR_DATE_PATTERN, idSchema, instant } from '../http/field-schemas';
import { paginationFields } from '../http/pagination';
import { booleanQuery } from '../http/query-boolean';
import { daysBetween, isCalendarDate } from '../time';
import { SHIFT_STATUSES } from './shift-model';
import { MAX_RANGE_DAYS } from './publishing';

// The query strings of the shift lists: a bad one is 400 naming the parameter.

/** A calendar date YYYY-MM-DD: 10 characters, a real date (isCalendarDate). */
export const queryDate = z
  .string({ error: 'must be a date YYYY-MM-DD' })
  .max(10, { error: 'must be a real date YYYY-MM-DD' })
  .refine(isCalendarDate, { error: 'must be a real date YYYY-MM-DD' })
  .meta({ format: 'date', pattern: CALENDAR_DATE_PATTERN });

/** from..to, both included, at most 62 days when both are given. */
const rangeCheck = <T extends { from?: string; to?: string }>(query: T, context: z.RefinementCtx) => {
  if (query.from === undefined || query.to === undefined) return;
  const days = daysBetween(query.from, query.to);
  if (days < 0) context.addIssue({ code: 'custom', path: ['to'], message: 'must not be before from' });
  else if (days >= MAX_RANGE_DAYS)
    context.addIssue({
      code: 'custom',
      path: ['to'],
      message: `must be at most ${MAX_RANGE_DAYS - 1} days after from (${MAX_RANGE_DAYS} days, both included)`,
    });
};

export const shiftListQuery = z
  .strictObject({
    ...paginationFields({ defaultLimit: 50, maxLimit: 200 }),
    from: queryDate.optional().meta({ description: 'Shifts dated on or after this date' }),
    to: queryDate.optional().meta({ description: 'Shifts dated on or before this date (at most 62 days after from)' }),
    employee: idSchema('an employee').optional(),
    department: idSchema('a department').optional(),
    status: z.enum(SHIFT_STATUSES, { error: `must be one of ${SHIFT_STATUSES.join(', ')}` }).optional(),
    open: booleanQuery().optional().meta({ description: 'true: open shifts only (no employee); false: assigned ones only' }),
    updated_since: instant.optional(),
  })
  .superRefine(rangeCheck);

export const employeeShiftsQuery = z
  .strictObject({
    ...paginationFields({ defaultLimit: 50, maxLimit: 200 }),
    from: queryDate.optional(),
    to: queryDate.optional(),
  })
  .superRefine(rangeCheck);
