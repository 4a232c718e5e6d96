import type { Db } from '../db/connect';
import { asUniqueViolation } from '../db/constraint-errors';
import { retryConflicts } from '../db/retry-conflicts';
import { toSqlDateTime } from '../db/sql-time';
import { recordEvents } from '../webhooks/outbox';
import { type DayEmployee, readDays, toDayResponse } from './read-days';

// The event day.absent (CONTRACT 6.7): once per employee and date, when an absence becomes final
// (a published shift's last check-out window closed without a record). day_absences holds what
// was announced, so a restart or another node never announces it again; the sweep looks back a
// week, so an absence is announced after a stop of up to a week.

const LOOKBACK_MS = 7 * 86_400_000;

/** Announces every absence that became final since the lookback; the number announced. */
export async function announceAbsences(db: Db, now: Date): Promise<number> {
  const candidates = (await db('shifts as s')
    .join('employees as e', 'e.id', 's.employee_id')
    .leftJoin('day_absences as a', (join) => join.on('a.employee_id', '=', 's.employee_id').andOn('a.date', '=', 's.date'))
    .whereNull('a.id')
    .where('s.status', 'published')
    .whereBetween('s.end_utc', [toSqlDateTime(new Date(now.getTime() - LOOKBACK_MS)), toSqlDateTime(now)])
    .distinct('s.employee_id', 's.date', 'e.first_name', 'e.last_name', 'e.joined_date', 'e.termination_date')) as Array<
    Record<string, unknown>
  >;
  let announced = 0;
  for (const row of candidates) {
    const date = String(row.date).slice(0, 10);
    const employee: DayEmployee = {
      id: Number(row.employee_id),
      display: `${String(row.first_name)} ${String(row.last_name)}`,
      joined_date: row.joined_date == null ? null : String(row.joined_date).slice(0, 10),
      termination_date: row.termination_date == null ? null : String(row.termination_date).slice(0, 10),
    };
    const [day] = (await readDays(db, [employee], { from: date, to: date }, now)).get(employee.id) ?? [];
    if (day?.status !== 'absent') continue;
    try {
      // Run again after a conflict (another node's run announced it at the same moment, on a
      // Galera cluster a certification failure): the second run meets the unique key.
      await retryConflicts(() =>
        db.transaction(async (trx) => {
          const [id] = await trx('day_absences').insert({ employee_id: employee.id, date, announced_at: toSqlDateTime(now) });
          await recordEvents(trx, [
            { type: 'day.absent', resourceId: Number(id), occurredAt: now, data: () => toDayResponse(employee, day) },
          ]);
        }),
      );
      announced++;
    } catch (error) {
      // Announced meanwhile by another run: once is enough.
      if (!asUniqueViolation(error)) throw error;
    }
  }
  return announced;
}
