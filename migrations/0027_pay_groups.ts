import type { Knex } from 'knex';

/**
 * Pay groups (docs/pay-periods.md, "Pay groups"; CONTRACT 6.5): several period layouts and rule
 * sets in one instance.
 * - `pay_groups`: one row per group. `settings` is the JSON of the 6.3 settings (period layout and
 *   overtime), null for the defaults, read leniently as the old `settings` row was; the rules 6.5
 *   adds are columns (`exempt`, `meal_break_*`, `rounding_minutes`); `export_profile` names a
 *   profile id (a template's word or a stored profile's number), null for `default`. Group 1,
 *   `Default`, is made here from the `pay_periods` settings row, which goes: from now on group 1's
 *   row is the only place these settings live.
 * - `employees.pay_group_id`: every employee's group, 1 unless set (a foreign key, so a group with
 *   employees cannot go).
 * - Locks, snapshots and approvals gain `group_id` (1 for everything before) in their keys: a
 *   period is locked, frozen and approved per group.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('pay_groups', (table) => {
    table.increments('id');
    table.string('name', 100).notNullable().unique();
    table.text('settings').nullable();
    table.boolean('exempt').notNullable().defaultTo(false);
    table.decimal('meal_break_after_hours', 5, 2).nullable();
    table.integer('meal_break_minutes').unsigned().nullable();
    table.integer('rounding_minutes').unsigned().nullable();
    table.string('export_profile', 40).nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('updated_at', { precision: 3 }).notNullable();
  });
  const stored = (await knex('settings').where({ name: 'pay_periods' }).first('value')) as { value: string } | undefined;
  const now = new Date().toISOString().slice(0, 23).replace('T', ' ');
  await knex('pay_groups').insert({
    id: 1,
    name: 'Default',
    settings: stored?.value ?? null,
    exempt: false,
    created_at: now,
    updated_at: now,
  });
  await knex('settings').where({ name: 'pay_periods' }).delete();

  if (knex.client.config.client === 'mysql2') {
    await knex.schema.alterTable('employees', (table) => {
      table.integer('pay_group_id').unsigned().notNullable().defaultTo(1).references('id').inTable('pay_groups');
    });
  } else {
    // SQLite adds a column with a foreign key by copying the table, and dropping the old
    // employees table inside the migration's transaction (where foreign keys cannot be turned
    // off) would delete every employee's attendance through ON DELETE CASCADE. Triggers would
    // hold the invariant, but a trigger naming employees breaks every later copy of the table.
    // So on SQLite the writes hold it (src/pay-groups: a group with employees is not deleted; an
    // employee's group must exist), each in the transaction that locks the rows it reads.
    await knex.schema.alterTable('employees', (table) => {
      table.integer('pay_group_id').unsigned().notNullable().defaultTo(1);
    });
  }

  // The snapshots' key names the lock's: its foreign key goes first, and comes back on both columns.
  await knex.schema.alterTable('pay_period_snapshots', (table) => {
    table.dropForeign(['period_start']);
  });
  await knex.schema.alterTable('pay_period_locks', (table) => {
    table.integer('group_id').unsigned().notNullable().defaultTo(1).references('id').inTable('pay_groups');
  });
  await knex.schema.alterTable('pay_period_locks', (table) => {
    table.dropPrimary();
  });
  await knex.schema.alterTable('pay_period_locks', (table) => {
    table.primary(['group_id', 'period_start']);
  });
  await knex.schema.alterTable('pay_period_snapshots', (table) => {
    table.integer('group_id').unsigned().notNullable().defaultTo(1);
  });
  await knex.schema.alterTable('pay_period_snapshots', (table) => {
    table.dropPrimary();
  });
  await knex.schema.alterTable('pay_period_snapshots', (table) => {
    table.primary(['group_id', 'period_start', 'employee_id']);
    table.foreign(['group_id', 'period_start']).references(['group_id', 'period_start']).inTable('pay_period_locks').onDelete('CASCADE');
  });

  // The approvals' foreign key to employees needs an index while their primary key changes.
  await knex.schema.alterTable('timesheet_approvals', (table) => {
    table.integer('group_id').unsigned().notNullable().defaultTo(1);
    table.index(['employee_id'], 'timesheet_approvals_employee_index');
  });
  await knex.schema.alterTable('timesheet_approvals', (table) => {
    table.dropPrimary();
  });
  await knex.schema.alterTable('timesheet_approvals', (table) => {
    table.primary(['employee_id', 'group_id', 'period_start']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex('timesheet_approvals').whereNot('group_id', 1).delete();
  await knex.schema.alterTable('timesheet_approvals', (table) => {
    table.dropPrimary();
  });
  await knex.schema.alterTable('timesheet_approvals', (table) => {
    table.primary(['employee_id', 'period_start']);
  });
  await knex.schema.alterTable('timesheet_approvals', (table) => {
    table.dropIndex(['employee_id'], 'timesheet_approvals_employee_index');
    table.dropColumn('group_id');
  });
  await knex('pay_period_locks').whereNot('group_id', 1).delete();
  await knex.schema.alterTable('pay_period_snapshots', (table) => {
    table.dropForeign(['group_id', 'period_start']);
  });
  await knex.schema.alterTable('pay_period_snapshots', (table) => {
    table.dropPrimary();
  });
  await knex.schema.alterTable('pay_period_snapshots', (table) => {
    table.primary(['period_start', 'employee_id']);
  });
  await knex.schema.alterTable('pay_period_snapshots', (table) => {
    table.dropColumn('group_id');
  });
  await knex.schema.alterTable('pay_period_locks', (table) => {
    table.dropForeign(['group_id']);
  });
  await knex.schema.alterTable('pay_period_locks', (table) => {
    table.dropPrimary();
  });
  await knex.schema.alterTable('pay_period_locks', (table) => {
    table.primary(['period_start']);
  });
  await knex.schema.alterTable('pay_period_locks', (table) => {
    table.dropColumn('group_id');
  });
  await knex.schema.alterTable('pay_period_snapshots', (table) => {
    table.foreign('period_start').references('period_start').inTable('pay_period_locks').onDelete('CASCADE');
  });
  if (knex.client.config.client === 'mysql2') {
    await knex.schema.alterTable('employees', (table) => {
      table.dropForeign(['pay_group_id']);
    });
  }
  await knex.schema.alterTable('employees', (table) => {
    table.dropColumn('pay_group_id');
  });
  const group = (await knex('pay_groups').where({ id: 1 }).first('settings')) as { settings: string | null } | undefined;
  if (group?.settings)
    await knex('settings').insert({
      name: 'pay_periods',
      value: group.settings,
      updated_at: new Date().toISOString().slice(0, 23).replace('T', ' '),
    });
  await knex.schema.dropTable('pay_groups');
}
