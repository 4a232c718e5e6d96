import type { Knex } from 'knex';

/**
 * Leave and holiday hours frozen at the lock (docs/leave.md, "Locked periods"; CONTRACT 6.3
 * "frozen at the lock"): `leave` on `pay_period_snapshots` and `pay_period_version_snapshots`, each
 * date's paid leave hours, its code and paid holiday hours (JSON), as the lock computed them. Rows
 * of locks taken before this migration hold null: those keep reading leave and holidays live.
 */
export async function up(knex: Knex): Promise<void> {
  for (const name of ['pay_period_snapshots', 'pay_period_version_snapshots']) {
    await knex.schema.alterTable(name, (table) => {
      table.text('leave', 'mediumtext').nullable();
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const name of ['pay_period_version_snapshots', 'pay_period_snapshots']) {
    await knex.schema.alterTable(name, (table) => {
      table.dropColumn('leave');
    });
  }
}
