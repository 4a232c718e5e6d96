import type { Caller } from '../caller';
import { type AuditEntry, writeAudits } from '../audit/repository';
import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import { currentNumbersOf, type ReopenReason, sameNumbers } from './approved-numbers';
import type { Period } from '../pay-rules/periods';
import type { GroupRulesBook } from '../pay-rules/classify';
import { readDefaultGroupSettings, readGroupRules } from '../pay-groups/repository';
import type { PayPeriodSettings } from '../pay-rules/settings';
import { type OutboxEvent, recordEvents } from '../webhooks/outbox';

// Sending approved timesheets back to open (docs/pay-periods.md, "Approval is of numbers"):
// after a write that changed their numbers (the guard's reopening), after a change of rules, of an
// employee's pay group or of instance-wide leave inputs. Each reopening is audited and sends
// timesheet.reopened.

/** Who writes, for the audit rows and events of reopened timesheets. */
export interface GuardContext {
  /** None for the CLI (the import) and terminals. */
  caller: Caller | undefined;
  now: Date;
  requestId: string | undefined;
}

/**
 * Sets these approved timesheets back to open (updated_at now, `reopened_reason` `reason`), with
 * an audit row each (action timesheet.reopen) and the event timesheet.reopened, in the write's
 * transaction: those whose numbers now differ from the approved ones (approved-numbers.ts). Call
 * it after the write, so that the numbers compared are the written ones; a change that leaves the
 * numbers as approved (a record moved within its day, its length kept) leaves the approval.
 */
export async function reopenTimesheets(
  trx: Db,
  reopened: ReadonlyArray<{ employeeId: number; periods: readonly Period[] }>,
  context: GuardContext,
  reason: ReopenReason = 'attendance_changed',
): Promise<void> {
  let settings: PayPeriodSettings | undefined;
  let groups: GroupRulesBook | undefined;
  const changed: Array<{ employeeId: number; period: Period }> = [];
  for (const { employeeId, periods } of reopened) {
    for (const period of periods) {
      const row = (await trx('timesheet_approvals')
        .where({ employee_id: employeeId, period_start: period.start, status: 'approved' })
        .first('approved_days')) as { approved_days: string | null } | undefined;
      if (!row) continue;
      if (row.approved_days != null) {
        settings ??= await readDefaultGroupSettings(trx);
        groups ??= await readGroupRules(trx);
        const days = (await currentNumbersOf(trx, [employeeId], period, settings, groups)).get(employeeId) ?? [];
        if (sameNumbers(String(row.approved_days), days)) continue;
      }
      changed.push({ employeeId, period });
    }
  }
  await reopenApproved(trx, changed, context, reason);
}

/**
 * After PUT /pay-periods/settings, in its transaction: the approved timesheets of periods no lock
 * meets whose numbers the new rules change go back to open (`rules_changed`). The numbers are
 * computed over the approval's dates, whatever periods the new layout draws.
 */
export async function reopenForRules(
  trx: Db,
  settings: PayPeriodSettings,
  context: GuardContext,
  scope: { groupId?: number; employeeId?: number } = {},
): Promise<void> {
  // groupId: only the approvals of the employees now in that group (PUT|PATCH /pay-groups/{id}
  // changed its rules); employeeId: only that employee's (moved to another group); neither:
  // everyone's (group 1's settings hold every employee's periods and workweeks).
  const { groupId, employeeId } = scope;
  // The group's locks for a group's approvals (its periods are frozen by its own locks only).
  const lockRows = trx('pay_period_locks').select('period_start', 'period_end');
  if (groupId !== undefined) lockRows.where('group_id', groupId);
  const locks = ((await lockRows) as Array<Record<string, unknown>>).map((row) => ({
    start: String(row.period_start).slice(0, 10),
    end: String(row.period_end).slice(0, 10),
  }));
  const approved = trx('timesheet_approvals as t').where('t.status', 'approved');
  if (groupId !== undefined) approved.join('employees as e', 'e.id', 't.employee_id').where('e.pay_group_id', groupId);
  if (employeeId !== undefined) approved.where('t.employee_id', employeeId);
  const rows = (await approved
    .orderBy(['t.period_start', 't.employee_id'])
    .select('t.employee_id', 't.period_start', 't.period_end', 't.approved_days')) as Array<Record<string, unknown>>;
  const byPeriod = new Map<string, { period: Period; approvals: Array<{ employeeId: number; days: string }> }>();
  for (const row of rows) {
    const period = { start: String(row.period_start).slice(0, 10), end: String(row.period_end).slice(0, 10) };
    // An approval from before approvals kept numbers (approved_days null) is left as rule changes left it then.
    if (row.approved_days == null || locks.some((lock) => lock.start <= period.end && lock.end >= period.start)) continue;
    const key = `${period.start}/${period.end}`;
    if (!byPeriod.has(key)) byPeriod.set(key, { period, approvals: [] });
    byPeriod.get(key)!.approvals.push({ employeeId: Number(row.employee_id), days: String(row.approved_days) });
  }
  const changed: Array<{ employeeId: number; period: Period }> = [];
  const groups = await readGroupRules(trx);
  for (const { period, approvals } of byPeriod.values()) {
    for (let at = 0; at < approvals.length; at += 500) {
      const batch = approvals.slice(at, at + 500);
      const current = await currentNumbersOf(
        trx,
        batch.map((approval) => approval.employeeId),
        period,
        settings,
        groups,
      );
      for (const approval of batch)
        if (!sameNumbers(approval.days, current.get(approval.employeeId) ?? [])) changed.push({ employeeId: approval.employeeId, period });
    }
  }
  await reopenApproved(trx, changed, context, 'rules_changed');
}

