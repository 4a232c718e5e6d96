import type { Knex } from 'knex';

/**
 * In cloud mode RATE_LIMIT_STORE=database keeps its counts in the control database (every
 * instance's limits in one place, as with Redis), which had no table for them: the first request
 * failed. The same table as instance migration 0009 (with 0014's index), and the purge's job row
 * (0014's maintenance_runs) so that one process at a time deletes old counts here too.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rate_limits', (table) => {
    table.string('limit_key', 191).primary();
    table.bigInteger('window_start').notNullable().index();
    table.integer('hits').notNullable();
  });
  await knex.schema.createTable('maintenance_runs', (table) => {
    table.string('job', 50).primary();
    table.datetime('next_run_at', { precision: 3 }).notNullable();
    table.string('claimed_by', 100).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('maintenance_runs');
  await knex.schema.dropTable('rate_limits');
}
