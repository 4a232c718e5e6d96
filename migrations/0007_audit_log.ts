import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Who changed what, written in the same transaction as the change. Personal fields appear by
  // name only (in `fields`); `changes` holds before/after values of the other fields.
  await knex.schema.createTable('audit_log', (table) => {
    table.increments('id');
    table.datetime('occurred_at', { precision: 3 }).notNullable();
    table.integer('actor_user_id').unsigned().nullable();
    table.string('actor_username', 100).nullable();
    table.string('action', 30).notNullable();
    table.string('entity_type', 30).notNullable();
    table.integer('entity_id').unsigned().notNullable();
    table.text('fields').notNullable();
    table.text('changes').nullable();
    table.string('request_id', 128).nullable();
    table.index(['entity_type', 'entity_id', 'id']);
    table.index(['occurred_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('audit_log');
}
