import type { Knex } from 'knex';

/**
 * Approval of numbers and lock versions (docs/pay-periods.md, "Approving", "Adjustments after a
 * re-lock"; CONTRACT 6.5):
 * - `timesheet_approvals.approved_days`: the numbers an approval approved (each date's worked,
 *   regular, overtime and double-time seconds, JSON); a timesheet stays approved only while its
 *   numbers equal them. Null for approvals given before this migration: any change reopens those.
 *   `reopened_reason`: why an approved timesheet is open again (`reopened`, `attendance_changed`,
 *   `rules_changed`).
 * - `pay_period_locks.lock_version`: 1 for a period's first lock, 2 for the lock after an unlock…
 * - `pay_period_lock_versions`: every lock of a period, the current one included (its version,
 *   dates, time and who), so versions keep counting after an unlock.
 * - `pay_period_version_snapshots`: the snapshots of the earlier locks of a period, kept when it
 *   is unlocked (the current lock's stay in pay_period_snapshots), so an export can answer the
 *   difference between a version and the current lock.
 * The new tables carry `group_id` (default 1, the `Default` pay group) in their keys.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('timesheet_approvals', (table) => {
    table.text('approved_days', 'mediumtext').nullable();
    table.string('reopened_reason', 40).nullable();
  });
  await knex.schema.alterTable('pay_period_locks', (table) => {
    table.integer('lock_version').unsigned().notNullable().defaultTo(1);
  });
  await knex.schema.createTable('pay_period_lock_versions', (table) => {
    table.integer('group_id').unsigned().notNullable().defaultTo(1);
    table.date('period_start').notNullable();
    table.integer('lock_version').unsigned().notNullable();
    table.date('period_end').notNullable();
    table.datetime('locked_at', { precision: 3 }).notNullable();
    table.string('locked_by_name', 100).nullable();
    table.primary(['group_id', 'period_start', 'lock_version']);
  });
  await knex.schema.createTable('pay_period_version_snapshots', (table) => {
    table.integer('group_id').unsigned().notNullable().defaultTo(1);
    table.date('period_start').notNullable();
    table.integer('lock_version').unsigned().notNullable();
    table.integer('employee_id').unsigned().notNullable();
    table.string('employee_code', 50).notNullable();
    table.string('timesheet_status', 10).notNullable();
    table.text('days', 'mediumtext').notNullable();
    table.text('employee_fields', 'mediumtext').nullable();
    table.primary(['group_id', 'period_start', 'lock_version', 'employee_id']);
  });
  // The locks taken before: version 1 each.
  const locks = (await knex('pay_period_locks')
    .where('state', 'locked')
    .select('period_start', 'period_end', 'locked_at', 'locked_by_name')) as Array<Record<string, unknown>>;
  for (const lock of locks) {
    await knex('pay_period_lock_versions').insert({
      group_id: 1,
      period_start: String(lock.period_start).slice(0, 10),
      lock_version: 1,
      period_end: String(lock.period_end).slice(0, 10),
      locked_at: lock.locked_at,
      locked_by_name: lock.locked_by_name ?? null,
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('pay_period_version_snapshots');
  await knex.schema.dropTable('pay_period_lock_versions');
  await knex.schema.alterTable('pay_period_locks', (table) => {
    table.dropColumn('lock_version');
  });
  await knex.schema.alterTable('timesheet_approvals', (table) => {
    table.dropColumn('reopened_reason');
    table.dropColumn('approved_days');
  });
}
