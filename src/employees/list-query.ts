import { z } from 'zod';
import type { Caller } from '../caller';
import { toSqlDateTime } from '../db/sql-time';
import { ForbiddenError, type FieldError } from '../errors';
import { CALENDAR_DATE_PATTERN, idSchema, instant } from '../http/field-schemas';
import { isCalendarDate, parseIsoInstant } from '../time';
import { fieldsParameter } from './field-selection';
import {
  COUNTRY,
  EMPLOYEE_STATUSES,
  MARITAL_STATUSES,
  PERSONAL_FIELDS,
  REFERENCE_FIELDS,
  type ReferenceFieldName,
} from '../employee-records/fields';

// What GET /employees may ask (docs/api.md, "Lists and pages"), read as leniently as IceHrm reads it where that is
// harmless: limit and page out of range, sortOrder in any case, an empty or null `filters`, the
// `_` cache-buster. Anything unknown is still 400.

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
const MAX_PAGE = 1_000_000;
const MAX_FILTER_VALUES = 100;
const MAX_SEARCH_WORDS = 10;
const PERSONAL = new Set<string>(PERSONAL_FIELDS);

/**
 * A whole number as query text (decimal digits, maybe a minus sign), brought into range by `fit`.
 * Other text ("ten", "1e3", "0x10", "5.0") is not taken for a number and fails.
 */
const wholeNumber = (fit: (value: number) => number) =>
  z.preprocess(
    (value) => (typeof value === 'string' && /^-?[0-9]{1,20}$/.test(value) ? fit(Number(value)) : value),
    z.number({ error: 'must be a whole number' }).int({ error: 'must be a whole number' }),
  );

/** `limit`: 0 or negative means the default, above the maximum the maximum (IceHrm's reading, docs/api.md, "Lists and pages"). */
const limit = wholeNumber((value) => (value <= 0 ? DEFAULT_LIMIT : Math.min(value, MAX_LIMIT)))
  .default(DEFAULT_LIMIT)
  .meta({
    description: `Rows per page, default ${DEFAULT_LIMIT}; 0 or negative means ${DEFAULT_LIMIT}, above ${MAX_LIMIT} means ${MAX_LIMIT}`,
    format: 'int64',
    minimum: Number.MIN_SAFE_INTEGER,
    maximum: Number.MAX_SAFE_INTEGER,
  });

/** `page`: 0 or negative means 1. Beyond a million pages is refused: it would only skip rows. */
const page = wholeNumber((value) => Math.max(value, 1))
  .refine((value) => value <= MAX_PAGE, { error: `must be at most ${MAX_PAGE}` })
  .default(1)
  .meta({ description: 'From 1; 0 or negative means 1', format: 'int64', minimum: Number.MIN_SAFE_INTEGER, maximum: MAX_PAGE });

/** How a filter's values are compared with its column. */
type Comparison = 'equal' | 'text' | 'listed';

interface Filter {
  value: z.ZodType;
  column: string;
  comparison: Comparison;
}

const text = z.string({ error: 'must be a string' }).max(255, { error: 'must be at most 255 characters' });
const calendarDate = z
  .string({ error: 'must be a date YYYY-MM-DD' })
  .refine(isCalendarDate, { error: 'must be a real date YYYY-MM-DD' })
  .meta({ format: 'date', pattern: CALENDAR_DATE_PATTERN });
const countryCode = z
  .string({ error: 'must be a two-letter country code' })
  .regex(/^[A-Za-z]{2}$/, { error: 'must be a two-letter country code' })
  .transform((code) => code.toUpperCase());
/** An instant as `created_at`/`updated_at` are read (ISO-8601 with a zone), compared to the millisecond. */
const exactInstant = z.string({ error: 'must be an ISO-8601 date-time with a zone' }).transform((value, context) => {
  const instant = /T/.test(value) ? parseIsoInstant(value) : undefined;
  // parseIsoInstant keeps whole seconds (attendance's precision); these columns keep milliseconds.
  const milliseconds = Number(`${/\.(\d{1,3})/.exec(value)?.[1] ?? ''}000`.slice(0, 3));
  if (instant) return toSqlDateTime(new Date(instant.getTime() + milliseconds));
  context.addIssue({ code: 'custom', message: 'must be an ISO-8601 date-time with a zone, e.g. 2026-01-31T08:00:00.000Z' });
  return z.NEVER;
});

