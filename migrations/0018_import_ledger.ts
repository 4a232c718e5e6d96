import type { Knex } from 'knex';

/**
 * What `hrm import icehrm` wrote, row by row: the IceHrm row (`kind` + `source_id`), the row it
 * became here (`target_id`), and a fingerprint of the IceHrm row as read. A re-run compares
 * fingerprints and leaves unchanged rows alone, and tells the employees it imported from the
 * ones it must not touch. `group_id` is the employee of an attendance record, so one batch of
 * employees finds its records' entries with one index range.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('import_ledger', (table) => {
    table.string('kind', 40).notNullable();
    table.bigInteger('source_id').unsigned().notNullable();
    table.integer('target_id').unsigned().notNullable();
    table.integer('group_id').unsigned().nullable();
    table.string('fingerprint', 64).notNullable();
    table.datetime('imported_at', { precision: 3 }).notNullable();
    table.primary(['kind', 'source_id']);
    table.index(['kind', 'target_id']);
    table.index(['kind', 'group_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('import_ledger');
}
