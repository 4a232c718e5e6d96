import type { Knex } from 'knex';

/**
 * Calendar feeds and rotations (CONTRACT 6.7, docs/schedules.md):
 * - `calendar_feeds`: one row per feed; only the SHA-256 of its secret token is kept, so a copy of
 *   the database lets no one read a calendar. Deleting the employee deletes their feeds (revoked).
 * - `rotations`: a cycle of shift types (null: a day off) from an anchor date.
 * - `rotation_days`: one row per rotation and date the generation has handled (a shift made, or a
 *   day off): the unique key makes generation happen exactly once per rotation and date, however
 *   often and wherever it runs, even after someone deleted the generated shift.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('calendar_feeds', (table) => {
    table.increments('id');
    table.integer('employee_id').unsigned().notNullable().references('id').inTable('employees').onDelete('CASCADE');
    table.string('token_hash', 64).notNullable().unique();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.index(['employee_id']);
  });
  await knex.schema.createTable('rotations', (table) => {
    table.increments('id');
    table.integer('employee_id').unsigned().notNullable().references('id').inTable('employees').onDelete('CASCADE');
    table.date('anchor_date').notNullable();
    table.text('cycle').notNullable();
    table.date('valid_from').notNullable();
    table.date('valid_to').nullable();
    table.boolean('publish').notNullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('updated_at', { precision: 3 }).notNullable();
  });
  await knex.schema.createTable('rotation_days', (table) => {
    table.increments('id');
    table.integer('rotation_id').unsigned().notNullable().references('id').inTable('rotations').onDelete('CASCADE');
    table.date('date').notNullable();
    table.unique(['rotation_id', 'date']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rotation_days');
  await knex.schema.dropTable('rotations');
  await knex.schema.dropTable('calendar_feeds');
}
