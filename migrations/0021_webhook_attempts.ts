import type { Knex } from 'knex';

/**
 * Every attempt of a webhook delivery, as GET /webhooks/{id}/deliveries/{delivery} shows them:
 * when, how long, the receiver's status and why it failed. Written by the worker with the
 * delivery's outcome; gone with its delivery (purged after 30 days, or with its subscription).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_attempts', (table) => {
    table.bigIncrements('id');
    table.bigInteger('delivery_id').unsigned().notNullable().references('id').inTable('webhook_deliveries').onDelete('CASCADE');
    table.integer('number').notNullable();
    table.datetime('attempted_at', { precision: 3 }).notNullable();
    table.integer('duration_ms').notNullable();
    table.boolean('delivered').notNullable();
    table.integer('status').nullable();
    table.string('error', 500).nullable();
    table.index(['delivery_id', 'number']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_attempts');
}
