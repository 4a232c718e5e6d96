import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The scheduled purge (src/maintenance/purge.ts): one row per job; the process that moves
  // next_run_at forward runs it, so one process at a time does, however many share the database.
  await knex.schema.createTable('maintenance_runs', (table) => {
    table.string('job', 50).primary();
    table.datetime('next_run_at', { precision: 3 }).notNullable();
    table.string('claimed_by', 100).nullable();
  });
  // What the purge looks for, so that each small batch is an index range, not a table scan.
  await knex.schema.alterTable('api_tokens', (table) => {
    table.index(['expires_at']);
    table.index(['revoked_at']);
    table.index(['user_id', 'created_at']);
  });
  await knex.schema.alterTable('idempotency_keys', (table) => table.index(['created_at']));
  await knex.schema.alterTable('rate_limits', (table) => table.index(['window_start']));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('rate_limits', (table) => table.dropIndex(['window_start']));
  await knex.schema.alterTable('idempotency_keys', (table) => table.dropIndex(['created_at']));
  await knex.schema.alterTable('api_tokens', (table) => {
    table.dropIndex(['user_id', 'created_at']);
    table.dropIndex(['revoked_at']);
    table.dropIndex(['expires_at']);
  });
  await knex.schema.dropTable('maintenance_runs');
}
