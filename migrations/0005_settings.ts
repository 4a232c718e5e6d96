import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('settings', (table) => {
    table.string('name', 100).primary();
    table.string('value', 1000).notNullable();
    table.datetime('updated_at', { precision: 3 }).notNullable();
  });
  const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
  await knex('settings').insert([
    // "Enable REST Api" is off on a fresh install (docs/api.md, "The first five requests").
    { name: 'rest_api_enabled', value: '0', updated_at: now },
    { name: 'default_timezone', value: 'UTC', updated_at: now },
    { name: 'max_shift_hours', value: '24', updated_at: now },
    { name: 'punch_future_tolerance_seconds', value: '300', updated_at: now },
  ]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('settings');
}
