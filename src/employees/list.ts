import type { Knex } from 'knex';
import { z } from 'zod';
import type { Caller } from '../auth/caller';
import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import type { TtlCache } from '../ttl-cache';
import { offsetOf, paginationFields } from '../http/pagination';
import { whereVisible } from './access';
import { EMPLOYEE_STATUSES } from './fields';
import { type EmployeeRecord, selectEmployees, toEmployeeRecord } from './repository';
import { idSchema } from '../http/field-schemas';

const SORT_FIELDS = ['id', 'employee_id', 'first_name', 'last_name', 'joined_date', 'updated_at'] as const;
const MAX_FILTER_VALUES = 100;

/** A filter value, or a list of them (any of which matches). */
const oneOrMany = <T extends z.ZodType>(value: T) =>
  z.union([value, z.array(value).min(1).max(MAX_FILTER_VALUES)], { error: `must be a value or a list of 1 to ${MAX_FILTER_VALUES} values` });

const countryFilter = z
  .string()
  .regex(/^[A-Za-z]{2}$/, { error: 'must be a two-letter country code' })
  .transform((code) => code.toUpperCase());

/** The `filters` allow-list (CONTRACT §6). */
const filtersSchema = z.strictObject({
  status: oneOrMany(z.enum(EMPLOYEE_STATUSES, { error: 'must be Active or Terminated' })).optional(),
  department: oneOrMany(idSchema('a department')).optional(),
  job_title: oneOrMany(idSchema('a job title')).optional(),
  employment_status: oneOrMany(idSchema('an employment status')).optional(),
  supervisor: oneOrMany(idSchema('an employee')).optional(),
  country: oneOrMany(countryFilter).optional(),
  pay_grade: oneOrMany(idSchema('a pay grade')).optional(),
});
type FilterName = keyof z.output<typeof filtersSchema>;

const FILTER_COLUMNS: Record<FilterName, string> = {
  status: 'e.status',
  department: 'e.department_id',
  job_title: 'e.job_title_id',
  employment_status: 'e.employment_status_id',
  supervisor: 'e.supervisor_id',
  country: 'e.country_code',
  pay_grade: 'e.pay_grade_id',
};

/** ISO-8601 with a zone (Z or ±hh:mm), or a date meaning its midnight UTC. */
const instant = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/, {
    error: 'must be an ISO-8601 date-time with a zone, e.g. 2026-01-31T08:00:00Z',
  })
  .transform((value) => new Date(value.length === 10 ? `${value}T00:00:00Z` : value))
  .refine((date) => !Number.isNaN(date.getTime()), { error: 'must be a real date-time' });

export const listEmployeesQuery = z.strictObject({
  ...paginationFields({ defaultLimit: 50, maxLimit: 200 }),
  search: z.string().trim().min(1, { error: 'must not be empty' }).max(100, { error: 'must be at most 100 characters' }).optional(),
  filters: z
    .string()
    .transform((text, context) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: 'must be a JSON object, e.g. {"status":"Active"}' });
        return z.NEVER;
      }
    })
    .pipe(filtersSchema)
    .optional(),
  sortField: z.enum(SORT_FIELDS, { error: `must be one of ${SORT_FIELDS.join(', ')}` }).default('id'),
  sortOrder: z.enum(['ascend', 'descend'], { error: 'must be ascend or descend' }).default('ascend'),
  updated_since: instant.optional(),
});

export type ListEmployeesQuery = z.output<typeof listEmployeesQuery>;

/** Columns `search` looks in: names, the employee code and the work e-mail, never personal ids. */
const SEARCH_COLUMNS = ['e.first_name', 'e.middle_name', 'e.last_name', 'e.employee_id', 'e.work_email'];

/**
 * The page of employees the caller may see, whether more follow, and how many there are in all.
 * Every value from the query string is a bound parameter; column names come only from the
 * allow-lists above. Counting every matching row is the costly part of a list, so the total of
 * the same question is reused for a couple of seconds (`counts`); whether a next page exists is
 * always exact (one row more is read).
 */
export async function listEmployees(
  db: Db,
  caller: Caller,
  query: ListEmployeesQuery,
  counts: TtlCache<string, number>,
): Promise<{ records: EmployeeRecord[]; total: number; hasMore: boolean }> {
  const matching = (builder: Knex.QueryBuilder) => applyCriteria(whereVisible(builder, caller), query);
  const direction = query.sortOrder === 'descend' ? 'desc' : 'asc';
  const order = [
    { column: `e.${query.sortField}`, order: direction },
    ...(query.sortField === 'id' ? [] : [{ column: 'e.id', order: direction }]),
  ];
  // Deferred join: the page's ids come from the indexes alone, then only those rows are read,
  // so a deep page does not read every full row before it.
  const pageIds = matching(db('employees as e'))
    .select('e.id')
    .orderBy(order)
    .limit(query.limit + 1)
    .offset(offsetOf(query.page, query.limit));
  const countKey = JSON.stringify([caller.role === 'admin' ? 'all' : caller.employeeId, query.filters, query.search, query.updated_since]);
  const countIfUnknown = async () => {
    const cached = counts.get(countKey);
    if (cached !== undefined) return cached;
    const row = await matching(db('employees as e')).count({ total: '*' }).first();
    const total = Number(row?.total ?? 0);
    counts.set(countKey, total);
    return total;
  };
  const [rows, total] = await Promise.all([selectEmployees(db).join(pageIds.as('page'), 'page.id', 'e.id').orderBy(order), countIfUnknown()]);
  const records = rows.slice(0, query.limit).map(toEmployeeRecord);
  return { records, total, hasMore: rows.length > query.limit };
}

function applyCriteria(builder: Knex.QueryBuilder, query: ListEmployeesQuery): Knex.QueryBuilder {
  for (const [name, value] of Object.entries(query.filters ?? {})) {
    if (value === undefined) continue;
    const column = FILTER_COLUMNS[name as FilterName];
    if (Array.isArray(value)) builder.whereIn(column, value);
    else builder.where(column, value);
  }
  if (query.updated_since) builder.where('e.updated_at', '>=', toSqlDateTime(query.updated_since));
  if (query.search) {
    // Every word must appear in one of the columns: "jane doe" finds Jane Doe.
    for (const word of query.search.split(/\s+/).slice(0, 5)) {
      const pattern = `%${word.replace(/[!%_]/g, '!$&')}%`;
      builder.where((any) => {
        for (const column of SEARCH_COLUMNS) any.orWhereRaw(`?? LIKE ? ESCAPE '!'`, [column, pattern]);
      });
    }
  }
  return builder;
}