const REFERENCE_NOUNS: Record<ReferenceFieldName, string> = {
  nationality: 'a nationality',
  employment_status: 'an employment status',
  job_title: 'a job title',
  pay_grade: 'a pay grade',
  pay_group: 'a pay group',
  province: 'a province',
  department: 'a department',
  supervisor: 'an employee',
  approver1: 'an employee',
  approver2: 'an employee',
  approver3: 'an employee',
};

/**
 * Every field of the read shape a list may filter on (docs/api.md, "Lists and pages"): a reference by its id (the
 * country by its code), text case-insensitively (MySQL's collation also ignores accents), dates
 * and enums exactly, `indirect_supervisors` by an employee id the list holds.
 */
const FILTERS: Record<string, Filter> = {
  id: { value: idSchema('an employee'), column: 'e.id', comparison: 'equal' },
  ...Object.fromEntries(
    (Object.keys(REFERENCE_FIELDS) as ReferenceFieldName[]).map((field) => [
      field,
      { value: idSchema(REFERENCE_NOUNS[field]), column: `e.${REFERENCE_FIELDS[field].column}`, comparison: 'equal' },
    ]),
  ),
  country: { value: countryCode, column: `e.${COUNTRY.column}`, comparison: 'equal' },
  ...Object.fromEntries(
    (
      [
        'employee_id',
        'first_name',
        'middle_name',
        'last_name',
        'gender',
        'ssn_num',
        'nic_num',
        'other_id',
        'driving_license',
        'work_station_id',
        'address1',
        'address2',
        'city',
        'postal_code',
        'home_phone',
        'mobile_phone',
        'work_phone',
        'work_email',
        'private_email',
        'timezone',
        'attendance_device_id',
        'payroll_id',
      ] as const
    ).map((field) => [field, { value: text, column: `e.${field}`, comparison: 'text' }]),
  ),
  ...Object.fromEntries(
    (['birthday', 'joined_date', 'confirmation_date', 'termination_date'] as const).map((field) => [
      field,
      { value: calendarDate, column: `e.${field}`, comparison: 'equal' },
    ]),
  ),
  marital_status: {
    value: z.enum(MARITAL_STATUSES, { error: `must be one of ${MARITAL_STATUSES.join(', ')}` }),
    column: 'e.marital_status',
    comparison: 'equal',
  },
  status: { value: z.enum(EMPLOYEE_STATUSES, { error: 'must be Active or Terminated' }), column: 'e.status', comparison: 'equal' },
  indirect_supervisors: { value: idSchema('an employee'), column: 'e.indirect_supervisors', comparison: 'listed' },
  created_at: { value: exactInstant, column: 'e.created_at', comparison: 'equal' },
  updated_at: { value: exactInstant, column: 'e.updated_at', comparison: 'equal' },
};

/** A filter value, or a list of them (any of which matches). */
const oneOrMany = (value: z.ZodType) =>
  z.union([value, z.array(value).min(1).max(MAX_FILTER_VALUES)], {
    error: `must be a value or a list of 1 to ${MAX_FILTER_VALUES} values`,
  });

const filtersSchema = z.strictObject(
  Object.fromEntries(Object.entries(FILTERS).map(([name, filter]) => [name, oneOrMany(filter.value).optional()])),
);

/** The column and comparison of a filter, for the query. */
export function filterOf(name: string): Filter {
  return FILTERS[name]!;
}

/**
 * The scalar fields of the read shape, which a list may be sorted by (docs/api.md, "Lists and pages"). References
 * are objects and `indirect_supervisors` a list: neither has an order. The first six have an
 * index each (migrations 0003, 0011); the others sort every matching row.
 */
