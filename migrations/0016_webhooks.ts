import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Webhook subscriptions. The signing secret is kept as sent to the receiver: HMAC needs it.
  // During a rotation the previous secret signs too, until previous_secret_expires_at.
  await knex.schema.createTable('webhooks', (table) => {
    table.increments('id');
    table.string('url', 2000).notNullable();
    table.text('events').notNullable();
    table.string('description', 500).nullable();
    table.boolean('active').notNullable();
    table.boolean('include_personal').notNullable();
    table.string('secret', 100).notNullable();
    table.string('previous_secret', 100).nullable();
    table.datetime('previous_secret_expires_at', { precision: 3 }).nullable();
    table.datetime('failing_since', { precision: 3 }).nullable();
    table.string('disabled_reason', 500).nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('updated_at', { precision: 3 }).notNullable();
  });
  // The outbox: one row per event, written in the transaction of the change it describes.
  // `resource_key` ("employee:5") is what delivery order is kept per.
  await knex.schema.createTable('webhook_events', (table) => {
    table.bigIncrements('id');
    table.string('event_id', 40).notNullable().unique();
    table.string('type', 40).notNullable();
    table.string('resource_key', 60).notNullable();
    table.datetime('occurred_at', { precision: 3 }).notNullable();
    table.text('payload', 'mediumtext').notNullable();
    table.index(['occurred_at']);
  });
  // One row per event and subscription that wants it. No foreign key to webhooks: a write that
  // read the subscriptions just before one was deleted must still commit (the worker drops
  // deliveries whose subscription is gone).
  await knex.schema.createTable('webhook_deliveries', (table) => {
    table.bigIncrements('id');
    table.bigInteger('event_id').unsigned().notNullable().references('id').inTable('webhook_events').onDelete('CASCADE');
    table.integer('webhook_id').unsigned().notNullable();
    table.string('resource_key', 60).notNullable();
    table.string('status', 10).notNullable();
    table.integer('attempts').notNullable();
    table.datetime('next_attempt_at', { precision: 3 }).notNullable();
    table.datetime('give_up_at', { precision: 3 }).notNullable();
    table.string('lease_owner', 40).nullable();
    table.datetime('lease_until', { precision: 3 }).nullable();
    table.integer('last_status').nullable();
    table.string('last_error', 500).nullable();
    table.datetime('last_attempt_at', { precision: 3 }).nullable();
    table.datetime('delivered_at', { precision: 3 }).nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.index(['status', 'next_attempt_at']);
    table.index(['webhook_id', 'resource_key', 'status']);
    table.index(['webhook_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhook_events');
  await knex.schema.dropTable('webhooks');
}
