import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One row per (user, Idempotency-Key): claimed while the first request runs, then holding its
  // response for replay. The key is stored hashed so the unique index stays small on MySQL.
  await knex.schema.createTable('idempotency_keys', (table) => {
    table.increments('id');
    table.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    table.string('key_hash', 64).notNullable();
    table.string('request_hash', 64).notNullable();
    table.string('state', 20).notNullable();
    table.integer('response_status').nullable();
    table.text('response_headers').nullable();
    table.text('response_body', 'mediumtext').nullable();
    table.datetime('locked_until', { precision: 3 }).notNullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.unique(['user_id', 'key_hash']);
    table.index(['user_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
}
