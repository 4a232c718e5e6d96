import type { Knex } from 'knex';
import type { Caller } from '../caller';
import type { Clock } from '../clock';
import { type Db, type Dialect, dialectOf } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import { asListRead } from '../db/statement-time';
import { offsetOf } from '../http/pagination';
import { TtlCache } from '../ttl-cache';
import { whereVisible } from './access';
import { filterOf, type ListEmployeesQuery } from './list-query';
import {
  EMPLOYEE_REFERENCE_FIELDS,
  type EmployeeRecord,
  type EmployeeReferenceField,
  RECORD_COLUMNS,
  recordColumnSql,
  toEmployeeRecord,
} from '../employee-records/record';
import { columnOf, REFERENCE_FIELDS } from '../employee-records/fields';
import { preparedListRead } from '../db/coalesced-reads';
import type { Instance } from '../instances/instance';

/** Columns `search` looks in for everyone: names, the employee code and the work e-mail. */
const SEARCH_COLUMNS = ['e.first_name', 'e.middle_name', 'e.last_name', 'e.employee_id', 'e.work_email'];
/** The identity fields IceHrm also searches: personal, so only where the caller may read them. */
const PERSONAL_SEARCH_COLUMNS = ['e.other_id', 'e.nic_num', 'e.driving_license'];

/** Where a page starts: the sort value and id of its first row. */
export interface PageStart {
  value: string | number;
  id: number;
}

/** Sort fields never NULL, so a page can start "at or after (value, id)". */
const KEYSET_SORT_FIELDS = new Set<string>(['id', 'employee_id', 'first_name', 'last_name', 'updated_at']);
/** Sort fields with an index of (field, id), or the primary key (migrations 0003, 0011). */
const INDEXED_SORT_FIELDS = new Set<string>(['id', 'employee_id', 'first_name', 'last_name', 'joined_date', 'updated_at']);

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

const listCaches = new WeakMap<Instance, EmployeeListCache>();

/** The instance's employee list cache: one per instance, in this module so every writer can forget it. */
export function employeeListCacheOf(instance: Instance): EmployeeListCache {
  let cache = listCaches.get(instance);
  if (!cache) listCaches.set(instance, (cache = new EmployeeListCache(instance.clock)));
  return cache;
}

/** What every path that writes employees calls once its write has committed. */
export function forgetEmployeeLists(instance: Instance): void {
  listCaches.get(instance)?.clear();
}

/**
 * The page of employees the caller may see, whether more follow, and how many there are in all.
 * Every value from the query string is a bound parameter; column names come only from the
 * allow-lists of list-query.ts and this file. Whether a next page exists is always exact (one row more is read); the total
 * may be up to 2 seconds old for changes made by other processes.
 */
export async function listEmployees(
  db: Db,
  caller: Caller,
  query: ListEmployeesQuery,
  cache: EmployeeListCache,
): Promise<{ records: EmployeeRecord[]; read: readonly object[]; total: number; hasMore: boolean }> {
  const dialect = dialectOf(db);
  const matching = (builder: Knex.QueryBuilder) => applyCriteria(whereVisible(builder, caller), query, caller, dialect);
  const direction = query.sortOrder === 'descend' ? 'desc' : 'asc';
  const question = JSON.stringify([caller.role === 'admin' ? 'all' : caller.employeeId, query.filters, query.search, query.updated_since]);
  const pageKey = (page: number) => JSON.stringify([question, query.sortField, direction, query.limit, page]);
  const start = KEYSET_SORT_FIELDS.has(query.sortField) ? cache.pageStarts.get(pageKey(query.page)) : undefined;

  const statement = fastStatementOf(caller, query, start, dialect);
  const rowsQuery = statement
    ? preparedListRead(db, statement.sql, statement.values, toEmployeeRecord)
    : listRowsQuery(db, caller, query, start);
  const count = async () => Number((await asListRead(matching(db('employees as e')).count({ total: '*' })).first())?.total ?? 0);
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
  return { records, read: rows as readonly object[], total, hasMore: rows.length > query.limit };
}

/** Most distinct statements the fast path prepares (per process, so per connection too); others go through Knex. */
const MAX_PREPARED_STATEMENTS = 64;
const preparedTexts = new Set<string>();

