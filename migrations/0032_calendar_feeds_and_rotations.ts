import type { Knex } from 'knex';

/**
 * Calendar feeds and rotations (CONTRACT 6.7, docs/schedules.md):
 * - `calendar_feeds`: one row per feed; only the SHA-256 of its secret token is kept, so a copy of
 *   the database lets no one read a calendar. Deleting the employee deletes their feeds (revoked).
 * - `rotations`: a cycle of shift types (null: a day off) from an anchor date.
 * - `rotation_days`: one row per rotation and date the generation has handled (a shift made, or a
 *   day off): the unique key makes generation happen exactly once per rotation and date, however
 *   often and wherever it runs, even after someone deleted the generated shift.
 * - `day_absences`: one row per employee and date whose absence became final and was announced
 *   (event day.absent): the unique key sends it once, across restarts and nodes.
 * - `sweep_leases`: who runs the schedules sweep (rotations, absences) until when: one node at a
 *   time, and another takes over when a holder stops renewing.
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
  await knex.schema.createTable('day_absences', (table) => {
    table.increments('id');
    table.integer('employee_id').unsigned().notNullable().references('id').inTable('employees').onDelete('CASCADE');
    table.date('date').notNullable();
    table.datetime('announced_at', { precision: 3 }).notNullable();
    table.unique(['employee_id', 'date']);
  });
  await knex.schema.createTable('sweep_leases', (table) => {
    table.increments('id');
    table.string('name', 50).notNullable().unique();
    table.string('holder', 100).notNullable();
    table.datetime('expires_at', { precision: 3 }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sweep_leases');
  await knex.schema.dropTable('day_absences');
  await knex.schema.dropTable('rotation_days');
  await knex.schema.dropTable('rotations');
  await knex.schema.dropTable('calendar_feeds');
}
