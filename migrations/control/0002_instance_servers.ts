import type { Knex } from 'knex';

// Which database server holds each instance: a name from DATABASE_SERVERS, or `default` (the
// control database's own server), never a URL or credentials. Instances created before this
// migration live on the control database's server. `moving_since` is set while `hrm instance
// move` copies the instance: servers then answer its writes 503 (docs/scaling.md).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('instances', (table) => {
    table.string('server', 63).notNullable().defaultTo('default');
    table.datetime('moving_since', { precision: 3 }).nullable();
    table.index(['server']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('instances', (table) => {
    table.dropIndex(['server']);
    table.dropColumn('moving_since');
    table.dropColumn('server');
  });
}
