import type { Knex } from 'knex';

/**
 * Leave and holidays (CONTRACT 6.8, docs/leave.md):
 * - `leave_types`: the kinds of leave; `code` is the export code of a paid type (PTO by default).
 * - `leaves`: one request for a range of dates, its status and who decided it; `version` counts
 *   its changes (part of nothing but the ETag's state, which is the read shape).
 * - `leave_days`: the days a leave takes, each with its portion. `live_employee_id` holds the
 *   employee while the leave is pending or approved and null once it is rejected or cancelled: the
 *   unique key on (live_employee_id, date) is what keeps two live leaves of one employee off the
 *   same date, whatever the concurrency (NULLs never collide, as attendance.open_employee_id).
 * - `holidays`: dated public holidays; `country` null applies to everyone. An import's rows are
 *   unique by (country, date, name), so a second import adds nothing.
 * - `deleted_leaves`: the tombstones of GET /leaves/deleted, as deleted_attendance.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('leave_types', (table) => {
    table.increments('id');
    table.string('name', 100).notNullable().unique();
    table.boolean('paid').notNullable();
    table.string('code', 50).nullable();
    table.boolean('private').notNullable();
    table.boolean('include_holidays').notNullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('updated_at', { precision: 3 }).notNullable();
  });
  await knex.schema.createTable('leaves', (table) => {
    table.increments('id');
    table.integer('employee_id').unsigned().notNullable().references('id').inTable('employees').onDelete('CASCADE');
    table.integer('leave_type_id').unsigned().notNullable().references('id').inTable('leave_types');
    table.date('start_date').notNullable();
    table.date('end_date').notNullable();
    table.string('status', 16).notNullable();
    table.text('note').nullable();
    table.integer('decided_by').unsigned().nullable();
    table.datetime('decided_at', { precision: 3 }).nullable();
    table.integer('version').unsigned().notNullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('updated_at', { precision: 3 }).notNullable();
    table.index(['employee_id', 'start_date']);
    table.index(['start_date']);
  });
  await knex.schema.createTable('leave_days', (table) => {
    table.integer('leave_id').unsigned().notNullable().references('id').inTable('leaves').onDelete('CASCADE');
    table.date('date').notNullable();
    table.string('portion', 8).notNullable();
    table.decimal('hours', 5, 2).nullable();
    table.integer('live_employee_id').unsigned().nullable();
    table.primary(['leave_id', 'date']);
    table.unique(['live_employee_id', 'date'], { indexName: 'leave_days_live_employee_date_unique' });
  });
  await knex.schema.createTable('holidays', (table) => {
    table.increments('id');
    table.date('date').notNullable();
    table.string('name', 150).notNullable();
    table.string('portion', 8).notNullable();
    table.string('country', 2).nullable();
    table.boolean('paid').notNullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.unique(['country', 'date', 'name'], { indexName: 'holidays_country_date_name_unique' });
    table.index(['date']);
  });
  await knex.schema.createTable('deleted_leaves', (table) => {
    table.increments('id');
    table.integer('leave_id').unsigned().notNullable();
    table.integer('employee_id').unsigned().notNullable();
    table.integer('supervisor_id').unsigned().nullable();
    table.datetime('deleted_at', { precision: 3 }).notNullable();
    table.index(['deleted_at', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('deleted_leaves');
  await knex.schema.dropTable('holidays');
  await knex.schema.dropTable('leave_days');
  await knex.schema.dropTable('leaves');
  await knex.schema.dropTable('leave_types');
}
