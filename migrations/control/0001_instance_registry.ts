import type { Knex } from 'knex';

// The control database of cloud mode holds only this registry; every instance's own data lives
// in its own database, migrated by the list in migrations/index.ts.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('instances', (table) => {
    table.string('name', 63).primary();
    // A MySQL schema on the control database's server, or a SQLite file name in the instances
    // directory: stored, not derived at each lookup, so the naming rule may change later.
    table.string('database_name', 191).notNullable().unique();
    table.datetime('created_at', { precision: 3 }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('instances');
}
