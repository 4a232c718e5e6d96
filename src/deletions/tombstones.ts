import type { Knex } from 'knex';
import { z } from 'zod';
import type { Caller } from '../caller';
import type { Db } from '../db/connect';
import { sqlDateTimeToIso, toSqlDateTime } from '../db/sql-time';
import { instant } from '../http/field-schemas';
import { offsetOf, paginationFields, toPageJson } from '../http/pagination';

// The deletion feeds (docs/api.md, "Keeping a copy in sync"): a row (a tombstone) per deleted
// employee and attendance record (migration 0023), written in the deleting transaction, read by
// GET /employees/deleted and GET /attendance/deleted. The deleted row is gone, so a tombstone
// keeps who could see it when it went: the employee, and their supervisor at that moment.

/** The query of both feeds: `since` is required (a first sync reads the live lists instead). */
export const deletionFeedQuery = z.strictObject({
  since: instant.meta({
    description: 'Deletions at or after this instant (ISO-8601 with a zone); at least the last 90 days are kept',
    example: '2026-03-01T00:00:00Z',
  }),
  ...paginationFields({ defaultLimit: 50, maxLimit: 200 }),
});
export type DeletionFeedQuery = z.output<typeof deletionFeedQuery>;

/**
 * Tombstones for the attendance records `which` selects (a query over `attendance as a`: by ids,
 * or all of one employee's) before they are deleted, in one INSERT ... SELECT however many.
 */
async function recordAttendanceDeletionsWhere(trx: Db, which: (records: Knex.QueryBuilder) => Knex.QueryBuilder, now: Date): Promise<void> {
  const selected = which(
    trx('attendance as a')
      .join('employees as e', 'e.id', 'a.employee_id')
      .select('a.id', 'a.employee_id', 'e.supervisor_id', trx.raw('? as deleted_at', [toSqlDateTime(now)])),
  );
  const { sql, bindings } = selected.toSQL();
  await trx.raw(`insert into deleted_attendance (attendance_id, employee_id, supervisor_id, deleted_at) ${sql}`, bindings);
}

/** Tombstones for these attendance records, read before they are deleted (in the same transaction). */
export async function recordAttendanceDeletions(trx: Db, ids: readonly number[], now: Date): Promise<void> {
  for (let start = 0; start < ids.length; start += 500) {
    const chunk = ids.slice(start, start + 500);
    await recordAttendanceDeletionsWhere(trx, (records) => records.whereIn('a.id', chunk), now);
  }
}

/**
 * Tombstones for an employee about to be deleted and for every attendance record, leave and shift of theirs the
 * deletion takes with it (the foreign key cascades, and no other statement sees those records go).
 */
export async function recordEmployeeDeletion(
  trx: Db,
  employee: { id: number; employee_id: string; supervisor_id: number | null },
  now: Date,
): Promise<void> {
  await recordAttendanceDeletionsWhere(trx, (records) => records.where('a.employee_id', employee.id), now);
  // Their leaves go with them too (the foreign key cascades): GET /leaves/deleted lists them.
  const leaves = trx('leaves')
    .where('employee_id', employee.id)
    .select('id', 'employee_id', trx.raw('? as supervisor_id', [employee.supervisor_id]), trx.raw('? as deleted_at', [toSqlDateTime(now)]))
    .toSQL();
  await trx.raw(`insert into deleted_leaves (leave_id, employee_id, supervisor_id, deleted_at) ${leaves.sql}`, leaves.bindings);
  // Their shifts go with them too (foreign key): GET /shifts/deleted lists them.
  const shifts = trx('shifts')
    .where('employee_id', employee.id)
    .select('id', 'employee_id', trx.raw('? as supervisor_id', [employee.supervisor_id]), trx.raw('? as deleted_at', [toSqlDateTime(now)]));
  const { sql, bindings } = shifts.toSQL();
  await trx.raw(`insert into deleted_shifts (shift_id, employee_id, supervisor_id, deleted_at) ${sql}`, bindings);
  await trx('deleted_employees').insert({
    employee_id: employee.id,
    employee_code: employee.employee_id,
    supervisor_id: employee.supervisor_id,
    deleted_at: toSqlDateTime(now),
  });
}

/**
 * The tombstones the caller may see: admins all; managers those of themselves and of the
 * employees whose supervisor they were at the deletion; employees their own.
 */
function whereVisibleTombstone(query: Knex.QueryBuilder, caller: Caller): Knex.QueryBuilder {
  if (caller.role === 'admin') return query;
  const self = caller.employeeId ?? 0; // a user without an employee sees none
  if (caller.role === 'employee') return query.where('employee_id', self);
  return query.where((visible) => visible.where('employee_id', self).orWhere('supervisor_id', self));
}

/** One page of a feed, oldest first, as JSON text ({data, total, nextPage}). */
async function feedPage(
  db: Db,
  table: 'deleted_employees' | 'deleted_attendance' | 'deleted_leaves',
  columns: string[],
  toJson: (row: Record<string, unknown>) => string,
  caller: Caller,
  query: DeletionFeedQuery,
): Promise<string> {
  const matching = () => whereVisibleTombstone(db(table).where('deleted_at', '>=', toSqlDateTime(query.since)), caller);
  const offset = offsetOf(query.page, query.limit);
  const rows = (await matching()
    .select(columns)
    .orderBy([
      { column: 'deleted_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])
    .limit(query.limit + 1)
    .offset(offset)) as Array<Record<string, unknown>>;
  const hasMore = rows.length > query.limit;
  // A page that is not empty and has no next one is the last: its rows tell the total.
  let total = offset + rows.length;
  if (hasMore || (rows.length === 0 && offset > 0)) {
    const counted = (await matching().count({ total: '*' }).first()) as { total: number | string } | undefined;
    total = Number(counted?.total ?? 0);
  }
  return toPageJson(rows.slice(0, query.limit).map(toJson), total, query.page, hasMore);
}

/** GET /employees/deleted: `{"id", "employee_id", "deleted_at"}` per deleted employee. */
export function deletedEmployeesPage(db: Db, caller: Caller, query: DeletionFeedQuery): Promise<string> {
  return feedPage(
    db,
    'deleted_employees',
    ['id', 'employee_id', 'employee_code', 'deleted_at'],
    (row) =>
      JSON.stringify({
        id: String(row.employee_id),
        employee_id: String(row.employee_code),
        deleted_at: sqlDateTimeToIso(String(row.deleted_at)),
      }),
    caller,
    query,
  );
}

/** GET /attendance/deleted: `{"id", "deleted_at"}` per deleted attendance record. */
export function deletedAttendancePage(db: Db, caller: Caller, query: DeletionFeedQuery): Promise<string> {
  return feedPage(
    db,
    'deleted_attendance',
    ['id', 'attendance_id', 'deleted_at'],
    (row) => JSON.stringify({ id: String(row.attendance_id), deleted_at: sqlDateTimeToIso(String(row.deleted_at)) }),
    caller,
    query,
  );
}

/** GET /leaves/deleted: `{"id", "deleted_at"}` per deleted leave (src/leave/). */
export function deletedLeavesPage(db: Db, caller: Caller, query: DeletionFeedQuery): Promise<string> {
  return feedPage(
    db,
    'deleted_leaves',
    ['id', 'leave_id', 'deleted_at'],
    (row) => JSON.stringify({ id: String(row.leave_id), deleted_at: sqlDateTimeToIso(String(row.deleted_at)) }),
    caller,
    query,
  );
}
