import type { Knex } from 'knex';

/**
 * The list's sort orders as indexes: `sortField` and then id, the tie-break. Without them a page
 * sorted by name sorts every matching row (about 40 ms of MariaDB per page at 100k employees);
 * with them the page is read off the index. (last_name, first_name) served no query: the new
 * (last_name, id) replaces it.
 */
const SORTED_COLUMNS = ['first_name', 'last_name', 'joined_date'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('employees', (table) => {
    for (const column of SORTED_COLUMNS) table.index([column, 'id']);
    table.dropIndex(['last_name', 'first_name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('employees', (table) => {
    table.index(['last_name', 'first_name']);
    for (const column of SORTED_COLUMNS) table.dropIndex([column, 'id']);
  });
}
