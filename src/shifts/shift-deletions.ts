import type { Caller } from '../caller';
import type { Db } from '../db/connect';
import { sqlDateTimeToIso, toSqlDateTime } from '../db/sql-time';
import type { DeletionFeedQuery } from '../deletions/tombstones';
import { offsetOf, toPageJson } from '../http/pagination';

// GET /shifts/deleted?since= (CONTRACT 6.4, 6.7): the tombstones of deleted shifts, oldest first,
// with the visibility of the live shifts at the deletion: admins all; open shifts everyone;
// a shift its employee and the employee's supervisor then.

export async function deletedShiftsPage(db: Db, caller: Caller, query: DeletionFeedQuery): Promise<string> {
  const matching = () => {
    const rows = db('deleted_shifts').where('deleted_at', '>=', toSqlDateTime(query.since));
    if (caller.role === 'admin') return rows;
    const self = caller.employeeId ?? 0;
    return rows.where((visible) => {
      visible.whereNull('employee_id').orWhere('employee_id', self);
      if (caller.role === 'manager') visible.orWhere('supervisor_id', self);
    });
  };
  const offset = offsetOf(query.page, query.limit);
  const rows = (await matching()
    .orderBy([
      { column: 'deleted_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])
    .limit(query.limit + 1)
    .offset(offset)
    .select('shift_id', 'deleted_at')) as Array<{ shift_id: number; deleted_at: string }>;
  const hasMore = rows.length > query.limit;
  const counted = (await matching().count({ n: '*' }).first()) as { n: number | string } | undefined;
  const items = rows
    .slice(0, query.limit)
    .map((row) => JSON.stringify({ id: String(row.shift_id), deleted_at: sqlDateTimeToIso(String(row.deleted_at)) }));
  return toPageJson(items, Number(counted?.n ?? 0), query.page, hasMore);
}
