import type { Knex } from 'knex';
import { z } from 'zod';
import type { Caller } from '../caller';
import type { Clock } from '../clock';
import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import { ForbiddenError } from '../errors';
import { idSchema } from '../http/field-schemas';
import { offsetOf, paginationFields } from '../http/pagination';
import { isCalendarDate, parseIsoInstant } from '../time';
import { TtlCache } from '../ttl-cache';
import { whereVisible } from './access';
import { EMPLOYEE_STATUSES, PERSONAL_FIELDS } from './fields';
import { type EmployeeRecord, selectEmployees, toEmployeeRecord } from './repository';

const SORT_FIELDS = ['id', 'employee_id', 'first_name', 'last_name', 'joined_date', 'updated_at'] as const;
const MAX_FILTER_VALUES = 100;
const MAX_SEARCH_WORDS = 10;
const PERSONAL = new Set<string>(PERSONAL_FIELDS);

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

/** Filters over a personal field: they would tell a manager what they may not read on their reports. */
const PERSONAL_FILTERS = (Object.keys(filtersSchema.shape) as FilterName[]).filter((name) => PERSONAL.has(name));

const FILTER_COLUMNS: Record<FilterName, string> = {
  status: 'e.status',
  department: 'e.department_id',
  job_title: 'e.job_title_id',
  employment_status: 'e.employment_status_id',
  supervisor: 'e.supervisor_id',
  country: 'e.country_code',
  pay_grade: 'e.pay_grade_id',
};

/** ISO-8601 with a zone (Z or ±hh:mm), or a date meaning its midnight UTC; impossible dates and times are refused. */
const instant = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/, {
    error: 'must be an ISO-8601 date-time with a zone, e.g. 2026-01-31T08:00:00Z',
  })
  .transform((value, context) => {
    const date = value.length === 10 ? (isCalendarDate(value) ? new Date(`${value}T00:00:00Z`) : undefined) : parseIsoInstant(value);
    if (date) return date;
    context.addIssue({ code: 'custom', message: 'must be a real date-time' });
    return z.NEVER;
  });

