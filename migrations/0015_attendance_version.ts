import type { Knex } from 'knex';

/**
 * A counter every attendance write of the employee increments, first thing in its transaction.
 * On one server the row lock it takes serialises the employee's attendance writes, as the
 * SELECT ... FOR UPDATE did. On a Galera cluster row locks are node-local: two nodes can each
 * lock "the" row and both commit. A written row is part of each transaction's write set, though,
 * and certification lets only the first of two transactions that wrote the same row commit; the
 * other fails with a conflict and runs again, seeing the first one's record (docs/scaling.md).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('employees', (table) => {
    table.integer('attendance_version').unsigned().notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('employees', (table) => {
    table.dropColumn('attendance_version');
  });
}
