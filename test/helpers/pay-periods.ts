import type { TestApp } from './test-app';

/** A locked period, written as the lock writes it (the lock endpoint is not what is tested here). */
export async function lockPeriod(t: TestApp, start: string, end: string): Promise<void> {
  await t.db('pay_period_locks').insert({ period_start: start, period_end: end, locked_at: '2026-11-20 12:00:00.000', locked_by: null });
}

/** An approved timesheet of one employee. */
export async function approveTimesheet(t: TestApp, employeeId: number, start: string, end: string): Promise<void> {
  await t.db('timesheet_approvals').insert({
    employee_id: employeeId,
    period_start: start,
    period_end: end,
    status: 'approved',
    approved_at: '2026-11-20 12:00:00.000',
    approved_by: null,
    updated_at: '2026-11-20 12:00:00.000',
  });
}
