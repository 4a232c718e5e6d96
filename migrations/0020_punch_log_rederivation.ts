import type { Knex } from 'knex';

/**
 * Terminals' uploads in time order across batches (docs/terminals.md, "Out of order across
 * batches"), and exact log ids (docs/decisions.md).
 *
 * - attendance.derived_from_log: the record is what the punch log made of it, so a punch that
 *   arrives late may derive it again. Every other write (punch-in/out, POST, corrections) leaves
 *   it false: a manual record is never rewritten by a terminal. Records stored before this
 *   migration count as manual (nothing tells which of them a correction touched).
 * - attendance_punch_logs.first_*, changed_at: what a device was answered for an entry, once a
 *   later derivation changed the entry's result, and when it did.
 * - (employee_id, time_utc): an employee's punches from a time on, which a derivation reads.
 * - log_id compared byte for byte on MySQL/MariaDB too (utf8mb4_bin), as SQLite and the
 *   server's duplicate check compare it: `abc` and `ABC` are two entries, not a unique-key error.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('attendance', (table) => {
    table.boolean('derived_from_log').notNullable().defaultTo(false);
  });
  await knex.schema.alterTable('attendance_punch_logs', (table) => {
    table.string('first_result', 10).nullable();
    table.string('first_action', 6).nullable();
    table.string('first_code', 40).nullable();
    table.datetime('changed_at', { precision: 3 }).nullable();
    table.index(['employee_id', 'time_utc']);
  });
  if (knex.client.config.client === 'mysql2') {
    await knex.raw('ALTER TABLE attendance_punch_logs MODIFY log_id VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL');
  }
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') {
    // Case variants now stored would collide under the default collation: keep the first of each.
    await knex.raw(
      'DELETE p FROM attendance_punch_logs p JOIN attendance_punch_logs q ON q.device_id = p.device_id AND q.id < p.id AND q.log_id COLLATE utf8mb4_unicode_ci = p.log_id COLLATE utf8mb4_unicode_ci',
    );
    await knex.raw(
      'ALTER TABLE attendance_punch_logs MODIFY log_id VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL',
    );
  }
  await knex.schema.alterTable('attendance_punch_logs', (table) => {
    table.dropIndex(['employee_id', 'time_utc']);
    table.dropColumn('first_result');
    table.dropColumn('first_action');
    table.dropColumn('first_code');
    table.dropColumn('changed_at');
  });
  await knex.schema.alterTable('attendance', (table) => {
    table.dropColumn('derived_from_log');
  });
}
