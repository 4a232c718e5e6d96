import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Request counts per key and fixed window, when RATE_LIMIT_STORE=database: every server process
  // on this database shares them.
  await knex.schema.createTable('rate_limits', (table) => {
    table.string('limit_key', 191).primary();
    table.bigInteger('window_start').notNullable();
    table.integer('hits').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rate_limits');
}
