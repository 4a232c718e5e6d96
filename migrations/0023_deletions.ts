import type { Knex } from 'knex';

/**
 * What a copy kept in sync needs to follow every change (docs/api.md, "Keeping a copy in sync"):
 * - `deleted_employees` and `deleted_attendance`: one row (a tombstone) per deleted employee and
 *   per deleted attendance record, those an employee's deletion takes with it included, for the
 *   deletion feeds (`GET /employees/deleted`, `GET /attendance/deleted`). The row is gone, so each
 *   keeps who could see it at the deletion: the employee and their supervisor then. Kept at least
 *   90 days (src/maintenance/purge.ts). Their own surrogate key: an import may bring an employee
 *   back under an id that was deleted once, and deleted again.
 * - `attendance.updated_at` indexed: `GET /attendance?updated_since=` reads the records changed
 *   since a sync's last run, a few among millions.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('deleted_employees', (table) => {
    table.increments('id');
    table.integer('employee_id').unsigned().notNullable();
    table.string('employee_code', 50).notNullable();
    table.integer('supervisor_id').unsigned().nullable();
    table.datetime('deleted_at', { precision: 3 }).notNullable();
    table.index(['deleted_at', 'id']);
  });
  await knex.schema.createTable('deleted_attendance', (table) => {
    table.increments('id');
    table.integer('attendance_id').unsigned().notNullable();
    table.integer('employee_id').unsigned().notNullable();
    table.integer('supervisor_id').unsigned().nullable();
    table.datetime('deleted_at', { precision: 3 }).notNullable();
    table.index(['deleted_at', 'id']);
  });
  await knex.schema.alterTable('attendance', (table) => table.index(['updated_at']));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('attendance', (table) => table.dropIndex(['updated_at']));
  await knex.schema.dropTable('deleted_attendance');
  await knex.schema.dropTable('deleted_employees');
}