export const listEmployeesQuery = z.strictObject({
  ...paginationFields({ defaultLimit: 50, maxLimit: 200 }),
  search: z
    .string()
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(100, { error: 'must be at most 100 characters' })
    .refine((search) => search.split(/\s+/).length <= MAX_SEARCH_WORDS, { error: `must be at most ${MAX_SEARCH_WORDS} words` })
    .optional(),
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

/** Where a page starts: the sort value and id of its first row. */
interface PageStart {
  value: string | number;
  id: number;
}

/** Sort fields never NULL, so a page can start "at or after (value, id)". */
const KEYSET_SORT_FIELDS = new Set<string>(['id', 'employee_id', 'first_name', 'last_name', 'updated_at']);

/**
 * Per instance: what recent lists learnt, kept for 2 seconds and forgotten at once when this
 * process changes an employee. `totals`: counting every matching row is the costly part of a
 * list, so the total of the same question is reused, and requests asking it while it is being
 * counted wait for that count (when a total expires under load, one count runs, not one per
 * request in flight). `pageStarts`: where a page begins, so that a deep page asked again, or the
 * page after one just served, is read from its first row onward instead of skipping every row
 * before it.
 */
export class EmployeeListCache {
  readonly pageStarts: TtlCache<string, PageStart>;
  private readonly totals: TtlCache<string, number>;
  private readonly counting = new Map<string, Promise<number>>();

  constructor(clock: Clock, ttlMs = 2000) {
    this.totals = new TtlCache(clock, ttlMs, 1000);
    this.pageStarts = new TtlCache(clock, ttlMs, 10_000);
  }

  /** The total for `question`: remembered, being counted, or counted now with `count`. */
  total(question: string, count: () => Promise<number>): Promise<number> {
    const known = this.totals.get(question);
    if (known !== undefined) return Promise.resolve(known);
    const running = this.counting.get(question);
    if (running) return running;
    const counted = count();
    this.counting.set(question, counted);
    // Kept only if no clear() came meanwhile: a count begun before this process's own write
    // must not answer the requests after it.
    const current = () => this.counting.get(question) === counted;
    counted.then(
      (total) => {
        if (!current()) return;
        this.totals.set(question, total);
        this.counting.delete(question);
      },
      () => {
        if (current()) this.counting.delete(question);
      },
    );
    return counted;
  }

  clear(): void {
    this.totals.clear();
    this.pageStarts.clear();
    this.counting.clear();
  }
}

/**
 * 403 naming each filter over a personal field, for a caller who lists people whose personal
 * fields they may not see: managers (CONTRACT §4). Admins see every field; employees list only
 * themselves.
 */
export function assertMayFilter(caller: Caller, query: ListEmployeesQuery): void {
  if (caller.role !== 'manager') return;
  const refused = PERSONAL_FILTERS.filter((name) => query.filters?.[name] !== undefined);
  if (refused.length === 0) return;
  throw new ForbiddenError({
    code: 'filter_not_allowed',
    detail: `Managers may not filter on personal fields: ${refused.join(', ')}`,
    errors: refused.map((name) => ({ field: `filters.${name}`, message: "is a personal field, which managers do not see on their reports' records" })),
  });
}

/**
 * The page of employees the caller may see, whether more follow, and how many there are in all.
 * Every value from the query string is a bound parameter; column names come only from the
 * allow-lists above. Whether a next page exists is always exact (one row more is read); the total
 * may be up to 2 seconds old for changes made by other processes.
 */
export async function listEmployees(
  db: Db,
  caller: Caller,
  query: ListEmployeesQuery,
  cache: EmployeeListCache,
): Promise<{ records: EmployeeRecord[]; total: number; hasMore: boolean }> {
  const matching = (builder: Knex.QueryBuilder) => applyCriteria(whereVisible(builder, caller), query);
  const direction = query.sortOrder === 'descend' ? 'desc' : 'asc';
  const order = [
    { column: `e.${query.sortField}`, order: direction },
    ...(query.sortField === 'id' ? [] : [{ column: 'e.id', order: direction }]),
  ];
  const question = JSON.stringify([caller.role === 'admin' ? 'all' : caller.employeeId, query.filters, query.search, query.updated_since]);
  const pageKey = (page: number) => JSON.stringify([question, query.sortField, direction, query.limit, page]);
  const start = KEYSET_SORT_FIELDS.has(query.sortField) ? cache.pageStarts.get(pageKey(query.page)) : undefined;

  const offset = start ? 0 : offsetOf(query.page, query.limit);
  const page = (builder: Knex.QueryBuilder) => {
    matching(builder).orderBy(order).limit(query.limit + 1);
    return start ? builder.where(startingAt(`e.${query.sortField}`, direction, start)) : builder.offset(offset);
  };
  // With nothing to skip (page 1, or a page whose first row is known), the rows are read in the
  // order of an index (every sort field has one) and the query stops at the page's end. To skip
  // rows, a deferred join: the page's ids come from the index alone, so skipped rows are never
  // read whole, then only the page's rows are.
  const rowsQuery =
    offset === 0
      ? page(selectEmployees(db))
      : selectEmployees(db).join(page(db('employees as e').select('e.id')).as('page'), 'page.id', 'e.id').orderBy(order);

  const count = async () => Number((await matching(db('employees as e')).count({ total: '*' }).first())?.total ?? 0);
  const [rows, total] = await Promise.all([rowsQuery, cache.total(question, count)]);

  if (KEYSET_SORT_FIELDS.has(query.sortField)) {
    const startOf = (row: Record<string, unknown> | undefined) =>
      row && { value: row[query.sortField] as string | number, id: Number(row.id) };
    const first = startOf(rows[0]);
    const next = startOf(rows[query.limit]);
    if (first) cache.pageStarts.set(pageKey(query.page), first);
    if (next) cache.pageStarts.set(pageKey(query.page + 1), next);
  }
  const records = rows.slice(0, query.limit).map(toEmployeeRecord);
  return { records, total, hasMore: rows.length > query.limit };
}

/**
 * Rows at or after `start` in the sort order: (column, id) >= (value, id), or <= descending. Written
 * as `column >= value AND (column > value OR id >= start id)`: the first condition is a range on
 * the (column, id) index for both SQLite and MySQL. (SQLite scans the whole index for the plain
 * OR of the two cases, MariaDB for a row-value comparison.)
 */
function startingAt(column: string, direction: 'asc' | 'desc', start: PageStart) {
  const [after, atOrAfter] = direction === 'asc' ? ['>', '>='] : ['<', '<='];
  if (column === 'e.id') return (builder: Knex.QueryBuilder) => builder.where('e.id', atOrAfter, start.id);
  return (builder: Knex.QueryBuilder) =>
    builder.where(column, atOrAfter, start.value).andWhere((tie) => tie.where(column, after, start.value).orWhere('e.id', atOrAfter, start.id));
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
    for (const word of query.search.split(/\s+/)) {
      const pattern = `%${word.replace(/[!%_]/g, '!$&')}%`;
      builder.where((any) => {
        for (const column of SEARCH_COLUMNS) any.orWhereRaw(`?? LIKE ? ESCAPE '!'`, [column, pattern]);
      });
    }
  }
  return builder;
}
