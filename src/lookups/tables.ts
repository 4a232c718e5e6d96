import type { Knex } from 'knex';

/** One reference table served under the API (docs/api.md). */
export interface LookupTable {
  /** URL segment, e.g. "job-titles". */
  path: string;
  /** One row in words, for messages: "job title". */
  noun: string;
  table: string;
  /** Primary key on the wire: "id" (a string of digits) or "code" (countries). */
  key: 'id' | 'code';
  /** Selects the columns `toResponse` needs, from `table` aliased as `t`. */
  select(query: Knex.QueryBuilder): Knex.QueryBuilder;
  orderBy: string;
  /** Query parameters (beyond limit/page) that filter the list, mapped to their column. */
  filters: Record<string, string>;
  toResponse(row: Record<string, unknown>): Record<string, unknown>;
}

const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
const amount = (value: unknown) => (value === null || value === undefined ? null : Number(value).toFixed(2));

export const LOOKUP_TABLES: readonly LookupTable[] = [
  {
    path: 'nationalities',
    noun: 'nationality',
    table: 'nationalities',
    key: 'id',
    select: (query) => query.select('t.id', 't.name'),
    orderBy: 't.name',
    filters: {},
    toResponse: (row) => ({ id: String(row.id), name: row.name }),
  },
  {
    path: 'employment-statuses',
    noun: 'employment status',
    table: 'employment_statuses',
    key: 'id',
    select: (query) => query.select('t.id', 't.name', 't.description'),
    orderBy: 't.name',
    filters: {},
    toResponse: (row) => ({ id: String(row.id), name: row.name, description: text(row.description) }),
  },
  {
    path: 'job-titles',
    noun: 'job title',
    table: 'job_titles',
    key: 'id',
    select: (query) => query.select('t.id', 't.code', 't.name', 't.description'),
    orderBy: 't.name',
    filters: {},
    toResponse: (row) => ({ id: String(row.id), code: text(row.code), name: row.name, description: text(row.description) }),
  },
  {
    path: 'pay-grades',
    noun: 'pay grade',
    table: 'pay_grades',
    key: 'id',
    select: (query) => query.select('t.id', 't.name', 't.currency', 't.min_salary', 't.max_salary'),
    orderBy: 't.name',
    filters: {},
    toResponse: (row) => ({
      id: String(row.id),
      name: row.name,
      currency: text(row.currency),
      // Decimal amounts as strings, so no client rounds them through a float.
      min_salary: amount(row.min_salary),
      max_salary: amount(row.max_salary),
    }),
  },
  {
    path: 'departments',
    noun: 'department',
    table: 'departments',
    key: 'id',
    select: (query) =>
      query
        .leftJoin('departments as parent', 'parent.id', 't.parent_id')
        .select('t.id', 't.name', 't.description', 't.parent_id', 'parent.name as parent_name'),
    orderBy: 't.name',
    filters: {},
    toResponse: (row) => ({
      id: String(row.id),
      name: row.name,
      description: text(row.description),
      parent: row.parent_id === null ? null : { type: 'Department', id: String(row.parent_id), display: row.parent_name },
    }),
  },
  {
    path: 'countries',
    noun: 'country',
    table: 'countries',
    key: 'code',
    select: (query) => query.select('t.code', 't.name', 't.iso3', 't.numeric_code'),
    orderBy: 't.name',
    filters: {},
    toResponse: (row) => ({ code: row.code, name: row.name, iso3: row.iso3, numeric_code: row.numeric_code }),
  },
  {
    path: 'provinces',
    noun: 'province',
    table: 'provinces',
    key: 'id',
    select: (query) =>
      query
        .join('countries as c', 'c.code', 't.country_code')
        .select('t.id', 't.code', 't.name', 't.country_code', 'c.name as country_name'),
    orderBy: 't.name',
    filters: { country: 't.country_code' },
    toResponse: (row) => ({
      id: String(row.id),
      code: text(row.code),
      name: row.name,
      country: { type: 'Country', code: row.country_code, display: row.country_name },
    }),
  },
];