/**
 * The statement of the commonest lists, sent past Knex as a prepared statement: an admin's page
 * with no filter, search or updated_since, in an order with an index and with no row to skip
 * (page 1, or a page whose first row is known). Such a page reads only its own rows off the
 * index, and most syncs and screens ask exactly it; undefined for every other list, which the
 * Knex query below reads. Its SQL is the same as that query's (a test holds them to the same
 * rows); building it costs a few string joins instead of a Knex build per request.
 */
export function fastStatementOf(
  caller: Caller,
  query: ListEmployeesQuery,
  start: PageStart | undefined,
  dialect: Dialect,
): { sql: string; values: unknown[] } | undefined {
  if (caller.role !== 'admin' || query.search !== undefined || query.updated_since !== undefined) return undefined;
  if (query.filters && Object.values(query.filters).some((value) => value !== undefined)) return undefined;
  if (!INDEXED_SORT_FIELDS.has(query.sortField) || (!start && query.page !== 1)) return undefined;
  const { columns, references } = listColumns(query);
  const direction = query.sortOrder === 'descend' ? 'desc' : 'asc';
  const sort = `\`e\`.\`${query.sortField}\``;
  let sql = `select ${columns.map((column) => recordColumnSql(column, dialect)).join(', ')}`;
  for (const field of references)
    sql += `, \`e_${field}\`.\`first_name\` as \`${field}__first_name\`, \`e_${field}\`.\`last_name\` as \`${field}__last_name\``;
  sql += ' from `employees` as `e`';
  for (const field of references) {
    sql += ` left join \`employees\` as \`e_${field}\` on \`e_${field}\`.\`id\` = \`e\`.\`${REFERENCE_FIELDS[field].column}\``;
  }
  const values: unknown[] = [];
  if (start) {
    const [after, atOrAfter] = direction === 'asc' ? ['>', '>='] : ['<', '<='];
    if (query.sortField === 'id') sql += ` where \`e\`.\`id\` ${atOrAfter} ?`;
    else sql += ` where ${sort} ${atOrAfter} ? and (${sort} ${after} ? or \`e\`.\`id\` ${atOrAfter} ?)`;
    values.push(...(query.sortField === 'id' ? [start.id] : [start.value, start.value, start.id]));
  }
  sql += ` order by ${sort} ${direction}${query.sortField === 'id' ? '' : `, \`e\`.\`id\` ${direction}`} limit ?`;
  // MySQL 8 refuses a LIMIT sent as a double, which mysql2 makes of every number; text it takes.
  values.push(dialect === 'mysql' ? String(query.limit + 1) : query.limit + 1);
  if (!preparedTexts.has(sql)) {
    if (preparedTexts.size >= MAX_PREPARED_STATEMENTS) return undefined;
    preparedTexts.add(sql);
  }
  return { sql, values };
}

/**
 * The columns a page reads: a record's without fields=, else `id`, the sort column (a page's
 * start is read from it) and those of the named fields; and the employees (supervisor,
 * approvers) whose names are joined in for the named references.
 */
function listColumns(query: ListEmployeesQuery): { columns: string[]; references: EmployeeReferenceField[] } {
  const selection = query.fields;
  if (!selection) return { columns: [...RECORD_COLUMNS], references: [...EMPLOYEE_REFERENCE_FIELDS] };
  const columns = new Set<string>(['id', query.sortField]);
  for (const field of selection.fields) columns.add(field === 'created_at' || field === 'updated_at' ? field : columnOf(field));
  const named = new Set<string>(selection.fields);
  return { columns: [...columns], references: EMPLOYEE_REFERENCE_FIELDS.filter((field) => named.has(field)) };
}

/** An employees query of the columns listColumns names, the referenced employees' names joined. */
function selectListColumns(db: Db, query: ListEmployeesQuery): Knex.QueryBuilder {
  const { columns, references } = listColumns(query);
  const builder = db('employees as e').select(columns.map((column) => `e.${column}`));
  for (const field of references) {
    const joined = `e_${field}`;
    builder
      .leftJoin(`employees as ${joined}`, `${joined}.id`, `e.${REFERENCE_FIELDS[field].column}`)
      .select(`${joined}.first_name as ${field}__first_name`, `${joined}.last_name as ${field}__last_name`);
  }
  return builder;
}

/** The query of a page's rows (one more than the page holds), starting at `start` when known. */
export function listRowsQuery(db: Db, caller: Caller, query: ListEmployeesQuery, start?: PageStart): Knex.QueryBuilder {
  const dialect = dialectOf(db);
  const matching = (builder: Knex.QueryBuilder) => applyCriteria(whereVisible(builder, caller), query, caller, dialect);
  const direction = query.sortOrder === 'descend' ? 'desc' : 'asc';
  const order = [
    { column: `e.${query.sortField}`, order: direction },
    ...(query.sortField === 'id' ? [] : [{ column: 'e.id', order: direction }]),
  ];
  const offset = start ? 0 : offsetOf(query.page, query.limit);
  const page = (builder: Knex.QueryBuilder) => {
    matching(builder)
      .orderBy(order)
      .limit(query.limit + 1);
    return start ? builder.where(startingAt(`e.${query.sortField}`, direction, start)) : builder.offset(offset);
  };
  // With nothing to skip (page 1, or a page whose first row is known) and an index in the sort
  // order, the rows are read in that order and the query stops at the page's end. To skip rows, a
  // deferred join: the page's ids come from the index alone, so skipped rows are never read
  // whole, then only the page's rows are. A sort without an index sorts every matching row; it
  // too sorts ids alone, then reads the page's rows, several times faster than sorting the rows
  // with their joins (docs/performance.md, "Figures behind the code"). Both run under the list
  // statement time limit (LIST_QUERY_TIMEOUT_MS): a sort or search that reads too much is stopped
  // rather than holding a connection.
  return asListRead(
    offset === 0 && INDEXED_SORT_FIELDS.has(query.sortField)
      ? page(selectListColumns(db, query))
      : selectListColumns(db, query)
          .join(page(db('employees as e').select('e.id')).as('page'), 'page.id', 'e.id')
          .orderBy(order),
  );
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
    builder
      .where(column, atOrAfter, start.value)
      .andWhere((tie) => tie.where(column, after, start.value).orWhere('e.id', atOrAfter, start.id));
}

function applyCriteria(builder: Knex.QueryBuilder, query: ListEmployeesQuery, caller: Caller, dialect: Dialect): Knex.QueryBuilder {
  for (const [name, value] of Object.entries(query.filters ?? {})) {
    if (value === undefined) continue;
    const values: unknown[] = Array.isArray(value) ? value : [value];
    const { column, comparison } = filterOf(name);
    if (comparison === 'listed') builder.where((any) => values.forEach((id) => whereListed(any, column, Number(id))));
    // SQLite compares text exactly; MySQL's collation ignores case (and accents). NOCASE makes
    // SQLite ignore ASCII case too, so a filter finds the same rows on both.
    else if (comparison === 'text' && dialect === 'sqlite')
      builder.whereRaw(`?? COLLATE NOCASE IN (${values.map(() => '?').join(', ')})`, [column, ...(values as string[])]);
    else builder.whereIn(column, values as Array<string | number>);
  }
  if (query.updated_since) builder.where('e.updated_at', '>=', toSqlDateTime(query.updated_since));
  if (query.search) {
    // Personal ids are searched only where the caller may read them: every row for admins, their
    // own for others; a manager learns nothing of a report's ids from what a search finds.
    const own = caller.role === 'admin' ? undefined : caller.employeeId;
    const personal = caller.role === 'admin' || own !== null;
    // Every word must appear in one of the columns: "jane doe" finds Jane Doe.
    for (const word of query.search.split(/\s+/)) {
      const pattern = `%${word.replace(/[!%_]/g, '!$&')}%`;
      builder.where((any) => {
        for (const column of SEARCH_COLUMNS) any.orWhereRaw(`?? LIKE ? ESCAPE '!'`, [column, pattern]);
        if (!personal) return;
        any.orWhere((ids) => {
          if (own !== undefined) ids.where('e.id', own);
          ids.where((either) => {
            for (const column of PERSONAL_SEARCH_COLUMNS) either.orWhereRaw(`?? LIKE ? ESCAPE '!'`, [column, pattern]);
          });
        });
      });
    }
  }
  return builder;
}

/**
 * Rows whose id list holds `id`: the API writes '["3","7"]'; an import from IceHrm may have
 * written numbers, '[3,7]'. Either is matched as a whole element, so 3 does not find 13.
 */
function whereListed(builder: Knex.QueryBuilder, column: string, id: number): void {
  for (const pattern of [`%"${id}"%`, `[${id}]`, `[${id},%`, `%,${id},%`, `%,${id}]`]) builder.orWhere(column, 'like', pattern);
}
