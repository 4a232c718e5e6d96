import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The employee an audit row is about when the entity is not the employee record itself (an
  // attendance record), so an employee's trail includes their attendance, deleted records too.
  await knex.schema.alterTable('audit_log', (table) => {
    table.integer('employee_id').unsigned().nullable();
    table.index(['employee_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audit_log', (table) => {
    table.dropIndex(['employee_id', 'id']);
    table.dropColumn('employee_id');
  });
}
