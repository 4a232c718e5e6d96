import type { Knex } from 'knex';

/**
 * Work schedules (CONTRACT 6.7, docs/schedules.md):
 * - `shift_types`: named templates whose values are copied into a shift when it is created.
 * - `shifts`: local start and end (`YYYY-MM-DDTHH:MM`) in an IANA zone, with the instants derived
 *   from them when written (start_utc, end_utc), so lists and overlap checks compare instants.
 *   `employee_id` null is an open shift. `rotation_id` and `date` are unique together: a
 *   rotation generates a date's shift exactly once, whatever runs the generation (NULLs never
 *   collide, so hand-made shifts are free). `edited` marks a shift someone changed by hand (a
 *   rotation leaves it alone); `version` counts changes (a calendar feed's SEQUENCE).
 * - `deleted_shifts`: the deletion feed's tombstones (GET /shifts/deleted), as deleted_attendance.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('shift_types', (table) => {
    table.increments('id');
    table.string('name', 100).notNullable().unique();
    table.string('start_time', 5).notNullable();
    table.string('end_time', 5).notNullable();
    table.integer('unpaid_break_minutes').unsigned().notNullable();
    table.integer('late_grace_minutes').unsigned().notNullable();
    table.integer('early_exit_grace_minutes').unsigned().notNullable();
    table.integer('check_in_window_minutes').unsigned().notNullable();
    table.integer('check_out_window_minutes').unsigned().notNullable();
    table.decimal('half_day_below_hours', 5, 2).nullable();
    table.decimal('absent_below_hours', 5, 2).nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('updated_at', { precision: 3 }).notNullable();
  });
  await knex.schema.createTable('shifts', (table) => {
    table.increments('id');
    table.integer('employee_id').unsigned().nullable().references('id').inTable('employees').onDelete('CASCADE');
    table.integer('shift_type_id').unsigned().nullable().references('id').inTable('shift_types').onDelete('SET NULL');
    table.date('date').notNullable();
    table.string('start_local', 16).notNullable();
    table.string('end_local', 16).notNullable();
    table.string('timezone', 64).notNullable();
    table.datetime('start_utc').notNullable();
    table.datetime('end_utc').notNullable();
    table.integer('unpaid_break_minutes').unsigned().notNullable();
    table.integer('late_grace_minutes').unsigned().notNullable();
    table.integer('early_exit_grace_minutes').unsigned().notNullable();
    table.integer('check_in_window_minutes').unsigned().notNullable();
    table.integer('check_out_window_minutes').unsigned().notNullable();
    table.decimal('half_day_below_hours', 5, 2).nullable();
    table.decimal('absent_below_hours', 5, 2).nullable();
    table.string('status', 10).notNullable();
    table.integer('rotation_id').unsigned().nullable();
    table.boolean('edited').notNullable().defaultTo(false);
    table.integer('version').unsigned().notNullable();
    table.text('notes').nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('updated_at', { precision: 3 }).notNullable();
    table.index(['employee_id', 'start_utc']);
    table.index(['date']);
    table.index(['updated_at']);
    table.unique(['rotation_id', 'date']);
  });
  await knex.schema.createTable('deleted_shifts', (table) => {
    table.increments('id');
    table.integer('shift_id').unsigned().notNullable();
    table.integer('employee_id').unsigned().nullable();
    table.integer('supervisor_id').unsigned().nullable();
    table.datetime('deleted_at', { precision: 3 }).notNullable();
    table.index(['deleted_at', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('deleted_shifts');
  await knex.schema.dropTable('shifts');
  await knex.schema.dropTable('shift_types');
}
