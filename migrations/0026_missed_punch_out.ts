import type { Knex } from 'knex';

/**
 * Missed punch-outs (docs/pay-periods.md, "Period end, step by step"): a record left without an
 * out_time when its pay period was locked with `allow_open_records=true`. It counts no hours, and
 * it is no longer the employee's open record (open_employee_id NULL), so the next punch-in opens
 * a new one and no punch-out closes it.
 *
 * Periods locked before this migration may hold open records: the lock used to leave them open,
 * and then the employee could neither punch out (the period is locked) nor punch in (one open
 * record each). They become missed punch-outs here, as a lock with the option would have made
 * them; their updated_at moves, so a delta sync (`updated_since`) picks the change up. A lock
 * still being taken (`locking`) is left to its next attempt.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('attendance', (table) => {
    table.boolean('missed_punch_out').notNullable().defaultTo(false);
  });
  const locks = (await knex('pay_period_locks').where('state', 'locked').select('period_start', 'period_end')) as Array<{
    period_start: string;
    period_end: string;
  }>;
  const now = new Date().toISOString().slice(0, 23).replace('T', ' ');
  for (const lock of locks) {
    const [start, end] = [String(lock.period_start).slice(0, 10), String(lock.period_end).slice(0, 10)];
    await knex('attendance')
      .whereNotNull('open_employee_id')
      .where('in_time_local', '>=', `${start} 00:00:00`)
      .where('in_time_local', '<=', `${end} 23:59:59`)
      .update({ missed_punch_out: true, open_employee_id: null, updated_at: now });
  }
}

/** Missed punch-outs become plain records without an out_time; the newest of an employee's is open again when none other is. */
export async function down(knex: Knex): Promise<void> {
  const missed = (await knex('attendance as a')
    .where('a.missed_punch_out', true)
    .whereNotExists(knex('attendance as o').whereRaw('o.open_employee_id = a.employee_id').select(knex.raw('1')))
    .select('a.employee_id')
    .max({ id: 'a.id' })
    .groupBy('a.employee_id')) as Array<{ employee_id: number; id: number }>;
  for (const row of missed) await knex('attendance').where('id', row.id).update({ open_employee_id: row.employee_id });
  await knex.schema.alterTable('attendance', (table) => {
    table.dropColumn('missed_punch_out');
  });
}
