import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The badge, card or PIN number terminals know an employee by; unique per instance and, as
  // MySQL's collation compares it, regardless of case on both dialects.
  const mysql = knex.client.config.client === 'mysql2';
  await knex.schema.alterTable('employees', (table) => {
    if (mysql) table.string('attendance_device_id', 100).nullable().unique();
    else table.specificType('attendance_device_id', 'varchar(100) COLLATE NOCASE').nullable().unique();
  });
  // Terminals. A device's token is a JWT whose jti is token_id (never the token itself, as for
  // api_tokens); deleting a device sets revoked_at and keeps the row, so that its punch logs
  // still name it.
  await knex.schema.createTable('attendance_devices', (table) => {
    table.increments('id');
    table.string('name', 100).notNullable();
    table.string('timezone', 64).notNullable();
    table.boolean('active').notNullable();
    table.string('token_id', 36).notNullable().unique();
    table.datetime('token_expires_at', { precision: 3 }).notNullable();
    table.datetime('last_used_at', { precision: 3 }).nullable();
    table.datetime('revoked_at', { precision: 3 }).nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('updated_at', { precision: 3 }).notNullable();
  });
  // Every punch-log entry as received, with what became of it. device_id 0 is an admin's manual
  // back-fill. The unique key makes a re-upload of an entry a duplicate.
  await knex.schema.createTable('attendance_punch_logs', (table) => {
    table.bigIncrements('id');
    table.integer('device_id').unsigned().notNullable();
    table.string('log_id', 100).notNullable();
    table.integer('uploaded_by_user_id').unsigned().nullable();
    table.string('attendance_device_id', 100).nullable();
    table.integer('employee_id').unsigned().nullable();
    table.string('time', 40).notNullable();
    table.datetime('time_utc').nullable();
    table.string('direction', 4).notNullable();
    table.string('result', 10).notNullable();
    table.string('action', 6).nullable();
    table.integer('attendance_id').unsigned().nullable();
    table.string('code', 40).nullable();
    table.string('message', 500).nullable();
    table.datetime('received_at', { precision: 3 }).notNullable();
    table.unique(['device_id', 'log_id']);
    table.index(['device_id', 'id']);
    table.index(['employee_id', 'id']);
    table.index(['time_utc']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('attendance_punch_logs');
  await knex.schema.dropTable('attendance_devices');
  await knex.schema.alterTable('employees', (table) => {
    table.dropUnique(['attendance_device_id']);
    table.dropColumn('attendance_device_id');
  });
}
