import type { Db } from '../db/connect';
import { type ApprovalScope, approvedOpenTimesheets, type GuardContext, reopenApproved } from '../period-guard/reopen';
import type { ReopenReason } from '../period-guard/approved-numbers';
import type { Period } from '../pay-rules/periods';
import { readLeaveHours } from './days';

// Approval is of numbers (CONTRACT 6.5): a change of holidays, of the leave settings or of a leave
// type that moves an approved timesheet's leave or holiday hours sends it back to open, as a
// change of the pay rules does for worked hours. Locked periods keep the hours frozen at their lock.

/** Employees per read of leave hours. */
const BATCH = 500;

/** Each approval's leave and holiday hours as text, in the order given (per period, one read per batch). */
async function leaveHoursOfApprovals(trx: Db, approvals: ReadonlyArray<{ employeeId: number; period: Period }>): Promise<string[]> {
  const byPeriod = new Map<string, { period: Period; indexes: number[] }>();
  approvals.forEach(({ period }, index) => {
    const key = `${period.start}/${period.end}`;
    if (!byPeriod.has(key)) byPeriod.set(key, { period, indexes: [] });
    byPeriod.get(key)!.indexes.push(index);
  });
  const hours: string[] = [];
  for (const { period, indexes } of byPeriod.values()) {
    for (let at = 0; at < indexes.length; at += BATCH) {
      const batch = indexes.slice(at, at + BATCH);
      const read = await readLeaveHours(
        trx,
        batch.map((index) => approvals[index]!.employeeId),
        period.start,
        period.end,
      );
      for (const index of batch) hours[index] = JSON.stringify(read.get(approvals[index]!.employeeId) ?? []);
    }
  }
  return hours;
}

/**
 * Runs `write` (in the caller's transaction) between two readings of the leave and holiday hours
 * of the approved timesheets of open periods in `scope`; those whose hours it moved go back to open
 * with `reason`, audited, each with one event timesheet.reopened. Answers what `write` answered.
 */
export async function reopenWhereLeaveHoursMove<T>(
  trx: Db,
  scope: ApprovalScope,
  context: GuardContext,
  reason: ReopenReason,
  write: () => Promise<T>,
): Promise<T> {
  const approvals = await approvedOpenTimesheets(trx, scope);
  const before = await leaveHoursOfApprovals(trx, approvals);
  const result = await write();
  const after = await leaveHoursOfApprovals(trx, approvals);
  await reopenApproved(
    trx,
    approvals.filter((_approval, index) => before[index] !== after[index]),
    context,
    reason,
  );
  return result;
}
