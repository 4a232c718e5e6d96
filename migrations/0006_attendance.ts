import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('attendance', (table) => {
    table.increments('id');
    table.integer('employee_id').unsigned().notNullable().references('id').inTable('employees').onDelete('CASCADE');
    // Instants in UTC, plus the wall-clock times in the record's time zone at punch time, so that
    // "records of a calendar day" is an index range on either.
    table.datetime('in_time_utc').notNullable();
    table.datetime('in_time_local').notNullable();
    table.datetime('out_time_utc').nullable();
    table.datetime('out_time_local').nullable();
    table.string('timezone', 64).notNullable();
    table.string('note', 1000).nullable();
    table.string('out_note', 1000).nullable();
    table.decimal('latitude', 9, 6).nullable();
    table.decimal('longitude', 9, 6).nullable();
    table.decimal('out_latitude', 9, 6).nullable();
    table.decimal('out_longitude', 9, 6).nullable();
    table.string('in_ip', 45).nullable();
    table.string('out_ip', 45).nullable();
    // Equals employee_id while the record is open, NULL once closed. The unique index is what
    // guarantees at most one open record per employee, even under concurrent punch-ins.
    table.integer('open_employee_id').unsigned().nullable().unique();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('updated_at', { precision: 3 }).notNullable();
    table.index(['employee_id', 'in_time_utc']);
    table.index(['employee_id', 'in_time_local']);
    table.index(['in_time_local']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('attendance');
}