const SORT_FIELDS = [
  'id',
  'employee_id',
  'first_name',
  'last_name',
  'joined_date',
  'updated_at',
  'middle_name',
  'birthday',
  'gender',
  'marital_status',
  'ssn_num',
  'nic_num',
  'other_id',
  'driving_license',
  'work_station_id',
  'address1',
  'address2',
  'city',
  'postal_code',
  'home_phone',
  'mobile_phone',
  'work_phone',
  'work_email',
  'private_email',
  'confirmation_date',
  'termination_date',
  'status',
  'timezone',
  'created_at',
  'attendance_device_id',
  'payroll_id',
] as const;

const SORT_ORDERS: Record<string, 'ascend' | 'descend'> = { ascend: 'ascend', asc: 'ascend', descend: 'descend', desc: 'descend' };

export const listEmployeesQuery = z.strictObject({
  limit,
  page,
  search: z
    .string()
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(100, { error: 'must be at most 100 characters' })
    .refine((search) => search.split(/\s+/).length <= MAX_SEARCH_WORDS, { error: `must be at most ${MAX_SEARCH_WORDS} words` })
    .optional()
    .meta({
      description: `Every word (at most ${MAX_SEARCH_WORDS}) must appear in a name, employee_id or work_email; for callers who may read them also in other_id, nic_num or driving_license`,
    }),
  filters: z
    .string()
    .transform((text, context) => {
      // IceHrm clients send an empty filters, or null, for "no filter".
      if (text.trim() === '') return null;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: 'must be a JSON object, e.g. {"status":"Active"}' });
        return z.NEVER;
      }
    })
    .pipe(filtersSchema.nullable())
    .transform((filters) => filters ?? undefined)
    .optional()
    .meta({
      description:
        'A JSON object of read-shape fields and the value (or a list of 1 to 100 values, any of which matches) each must have: references by id (`country` by code), text case-insensitively, dates as YYYY-MM-DD, `indirect_supervisors` by an employee id it lists. Empty or `null` means no filter. Personal fields are 403 `filter_not_allowed` for managers.',
      example: '{"status":"Active","department":["2","5"]}',
    }),
  sortField: z.enum(SORT_FIELDS, { error: 'must be a field of the read shape that has an order (not a reference)' }).default('id').meta({
    description: 'Any scalar field of the read shape; personal fields are 403 `filter_not_allowed` for managers. Ties are broken by id',
  }),
  sortOrder: z
    .string()
    .transform((order) => SORT_ORDERS[order.toLowerCase()])
    .pipe(z.enum(['ascend', 'descend'], { error: 'must be ascend or descend (or ASC or DESC, in any case)' }))
    .default('ascend')
    .meta({
      description: 'ascend or descend; also ASC or DESC, in any case',
      pattern: '^(?:[Aa][Ss][Cc](?:[Ee][Nn][Dd])?|[Dd][Ee][Ss][Cc](?:[Ee][Nn][Dd])?)$',
    }),
  updated_since: instant.optional(),
  fields: fieldsParameter({ account: false }),
  _: z.string().optional().meta({ description: 'Ignored: a browser cache-buster' }),
});

export type ListEmployeesQuery = z.output<typeof listEmployeesQuery>;

/**
 * 403 naming each filter, and the sort field, over a personal field the caller may not read on
 * the people they list: managers on their reports (docs/decisions.md, "Employees and roles"). Admins see every field;
 * employees list only themselves. A filter or an order would tell what the field holds.
 */
export function assertMayFilter(caller: Caller, query: ListEmployeesQuery): void {
  if (caller.role !== 'manager') return;
  const refused: FieldError[] = Object.keys(query.filters ?? {})
    .filter((name) => PERSONAL.has(name))
    .map((name) => ({ field: `filters.${name}`, message: "is a personal field, which managers do not see on their reports' records" }));
  if (PERSONAL.has(query.sortField)) {
    refused.push({
      field: 'sortField',
      message: `${query.sortField} is a personal field, which managers do not see on their reports' records`,
    });
  }
  if (refused.length === 0) return;
  throw new ForbiddenError({
    code: 'filter_not_allowed',
    detail: `Managers may not filter or sort on personal fields: ${refused.map((error) => error.field).join(', ')}`,
    errors: refused,
  });
}
