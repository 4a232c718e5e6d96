import type { Knex } from 'knex';

/**
 * Department names become unique regardless of case, as the other reference names are (0001 left
 * departments out). Names that already collide keep the first department's (the lowest id); each
 * later one is renamed to "<name> (<id>)", which no other department can hold, so the migration
 * never fails on existing data and no employee changes department (references are by id). Each
 * rename is reported on stderr by whoever migrates (the server at start, or `hrm migrate`).
 */
export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  for (const { id, name } of await findLaterDuplicates(knex)) {
    const renamed = `${name.slice(0, 100 - ` (${id})`.length)} (${id})`;
    await knex('departments').where({ id }).update({ name: renamed });
    console.warn(`migration 0013: department ${id} "${name}" renamed to "${renamed}" (another department has this name)`);
  }
  if (mysql) {
    // utf8mb4_unicode_ci (the database default since 0001) compares as the other names do.
    await knex.schema.alterTable('departments', (table) => table.unique(['name'], { indexName: 'departments_name_unique' }));
  } else {
    await knex.raw('CREATE UNIQUE INDEX departments_name_unique ON departments (name COLLATE NOCASE)');
  }
}

/** Each department whose name an earlier (lower id) one already has, compared as the index will. */
export async function findLaterDuplicates(knex: Knex): Promise<Array<{ id: number; name: string }>> {
  const mysql = knex.client.config.client === 'mysql2';
  const rows: Array<{ id: number; name: string }> = await knex('departments as later')
    .join('departments as earlier', function () {
      this.on('earlier.id', '<', 'later.id');
      if (mysql) this.andOn('earlier.name', '=', 'later.name');
      else this.andOn(knex.raw('earlier.name = later.name COLLATE NOCASE'));
    })
    .distinct('later.id', 'later.name')
    .orderBy('later.id');
  return rows.map((row) => ({ id: Number(row.id), name: String(row.name) }));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('departments', (table) => table.dropUnique(['name'], 'departments_name_unique'));
}
