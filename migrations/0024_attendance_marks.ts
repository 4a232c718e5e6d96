import type { Knex } from 'knex';

/**
 * A revision per employee and month of attendance, incremented by every write of a record that
 * counts in that month (src/period-guard/change-marks.ts). An open period's export tag reads the
 * marks of its months, a row per employee and month, instead of aggregating every record of the
 * period before the first byte (docs/pay-periods.md, "Export"). The (month, revision) index makes
 * that read an index range. Databases migrated from an earlier release start with no marks: the
 * export's rendering version changed with this migration, so no earlier tag matches anyway.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('attendance_marks', (table) => {
    table.integer('employee_id').unsigned().notNullable().references('id').inTable('employees').onDelete('CASCADE');
    // 'YYYY-MM' of the record's in_time on its own wall clock: the date it counts on.
    table.string('month', 7).notNullable();
    table.bigInteger('revision').unsigned().notNullable();
    table.primary(['employee_id', 'month']);
    table.index(['month', 'revision']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('attendance_marks');
}
