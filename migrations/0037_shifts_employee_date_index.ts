import type { Knex } from 'knex';

/**
 * An index of the shifts by employee and date (docs/performance.md, "Day status"): GET /days reads
 * a batch of employees' shifts dated the day before to the day after its date, and its status
 * filters ask, per employee, whether a shift falls on the date. The index on (employee_id,
 * start_utc) narrows those reads to the employee only, every shift of theirs read and filtered
 * by date.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('shifts', (table) => {
    table.index(['employee_id', 'date'], 'shifts_employee_date_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('shifts', (table) => {
    table.dropIndex(['employee_id', 'date'], 'shifts_employee_date_index');
  });
}
