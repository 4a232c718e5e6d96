import type { Knex } from 'knex';

/**
 * Payroll files that import as they are (docs/pay-periods.md, "Export profiles"):
 * - `employees.payroll_id`: the id the payroll system knows the person by; unique when set and,
 *   as MySQL's collation compares it, regardless of case on both dialects (as attendance_device_id).
 * - `export_profiles`: the profiles admins made; the built-in templates live in the code. A
 *   profile's definition is one JSON text (its columns, codes, constants and format), written
 *   whole by POST and PUT; `version` counts its changes and is part of the export's ETag.
 * - `pay_period_snapshots.employee_fields`: the employee's names and ids at the lock (JSON), so a
 *   locked period's file stays byte-identical in every profile when a name changes later. Locks
 *   taken before this migration hold null and read the employee's current values.
 */
export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  await knex.schema.alterTable('employees', (table) => {
    if (mysql) table.string('payroll_id', 64).nullable().unique();
    else table.specificType('payroll_id', 'varchar(64) COLLATE NOCASE').nullable().unique();
  });
  await knex.schema.createTable('export_profiles', (table) => {
    table.increments('id');
    table.string('name', 100).notNullable().unique();
    table.text('definition').notNullable();
    table.integer('version').unsigned().notNullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('updated_at', { precision: 3 }).notNullable();
  });
  await knex.schema.alterTable('pay_period_snapshots', (table) => {
    table.text('employee_fields').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('pay_period_snapshots', (table) => {
    table.dropColumn('employee_fields');
  });
  await knex.schema.dropTable('export_profiles');
  await knex.schema.alterTable('employees', (table) => {
    table.dropUnique(['payroll_id']);
    table.dropColumn('payroll_id');
  });
}
