import { periodContaining } from '../pay-rules/periods';
import { readDefaultGroupSettings } from '../pay-groups/repository';
import { ICEHRM_OVERTIME_SETTINGS } from './overtime-settings';
import type { ImportContext } from './report';

// The numbers a customer moving from IceHrm will see differ from IceHrm's (docs/migrating-from-
// icehrm.md, "Checking the first payroll after moving"). What IceHrm does, facts only: its
// attendance summaries and overtime reports (AttendanceUtil) select a period's records with
// `in_time >= <first day> 00:00:00 and out_time <= <last day> 23:59:59` on the wall clock, and
// measure a record as out_time - in_time read as wall-clock times. Here a record counts whole on
// the date it begins, and its hours are the elapsed time (docs/pay-periods.md, "How hours are
// classified").

/** Lines listed per kind of difference; the rest are counted. */
const MAX_LISTED = 100;

/** Records read per query. */
const BATCH = 5000;

interface ImportedRecord {
  id: number | string;
  employee_id: number | string;
  in_time_local: string;
  out_time_local: string;
  in_time_utc: string;
  out_time_utc: string;
  timezone: string;
}

/** Seconds since the epoch of a stored 'YYYY-MM-DD HH:MM:SS' read as UTC (the wall clock's own arithmetic for a local one). */
const secondsOf = (text: string) => Date.parse(`${String(text).slice(0, 19).replace(' ', 'T')}Z`) / 1000;
const hours = (seconds: number) => (seconds / 3600).toFixed(2);

/**
 * Adds to the report's `differences` what IceHrm counted otherwise among the attendance records
 * imported from it (this run's and earlier runs', from the import ledger; a dry run writes none,
 * so it lists those of earlier runs only):
 * - records spanning a daylight-saving change in their zone: elapsed time here, wall-clock time there;
 * - night shifts over the end of a pay period (the pay-period settings as they are after the
 *   import): IceHrm's period reports left them out, here they count on the period's last day;
 * - IceHrm's weekly overtime (`Attendance: Overtime Calculation Period` Weekly), when its settings use it.
 */
export async function reportDifferences(
  context: ImportContext,
  icehrmSettings: ReadonlyMap<string, string | null> | undefined,
): Promise<void> {
  const { db, report } = context;
  const settings = await readDefaultGroupSettings(db);
  const dst: string[] = [];
  const periodEnds: string[] = [];
  let after = 0;
  for (;;) {
    const rows = (await db('attendance as a')
      .join('import_ledger as l', (on) => on.on('l.target_id', 'a.id').andOnVal('l.kind', 'attendance'))
      .where('a.id', '>', after)
      .whereNotNull('a.out_time_utc')
      .orderBy('a.id')
      .limit(BATCH)
      .select(
        'a.id',
        'a.employee_id',
        'a.in_time_local',
        'a.out_time_local',
        'a.in_time_utc',
        'a.out_time_utc',
        'a.timezone',
      )) as ImportedRecord[];
    if (rows.length === 0) break;
    after = Number(rows[rows.length - 1]!.id);
    for (const row of rows) {
      const [inLocal, outLocal] = [String(row.in_time_local).slice(0, 19), String(row.out_time_local).slice(0, 19)];
      const name = `attendance ${String(row.id)} (employee ${String(row.employee_id)}, in ${inLocal}, out ${outLocal} ${row.timezone})`;
      const elapsed = secondsOf(row.out_time_utc) - secondsOf(row.in_time_utc);
      const wallClock = secondsOf(outLocal) - secondsOf(inLocal);
      if (elapsed !== wallClock)
        dst.push(
          `${name}: spans a daylight-saving change: ${hours(elapsed)} h here (the elapsed time), ${hours(wallClock)} h in IceHrm (its wall-clock times)`,
        );
      const [inDate, outDate] = [inLocal.slice(0, 10), outLocal.slice(0, 10)];
      if (outDate > inDate) {
        const period = periodContaining(settings, inDate);
        if (period.end === inDate)
          periodEnds.push(
            `${name}: a night shift over the end of the pay period ${period.start} to ${period.end}: IceHrm's period reports left it out (they take the records that begin and end within the period); here its ${hours(elapsed)} h count on ${inDate}`,
          );
      }
    }
  }
  listed(report.differences, dst);
  listed(report.differences, periodEnds);

  const names = ICEHRM_OVERTIME_SETTINGS;
  if (icehrmSettings?.get(names.period)?.trim() === 'Weekly') {
    report.differences.push(
      `IceHrm calculates overtime per week (${JSON.stringify(names.period)} Weekly): its attendance sheets count Sunday to Saturday weeks and only the records that begin and end within the week; here weekly_after_hours counts every record on the date it begins, in workweeks beginning ${settings.workweek_start}, and a workweek over a period's start counts whole: overtime near week and period ends can differ`,
    );
  }
}

/** The first MAX_LISTED lines, and one counting the rest. */
function listed(into: string[], lines: readonly string[]): void {
  into.push(...lines.slice(0, MAX_LISTED));
  if (lines.length > MAX_LISTED) into.push(`... and ${lines.length - MAX_LISTED} more like the one above`);
}