/**
 * After PUT|PATCH /pay-groups/{id} changed the group's rules, in its transaction: reopenForRules
 * for the employees of that group, each classified under their group's settings and rules (a
 * group's settings, group 1's included, are its own employees' periods and workweeks only).
 */
export async function reopenForGroupRules(trx: Db, groupId: number, context: GuardContext, _settingsChanged: boolean): Promise<void> {
  const settings = await readDefaultGroupSettings(trx);
  await reopenForRules(trx, settings, context, { groupId });
}

/**
 * After an employee moved to another pay group (PATCH|PUT /employees/{id} `pay_group`), in its
 * transaction: their approved timesheets of open periods whose numbers the new group's rules
 * change reopen (`rules_changed`), as a change of the group's rules would.
 */
export async function reopenForGroupMove(
  trx: Db,
  employeeId: number,
  context: GuardContext,
  move?: { from: number; to: number },
): Promise<void> {
  if (move && move.from !== move.to) await moveApprovals(trx, employeeId, move);
  const settings = await readDefaultGroupSettings(trx);
  await reopenForRules(trx, settings, context, { employeeId });
}

/** Which approved timesheets a change of instance-wide leave inputs (holidays, leave settings, a leave type) may move. */
export interface ApprovalScope {
  /** Only timesheets whose period meets from..to (dates 'YYYY-MM-DD'); either bound may be left open. */
  from?: string;
  to?: string;
  /** Only the employees of this country (a holiday of one country); undefined: everyone. */
  country?: string;
  /** Only these employees. */
  employeeIds?: readonly number[];
}

/**
 * The approved timesheets in `scope` of periods no lock of their group meets, oldest period first:
 * those a change of leave or holiday hours may send back to open (a locked period keeps the hours
 * frozen at its lock, and its approvals with them).
 */
export async function approvedOpenTimesheets(trx: Db, scope: ApprovalScope): Promise<Array<{ employeeId: number; period: Period }>> {
  if (scope.employeeIds?.length === 0) return [];
  const query = trx('timesheet_approvals as t').where('t.status', 'approved');
  if (scope.from !== undefined) query.where('t.period_end', '>=', scope.from);
  if (scope.to !== undefined) query.where('t.period_start', '<=', scope.to);
  if (scope.country !== undefined) query.join('employees as e', 'e.id', 't.employee_id').where('e.country_code', scope.country);
  if (scope.employeeIds !== undefined) query.whereIn('t.employee_id', [...scope.employeeIds]);
  query.whereNotExists(
    trx('pay_period_locks as k')
      .whereRaw('k.group_id = t.group_id')
      .whereRaw('k.period_start <= t.period_end')
      .whereRaw('k.period_end >= t.period_start')
      .select(trx.raw('1')),
  );
  const rows = (await query
    .orderBy(['t.period_start', 't.employee_id'])
    .select('t.employee_id', 't.period_start', 't.period_end')) as Array<Record<string, unknown>>;
  return rows.map((row) => ({
    employeeId: Number(row.employee_id),
    period: { start: String(row.period_start).slice(0, 10), end: String(row.period_end).slice(0, 10) },
  }));
}

/**
 * A moved employee's approvals go with them (a timesheet is of the employee's group), but those of
 * periods locked in the group they leave, which stay with that lock. One the new group held from
 * an earlier stay for the same start is replaced.
 */
async function moveApprovals(trx: Db, employeeId: number, { from, to }: { from: number; to: number }): Promise<void> {
  const lockedStarts = trx('pay_period_locks').where('group_id', from).select('period_start');
  const moving = trx('timesheet_approvals').where({ employee_id: employeeId, group_id: from }).whereNotIn('period_start', lockedStarts);
  const starts = ((await moving.clone().pluck('period_start')) as unknown[]).map((start) => String(start).slice(0, 10));
  if (starts.length === 0) return;
  await trx('timesheet_approvals').where({ employee_id: employeeId, group_id: to }).whereIn('period_start', starts).delete();
  await moving.update({ group_id: to });
}

/** The approved timesheets set back to open, audited, each with its event timesheet.reopened. */
export async function reopenApproved(
  trx: Db,
  reopened: ReadonlyArray<{ employeeId: number; period: Period }>,
  context: GuardContext,
  why: ReopenReason,
): Promise<void> {
  const audits: AuditEntry[] = [];
  const events: OutboxEvent[] = [];
  const now = toSqlDateTime(context.now);
  for (const { employeeId, period } of reopened) {
    const changed = await trx('timesheet_approvals')
      .where({ employee_id: employeeId, period_start: period.start, status: 'approved' })
      .update({ status: 'open', reopened_reason: why, updated_at: now });
    if (Number(changed) === 0) continue;
    audits.push({
      action: 'timesheet.reopen',
      entityType: 'timesheet',
      entityId: employeeId,
      employeeId,
      fields: ['status'],
      changes: {
        status: { from: 'approved', to: 'open' },
        // The timesheet is the employee's (entity_id) for this period: unchanged, named here.
        period_start: { from: period.start, to: period.start },
      },
    });
    events.push(timesheetReopenedEvent(employeeId, period, context.now, why));
  }
  if (audits.length === 0) return;
  await writeAudits(trx, audits, context);
  await recordEvents(trx, events);
}

function timesheetReopenedEvent(employeeId: number, period: Period, occurredAt: Date, why: ReopenReason): OutboxEvent {
  return {
    type: 'timesheet.reopened',
    resourceId: employeeId,
    occurredAt,
    data: () => ({
      employee: String(employeeId),
      period_start: period.start,
      period_end: period.end,
      status: 'open',
      reason: why,
    }),
  };
}
