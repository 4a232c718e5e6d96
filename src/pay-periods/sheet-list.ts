import type { z } from 'zod';
import type { Caller } from '../caller';
import { EmployeeListCache } from '../employees/list';
import { offsetOf, toPage } from '../http/pagination';
import type { Instance } from '../instances/instance';
import { settingsAndPeriod } from './periods';
import type { timesheetListQuery } from './schemas';
import { listSheets, sheetResponse } from './timesheets';

const sheetTotals = new WeakMap<Instance, EmployeeListCache>();

/**
 * Per instance, the totals of recent timesheet lists, kept 2 seconds as the employee list keeps
 * its own (docs/pay-periods.md, "Timesheets"): counting the employees of a period is most of a
 * page's database time. Whether a next page exists is always exact.
 */
function sheetTotalsOf(instance: Instance): EmployeeListCache {
  let cache = sheetTotals.get(instance);
  if (!cache) sheetTotals.set(instance, (cache = new EmployeeListCache(instance.clock)));
  return cache;
}

/** After a write that may change a list's total (an approval, a lock, the settings). */
export function forgetSheetTotals(instance: Instance): void {
  sheetTotalsOf(instance).clear();
}

/** GET /timesheets: a page of a pay group's period's timesheets of everyone of the group `caller` may see. */
export async function timesheetPage(
  instance: Instance,
  caller: Caller,
  query: z.infer<typeof timesheetListQuery>,
): Promise<ReturnType<typeof toPage<Record<string, unknown>>>> {
  const { settings, period } = await settingsAndPeriod(instance.db, query.group, query.period);
  const criteria = {
    visibleTo: caller,
    groupId: query.group,
    employeeId: query.employee,
    departmentId: query.department,
    status: query.status,
  };
  // What the total depends on: the same question within 2 seconds reuses the count.
  const question = JSON.stringify([
    query.group,
    period.start,
    period.status,
    caller.role === 'admin' ? 'all' : [caller.role, caller.employeeId],
    query.employee,
    query.department,
    query.status,
  ]);
  const { sheets, total, hasMore } = await listSheets(
    instance.db,
    period,
    settings,
    criteria,
    { limit: query.limit, offset: offsetOf(query.page, query.limit) },
    (count) => sheetTotalsOf(instance).total(question, count),
  );
  return toPage(
    sheets.map((sheet) => sheetResponse(sheet, period, false)),
    total,
    query.page,
    query.limit,
    hasMore,
  );
}
