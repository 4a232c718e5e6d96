import { type CliResult, runHrm } from '../helpers/cli';
import { describeOnMysql, testDialects } from '../helpers/databases';
import { createIcehrmFixture } from '../helpers/icehrm-fixture';
import type { IcehrmDatabase } from '../../support/icehrm-schema';
import { useTestApp } from '../helpers/test-app';

// The report of `hrm import icehrm` names the numbers a moving customer will see differ from
// IceHrm's (docs/migrating-from-icehrm.md, "Checking the first payroll after moving").

const serverUrl = process.env.HRM_TEST_MYSQL_URL;
const HEADING = 'Counted differently from IceHrm';

/** The report's lines under a heading, without the indent. */
function section(result: CliResult, heading: string): string[] {
  const lines = result.stdout.split('\n');
  const start = lines.findIndex((line) => line.startsWith(heading));
  if (start === -1) return [];
  const body: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('  ')) break;
    body.push(line.trim());
  }
  return body;
}

const WEEKLY_LINE =
  'IceHrm calculates overtime per week ("Attendance: Overtime Calculation Period" Weekly): its attendance sheets count Sunday to Saturday weeks and only the records that begin and end within the week; here weekly_after_hours counts every record on the date it begins, in workweeks beginning sunday, and a workweek over a period\'s start counts whole: overtime near week and period ends can differ';

describeOnMysql('hrm import icehrm: what IceHrm counted differently', () => {
  describe.each(testDialects())('into %s', (dialect) => {
    const t = useTestApp(dialect);
    let source: IcehrmDatabase;
    beforeAll(async () => {
      source = await createIcehrmFixture(serverUrl!);
    }, 60_000);
    afterAll(() => source.drop());

    it('says nothing for the fixture as it is: no record spans a daylight-saving change or a period end, overtime is daily', async () => {
      const result = await runHrm(t, ['import', 'icehrm', '--from', source.url]);
      expect(result.code).toBe(0);
      expect(result.stdout).not.toContain(HEADING);
    });

    it('lists the nights over a daylight-saving change and over a period end, and IceHrm weekly overtime', async () => {
      // Wes (New York) worked the night the clocks went forward (7 h elapsed, 8 on the wall clock)
      // and the night of 30 April (the monthly period's last day); Olaf (Berlin) the night they went back (9 h).
      await source.connection.query(
        `INSERT INTO Attendance (id, employee, in_time, out_time) VALUES
          (1201, 11, '2026-03-07 22:00:00', '2026-03-08 06:00:00'),
          (1202, 6, '2026-10-24 22:00:00', '2026-10-25 06:00:00'),
          (1203, 11, '2026-04-30 22:00:00', '2026-05-01 06:00:00'),
          (1204, 11, '2026-05-05 22:00:00', '2026-05-06 06:00:00')`,
      );
      await source.connection.query("UPDATE Settings SET value = 'Weekly' WHERE name = 'Attendance: Overtime Calculation Period'");

      const result = await runHrm(t, ['import', 'icehrm', '--from', source.url]);

      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`${HEADING} (4), check these in the first payroll:`);
      expect(section(result, HEADING)).toEqual([
        'attendance 1201 (employee 11, in 2026-03-07 22:00:00, out 2026-03-08 06:00:00 America/New_York): spans a daylight-saving change: 7.00 h here (the elapsed time), 8.00 h in IceHrm (its wall-clock times)',
        'attendance 1202 (employee 6, in 2026-10-24 22:00:00, out 2026-10-25 06:00:00 Europe/Berlin): spans a daylight-saving change: 9.00 h here (the elapsed time), 8.00 h in IceHrm (its wall-clock times)',
        "attendance 1203 (employee 11, in 2026-04-30 22:00:00, out 2026-05-01 06:00:00 America/New_York): a night shift over the end of the pay period 2026-04-01 to 2026-04-30: IceHrm's period reports left it out (they take the records that begin and end within the period); here its 8.00 h count on 2026-04-30",
        WEEKLY_LINE,
      ]);
      // The records are imported all the same, with their elapsed hours.
      const dst = await t.db('attendance').where({ id: 1201 }).first('in_time_utc', 'out_time_utc');
      expect([String(dst.in_time_utc).slice(0, 19), String(dst.out_time_utc).slice(0, 19)]).toEqual([
        '2026-03-08 03:00:00',
        '2026-03-08 10:00:00',
      ]);

      // A dry run re-reads what the import wrote and lists the same.
      const dry = await runHrm(t, ['import', 'icehrm', '--from', source.url, '--dry-run']);
      expect(section(dry, HEADING)).toEqual(section(result, HEADING));
    });
  });
});
