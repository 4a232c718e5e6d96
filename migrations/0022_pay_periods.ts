import type { Knex } from 'knex';

/**
 * Pay periods (docs/pay-periods.md). Their layout and overtime rules are one row of `settings`
 * (`pay_periods`, JSON); periods themselves are computed from it, and only what happens to one is
 * stored:
 * - `pay_period_locks`: a locked period, with the dates it covered when it was locked. Attendance
 *   writes read it after locking their employee's row; the lock writes every employee's row first,
 *   so on one server and on a Galera cluster a write either commits before the lock or sees it.
 *   `state` is `locking` from the lock's first, short transaction (writes are refused from then
 *   on) until the second one has frozen the numbers: `locked`.
 * - `pay_period_snapshots`: each employee's numbers at the lock (frozen: settings and time-zone
 *   changes do not move them), one row per employee with its days as JSON.
 * - `timesheet_approvals`: an employee's timesheet for a period, when approved (or approved once
 *   and reopened since).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('pay_period_locks', (table) => {
    table.date('period_start').primary();
    table.date('period_end').notNullable();
    table.datetime('locked_at', { precision: 3 }).notNullable();
    table.integer('locked_by').unsigned().nullable();
    table.string('locked_by_name', 100).nullable();
    table.string('state', 10).notNullable().defaultTo('locked');
    table.index(['period_end', 'period_start']);
  });
  await knex.schema.createTable('pay_period_snapshots', (table) => {
    table.date('period_start').notNullable().references('period_start').inTable('pay_period_locks').onDelete('CASCADE');
    table.integer('employee_id').unsigned().notNullable();
    table.string('employee_code', 50).notNullable();
    table.string('timesheet_status', 10).notNullable();
    table.integer('open_records').notNullable();
    table.text('days', 'mediumtext').notNullable();
    table.primary(['period_start', 'employee_id']);
    table.index(['period_start', 'employee_code']);
  });
  await knex.schema.createTable('timesheet_approvals', (table) => {
    table.integer('employee_id').unsigned().notNullable().references('id').inTable('employees').onDelete('CASCADE');
    table.date('period_start').notNullable();
    table.date('period_end').notNullable();
    table.string('status', 10).notNullable();
    table.datetime('approved_at', { precision: 3 }).nullable();
    table.integer('approved_by').unsigned().nullable();
    table.integer('approved_by_employee').unsigned().nullable();
    table.string('approved_by_name', 100).nullable();
    table.datetime('updated_at', { precision: 3 }).notNullable();
    table.primary(['employee_id', 'period_start']);
    table.index(['period_start', 'status']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('timesheet_approvals');
  await knex.schema.dropTable('pay_period_snapshots');
  await knex.schema.dropTable('pay_period_locks');
}
