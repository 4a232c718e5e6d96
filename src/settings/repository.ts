import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';

/** Setting names, as stored in the `settings` table (an admin may edit the rows by hand). */
export const SETTING = {
  restApiEnabled: 'rest_api_enabled',
  defaultTimezone: 'default_timezone',
  maxShiftHours: 'max_shift_hours',
  punchFutureToleranceSeconds: 'punch_future_tolerance_seconds',
  jwtSecret: 'jwt_secret',
  /** The pay-period settings (JSON of the API shape, docs/pay-periods.md); missing = defaults. */
  payPeriods: 'pay_periods',
  /** The working days of the week (JSON array of weekday names, docs/leave.md); missing = monday to friday. */
  workWeek: 'work_week',
  /** The hours of a full day of leave or holiday (docs/leave.md); missing = 8. */
  standardDayHours: 'standard_day_hours',
} as const;

export async function readSettingValues(db: Db): Promise<Map<string, string>> {
  const rows: Array<{ name: string; value: string }> = await db('settings').select('name', 'value');
  return new Map(rows.map((row) => [row.name, row.value]));
}

export async function readSetting(db: Db, name: string): Promise<string | undefined> {
  const row: { value: string } | undefined = await db('settings').where({ name }).first('value');
  return row?.value;
}

export async function writeSetting(db: Db, name: string, value: string, now: Date): Promise<void> {
  await db('settings')
    .insert({ name, value, updated_at: toSqlDateTime(now) })
    .onConflict('name')
    .merge(['value', 'updated_at']);
}
