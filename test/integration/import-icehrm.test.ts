import request from 'supertest';
import { runCli } from '../../src/cli/program';
import { createFirstAdmin } from '../../src/provisioning/first-admin';
import { startCloudTestApp, type CloudTestApp } from '../helpers/cloud-app';
import { type CliResult, runHrm } from '../helpers/cli';
import { changedTables, snapshotDatabase, tablesOf } from '../helpers/database-snapshot';
import { describeOnMysql, testDialects } from '../helpers/databases';
import { createEmployee, createUser, type TestUser } from '../helpers/factories';
import { BULK_DAYS, BULK_EMPLOYEES, BULK_FIRST_ID, createIcehrmFixture } from '../helpers/icehrm-fixture';
import { createIcehrmDatabase, type IcehrmDatabase, toBaseSchema } from '../../support/icehrm-schema';
import { approveTimesheet } from '../helpers/pay-periods';
import { asUser } from '../helpers/attendance';
import { startTestApp, type TestApp, useTestApp } from '../helpers/test-app';

// The fixture is an IceHrm database, which is MySQL: without a MySQL server there is nothing to import.
const serverUrl = process.env.HRM_TEST_MYSQL_URL;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The report's lines of one section ("Left out", "Imported differently"), without the indent. */
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

/** The counts line of one table: [read, added, updated, unchanged, rejected]. */
function countsOf(result: CliResult, table: string): number[] {
  const line = result.stdout.split('\n').find((text) => text.trim().startsWith(`${table} `));
  if (!line) throw new Error(`no line for ${table} in:\n${result.stdout}`);
  return [...line.matchAll(/(\d+) (?:read|added|updated|unchanged|rejected)/g)].map((match) => Number(match[1]));
}

async function countRows(t: TestApp, table: string): Promise<number> {
  const row = (await t.db(table).count({ n: '*' }).first()) as { n: number | string };
  return Number(row.n);
}

const BULK_ATTENDANCE = BULK_EMPLOYEES * BULK_DAYS;

/** The notes of the fixture's overtime settings (the California calculator, a daily period). */
const OVERTIME_NOTES = [
  "IceHrm's overtime calculators have no weekly rule: weekly_after_hours null (set it with PUT /pay-periods/settings, e.g. 40 for the FLSA)",
  "IceHrm's CaliforniaOvertimeCalculator: seventh_day true. IceHrm's seventh consecutive working day keeps its first hours regular and turns only its overtime into double time; here that day's first 8 hours are overtime and the rest double time (docs/pay-periods.md)",
];

describeOnMysql('hrm import icehrm', () => {
  let icehrm: IcehrmDatabase;
  beforeAll(async () => {
    icehrm = await createIcehrmFixture(serverUrl!);
  }, 60_000);
  afterAll(() => icehrm?.drop());

  describe.each(testDialects())('into %s', (dialect) => {
    const t = useTestApp(dialect);
    let first: CliResult;
    let admin: TestUser;
    beforeAll(async () => {
      first = await runHrm(t, ['import', 'icehrm', '--from', icehrm.url]);
      admin = await createUser(t, 'admin', { employee: null });
    }, 120_000);

    const get = (path: string) => request(t.app).get(t.api(path)).auth(admin.token, { type: 'bearer' });

    it('exits 0 with a line per table', () => {
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/^Importing IceHrm 26\.0 \(migration 260004\) from [^ ]+:\d+\/icehrm_t_\w+\n/);
      expect(countsOf(first, 'nationalities')).toEqual([193, 0, 0, 193, 0]);
      expect(countsOf(first, 'provinces')).toEqual([67, 1, 0, 65, 1]);
      expect(countsOf(first, 'employment_statuses')).toEqual([7, 1, 0, 6, 0]);
      expect(countsOf(first, 'job_titles')).toEqual([5, 3, 0, 0, 2]);
      expect(countsOf(first, 'pay_grades')).toEqual([2, 2, 0, 0, 0]);
      expect(countsOf(first, 'departments')).toEqual([5, 5, 0, 0, 0]);
      expect(countsOf(first, 'employees')).toEqual([10 + BULK_EMPLOYEES, 8 + BULK_EMPLOYEES, 0, 0, 2]);
      expect(countsOf(first, 'users')).toEqual([7, 6, 0, 0, 1]);
      expect(countsOf(first, 'attendance')).toEqual([14 + BULK_ATTENDANCE, 6 + BULK_ATTENDANCE, 0, 0, 8]);
      expect(first.stdout).toContain('IceHrm API tokens are not usable here.');
      expect(first.stdout).toMatch(/\nDone in \d+\.\d s: \d+ rows written\.\n$/);
    });

    it('lists every row left out, one a line with the reason', () => {
      expect(section(first, 'Left out')).toEqual(
        [
          'province 901 "ohio": US already has a province of that name here, under another id',
          'job title 4: has no name',
          'job title 5: the name "software engineer" is already job title 1',
          'employee 7 (EMP007): last_name must not be empty',
          'employee 9: employee_id is empty',
          'user 4 (bad name!): username "bad name!" is not usable here (1 to 100 of A-Z a-z 0-9 . _ @ -)',
          'leave type 3: name "" is empty or used by another leave type here',
          'leave 4: another pending or approved leave (1) holds 2026-05-12',
          'leave 5: employee 999 is not an employee here',
          "holiday 4: country 77 is not one of IceHrm's countries",
          'attendance of employee 7 (1 record): the employee is not here (deleted in IceHrm, or left out)',
          'attendance 1033 (employee 6, in 0000-00-00 00:00:00, out 2026-04-01 10:00:00): it has no in time',
          'attendance 1030 (employee 6, in 2026-02-02 08:00:00, out 2026-02-03 12:00:00): out_time must be at most 24 hours after in_time (max_shift_hours)',
          'attendance 1031 (employee 6, in 2026-02-05 10:00:00, out 2026-02-05 09:00:00): out_time must be after in_time',
          'attendance 1032 (employee 6, in 2026-03-29 02:30:00, out 2026-03-29 10:00:00): 2026-03-29 02:30:00 does not exist in Europe/Berlin (the clocks skip it for daylight saving time)',
          'attendance 1021 (employee 10, in 2026-02-02 16:00:00, out 2026-02-02 20:00:00): it overlaps record 1020',
          'attendance 1060 (employee 11, in 2030-01-01 09:00:00, out 2030-01-01 17:00:00): in_time must not be more than 300 seconds in the future (punch_future_tolerance_seconds); out_time must not be more than 300 seconds in the future (punch_future_tolerance_seconds)',
          'attendance 1010 (employee 4, in 2026-03-02 08:00:00, out none): it is open, but record 1011 begins later (one open record per employee: the latest)',
        ].sort((a, b) => first.stdout.indexOf(a) - first.stdout.indexOf(b)),
      );
    });

    it('notes every value it could not keep, never inventing a row', () => {
      expect(section(first, 'Imported differently')).toEqual(
        expect.arrayContaining([
          'employee 4 (EMP004): private_email "not-an-email" must be a valid e-mail address: left empty',
          "employee 4 (EMP004): province 41 is in US, not in the employee's country DE: left empty",
          'employee 8 (EMP008): job_title 4 is not a job title here (missing in IceHrm or left out): left empty',
          'employee 4 (EMP004): supervisor 500 is not an employee here (deleted in IceHrm, or left out): left empty',
          'employee 4 (EMP004): approver1 600 is not an employee here (deleted in IceHrm, or left out): left empty',
          'employee 4 (EMP004): indirect_supervisors lists 999 is not an employee here (deleted in IceHrm, or left out): left empty',
          'user 5 (ghost): employee 999 is not an employee here (deleted in IceHrm, or left out): no employee linked',
          'user 7 (una): employee 7 is not an employee here (deleted in IceHrm, or left out): no employee linked',
          'users: 1 with IceHrm\'s user level "Other" (custom roles) are employees here',
          'department 5: the name "sales" is already department 4\'s: imported as "sales (5)"',
        ]),
      );
      expect(section(first, 'Imported differently')).toEqual(
        expect.arrayContaining([
          'leave 3: cancellation requested in IceHrm: imported approved',
          "work days: 1 of a country's own are not carried (the work week here is one for everyone)",
          'work days: Saturday is a half day in IceHrm: a working day here',
        ]),
      );
      expect(section(first, 'Imported differently')).toHaveLength(13 + OVERTIME_NOTES.length);
    });

    it("carries IceHrm's overtime settings into the pay-period settings, noting what differs", async () => {
      expect(countsOf(first, 'pay_period_settings')).toEqual([1, 1, 0, 0, 0]);
      expect(JSON.parse((await t.db('pay_groups').where({ id: 1 }).first('settings')).settings)).toEqual({
        frequency: 'monthly',
        anchor_date: '2024-01-01',
        month_start_day: 1,
        workweek_start: 'sunday',
        overtime: { daily_after_hours: 8, daily_double_after_hours: 12, weekly_after_hours: null, seventh_day: true },
      });
      expect(section(first, 'Imported differently')).toEqual(expect.arrayContaining(OVERTIME_NOTES));
      // The API reads them as stored.
      expect((await get('/pay-periods/settings')).body).toEqual({
        frequency: 'monthly',
        anchor_date: '2024-01-01',
        month_start_day: 1,
        workweek_start: 'sunday',
        overtime: { daily_after_hours: 8, daily_double_after_hours: 12, weekly_after_hours: null, seventh_day: true },
      });
    });

    it('answers an imported employee field by field, ids kept', async () => {
      const res = await get('/employees/1');

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: '1',
        employee_id: 'EMP001',
        first_name: 'Ida',
        middle_name: null,
        last_name: 'Admin',
        nationality: { type: 'Nationality', id: '4', display: 'American' },
        birthday: '1980-02-03',
        gender: 'Female',
        marital_status: 'Married',
        ssn_num: '123-45-6789',
        nic_num: null,
        other_id: null,
        driving_license: null,
        employment_status: { type: 'EmploymentStatus', id: '3', display: 'Full Time Permanent' },
        job_title: { type: 'JobTitle', id: '3', display: 'Manager' },
        pay_grade: { type: 'PayGrade', id: '1', display: 'Grade A' },
        work_station_id: 'WS-1',
        address1: '1 Main Street',
        address2: null,
        city: 'Columbus',
        country: { type: 'Country', code: 'US', display: 'United States' },
        province: { type: 'Province', id: '41', display: 'Ohio' },
        postal_code: '43004',
        home_phone: null,
        mobile_phone: '+1-555-0101',
        work_phone: '+1-555-0100',
        work_email: 'ida@acme.example',
        private_email: null,
        joined_date: '2015-01-05',
        confirmation_date: '2015-04-05',
        supervisor: null,
        indirect_supervisors: null,
        department: { type: 'Department', id: '1', display: 'Acme' },
        termination_date: null,
        status: 'Active',
        approver1: null,
        approver2: null,
        approver3: null,
        timezone: 'America/New_York',
        // IceHrm has no badge numbers for terminals.
        attendance_device_id: null,
        // Nor payroll ids: copied only from the field --payroll-id-from names.
        payroll_id: null,
        pay_group: { type: 'PayGroup', id: '1', display: 'Default' },
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
    });

    it('turns zero dates and empty strings into no value, keeps id lists as lists and takes the time zone up the departments', async () => {
      const zoe = await get('/employees/3');

      expect(zoe.status).toBe(200);
      expect(zoe.body).toMatchObject({
        employee_id: 'EMP003',
        middle_name: null,
        birthday: null,
        joined_date: null,
        ssn_num: null,
        work_email: null,
        supervisor: { type: 'Employee', id: '2', display: 'Max Manager' },
        approver1: { type: 'Employee', id: '1', display: 'Ida Admin' },
        indirect_supervisors: '["1","2"]',
        department: { type: 'Department', id: '3', display: 'Engineering' },
        timezone: 'Europe/Berlin',
      });
    });

    it('leaves references to missing rows empty instead of inventing them', async () => {
      const sam = await get('/employees/4');
      const max = await get('/employees/2');

      expect(sam.body).toMatchObject({
        supervisor: null,
        approver1: null,
        indirect_supervisors: '["2"]',
        private_email: null,
        country: { type: 'Country', code: 'DE', display: 'Germany' },
        province: null,
        timezone: 'America/Chicago',
      });
      expect(max.body).toMatchObject({
        nationality: { type: 'Nationality', id: '35', display: 'Canadian' },
        province: { type: 'Province', id: '900', display: 'Bavaria' },
        job_title: { type: 'JobTitle', id: '1', display: 'Software Engineer' },
      });
      expect((await get('/employees/7')).status).toBe(404);
      expect((await get('/employees/500')).status).toBe(404);
      expect(await countRows(t, 'employees')).toBe(8 + BULK_EMPLOYEES);
    });

    it('links employees to supervisors and approvers imported after them', async () => {
      const olaf = await get('/employees/6');

      expect(olaf.body).toMatchObject({
        supervisor: { type: 'Employee', id: '11', display: 'Wes Night' },
        approver1: null,
        approver2: { type: 'Employee', id: '10', display: 'Vic Overlap' },
      });
    });

    it('imports the company structure as departments, nested as in IceHrm', async () => {
      const rows = await t.db('departments').whereIn('id', [1, 2, 3, 4, 5]).orderBy('id').select('id', 'name', 'description', 'parent_id');

      expect(rows.map((row) => ({ ...row, id: Number(row.id), parent_id: row.parent_id === null ? null : Number(row.parent_id) }))).toEqual(
        [
          { id: 1, name: 'Acme', description: 'The company', parent_id: null },
          { id: 2, name: 'Berlin Office', description: null, parent_id: 1 },
          { id: 3, name: 'Engineering', description: 'Builds things', parent_id: 2 },
          { id: 4, name: 'Sales', description: null, parent_id: 1 },
          { id: 5, name: 'sales (5)', description: null, parent_id: 2 },
        ],
      );
    });

    it("answers imported attendance field by field, the wall clock read in the employee's zone", async () => {
      const winter = await get('/attendance/1001');
      const summer = await get('/attendance/1002');
      const open = await get('/attendance/1003');
      const night = await get('/attendance/1050');

      expect(winter.status).toBe(200);
      expect(winter.body).toEqual({
        id: '1001',
        employee: { type: 'Employee', id: '3', display: 'Zoe Zero' },
        in_time: '2026-01-12 09:00:00',
        out_time: '2026-01-12 17:30:00',
        note: 'Office',
        out_note: null,
        timezone: 'Europe/Berlin',
        in_time_utc: '2026-01-12T08:00:00Z',
        out_time_utc: '2026-01-12T16:30:00Z',
        hours: 8.5,
        latitude: 52.52,
        longitude: 13.405,
        out_latitude: 52.521,
        out_longitude: 13.406,
        in_ip: '10.0.0.3',
        out_ip: '10.0.0.4',
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect(summer.body).toMatchObject({
        in_time: '2026-07-13 09:00:00',
        in_time_utc: '2026-07-13T07:00:00Z',
        out_time_utc: '2026-07-13T15:00:00Z',
        hours: 8,
      });
      expect(open.body).toMatchObject({ in_time: '2026-07-14 08:00:00', out_time: null, out_time_utc: null, hours: null, note: null });
      expect(night.body).toMatchObject({
        timezone: 'America/New_York',
        in_time: '2026-02-09 23:00:00',
        out_time: '2026-02-10 07:00:00',
        in_time_utc: '2026-02-10T04:00:00Z',
        out_time_utc: '2026-02-10T12:00:00Z',
        hours: 8,
      });
      for (const left of [1010, 1021, 1030, 1031, 1032, 1033, 1040, 1060]) expect((await get(`/attendance/${left}`)).status).toBe(404);
      expect((await get('/attendance/1011')).body).toMatchObject({ out_time: null });
    });

    it('imports users without passwords, roles from the user level; a token makes them work at once', async () => {
      const users = await t
        .db('users')
        .whereIn('username', ['admin', 'max', 'zoe', 'ghost', 'vic', 'una'])
        .orderBy('username')
        .select('username', 'role', 'employee_id', 'password_hash');
      const issued = await runHrm(t, ['token', 'issue', '--username', 'zoe']);
      const me = await request(t.app).get(t.api('/employees/me')).auth(issued.stdout.trim(), { type: 'bearer' });

      expect(users.map((user) => ({ ...user, employee_id: user.employee_id === null ? null : Number(user.employee_id) }))).toEqual([
        { username: 'admin', role: 'admin', employee_id: 1, password_hash: null },
        { username: 'ghost', role: 'employee', employee_id: null, password_hash: null },
        { username: 'max', role: 'manager', employee_id: 2, password_hash: null },
        { username: 'una', role: 'employee', employee_id: null, password_hash: null },
        { username: 'vic', role: 'employee', employee_id: 10, password_hash: null },
        { username: 'zoe', role: 'employee', employee_id: 3, password_hash: null },
      ]);
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ id: '3', user_name: 'zoe', user_level: 'Employee' });
    });

    it('carries leave types, leaves with their days, holidays and the work week, ids kept', async () => {
      expect(countsOf(first, 'leave types')).toEqual([3, 2, 0, 0, 1]);
      expect(countsOf(first, 'leaves')).toEqual([6, 4, 0, 0, 2]);
      expect(countsOf(first, 'holidays')).toEqual([4, 3, 0, 0, 1]);
      // No employee of its own: a second run refuses a database holding employees IceHrm did not give.
      const admin = await createUser(t, 'admin', { employee: null });
      const types = await asUser(t, admin).get('/leave-types');
      expect(types.body.data).toEqual([
        { id: '1', name: 'Annual leave', paid: true, code: 'PTO', private: true, include_holidays: false },
        { id: '2', name: 'Sick leave', paid: true, code: 'PTO', private: true, include_holidays: false },
      ]);
      const leaves = await asUser(t, admin).get('/leaves?from=2026-05-01&to=2026-05-31');
      expect(
        leaves.body.data.map((leave: Record<string, any>) => [
          leave.id,
          leave.employee.id,
          leave.leave_type.id,
          leave.status,
          leave.note,
          leave.days,
        ]),
      ).toEqual([
        ['1', '1', '1', 'approved', 'Trip', ['2026-05-11', '2026-05-12', '2026-05-13'].map((date) => ({ date, portion: 'full' }))],
        ['2', '2', '2', 'pending', null, [{ date: '2026-05-12', portion: 'am' }]],
        ['3', '3', '1', 'approved', null, [{ date: '2026-05-14', portion: 'hours', hours: 2 }]],
        ['6', '2', '1', 'rejected', null, ['2026-05-18', '2026-05-19'].map((date) => ({ date, portion: 'full' }))],
      ]);
      const holidays = await asUser(t, admin).get('/holidays');
      expect(holidays.body.data).toEqual([
        { id: '1', date: '2026-01-01', name: "New Year's Day", portion: 'full', country: null, paid: true },
        { id: '2', date: '2026-10-03', name: 'Tag der Deutschen Einheit', portion: 'full', country: 'DE', paid: true },
        { id: '3', date: '2026-12-24', name: 'Christmas Eve', portion: 'half', country: null, paid: true },
      ]);
      expect((await asUser(t, admin).get('/leave-settings')).body.work_week).toEqual([
        'monday',
        'tuesday',
        'wednesday',
        'thursday',
        'friday',
        'saturday',
      ]);
    });

    it('changes nothing on a second run', async () => {
      const tables = await tablesOf(t.db);
      const before = await snapshotDatabase(t.db, tables);

      const second = await runHrm(t, ['import', 'icehrm', '--from', icehrm.url]);

      expect(second.code).toBe(0);
      expect(changedTables(before, await snapshotDatabase(t.db, tables))).toEqual([]);
      expect(countsOf(second, 'employees')).toEqual([10 + BULK_EMPLOYEES, 0, 0, 8 + BULK_EMPLOYEES, 2]);
      expect(countsOf(second, 'attendance')).toEqual([14 + BULK_ATTENDANCE, 0, 0, 6 + BULK_ATTENDANCE, 8]);
      expect(countsOf(second, 'users')).toEqual([7, 0, 0, 6, 1]);
      expect(second.stdout).toMatch(/: 0 rows written\.\n$/);
    });
  });

  describe.each(testDialects())('on %s, with --payroll-id-from', (dialect) => {
    const t = useTestApp(dialect);
    let source: IcehrmDatabase;
    beforeAll(async () => {
      source = await createIcehrmFixture(serverUrl!);
    }, 60_000);
    afterAll(() => source.drop());
    const payrollIds = async () =>
      (await t
        .db('employees')
        .whereIn('id', [BULK_FIRST_ID, BULK_FIRST_ID + 1, BULK_FIRST_ID + 2])
        .orderBy('id')
        .select('id', 'payroll_id')) as Array<{
        id: number;
        payroll_id: string | null;
      }>;

    it('copies the named field into payroll_id, leaving out and noting one another employee has; without the flag it writes none', async () => {
      await source.connection.query(`UPDATE Employees SET other_id = ' ADP-20 ' WHERE id = ${BULK_FIRST_ID}`);
      await source.connection.query(`UPDATE Employees SET other_id = 'adp-20' WHERE id = ${BULK_FIRST_ID + 1}`);
      const unknown = await runHrm(t, ['import', 'icehrm', '--from', source.url, '--payroll-id-from', 'payroll_number']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toBe("hrm: --payroll-id-from: IceHrm's employees have no field payroll_number\n");
      expect(await countRows(t, 'employees')).toBe(0);

      const plain = await runHrm(t, ['import', 'icehrm', '--from', source.url]);
      expect(plain.code).toBe(0);
      expect(await payrollIds()).toEqual([
        { id: BULK_FIRST_ID, payroll_id: null },
        { id: BULK_FIRST_ID + 1, payroll_id: null },
        { id: BULK_FIRST_ID + 2, payroll_id: null },
      ]);

      const copied = await runHrm(t, ['import', 'icehrm', '--from', source.url, '--payroll-id-from', 'other_id']);

      expect(copied.code).toBe(0);
      expect(await payrollIds()).toEqual([
        { id: BULK_FIRST_ID, payroll_id: 'ADP-20' },
        { id: BULK_FIRST_ID + 1, payroll_id: null },
        { id: BULK_FIRST_ID + 2, payroll_id: null },
      ]);
      expect(copied.stdout).toContain(`employee ${BULK_FIRST_ID + 1} `);
      expect(copied.stdout).toContain(`payroll_id from other_id "adp-20" is already employee ${BULK_FIRST_ID}'s: left empty`);

      // An id an admin sets here survives a re-run without the flag.
      await t
        .db('employees')
        .where({ id: BULK_FIRST_ID + 2 })
        .update({ payroll_id: 'SET-HERE' });
      expect((await runHrm(t, ['import', 'icehrm', '--from', source.url])).code).toBe(0);
      expect((await payrollIds())[2]).toEqual({ id: BULK_FIRST_ID + 2, payroll_id: 'SET-HERE' });
      expect((await payrollIds())[0]).toEqual({ id: BULK_FIRST_ID, payroll_id: 'ADP-20' });
    });
  });

  describe.each(testDialects())('on %s, re-run after changes in IceHrm', (dialect) => {
    const t = useTestApp(dialect);
    let source: IcehrmDatabase;
    beforeAll(async () => {
      source = await createIcehrmFixture(serverUrl!);
    }, 60_000);
    afterAll(() => source.drop());

    it('rewrites only what changed, removes a record that now breaks the rules; --since reads only the attendance from that day', async () => {
      await source.connection.query(
        "INSERT INTO Attendance (id, employee, in_time, out_time) VALUES (1102, 11, '2026-07-20 08:00:00', NULL)",
      );
      expect((await runHrm(t, ['import', 'icehrm', '--from', source.url])).code).toBe(0);
      // Wes punched out and in again: the record that was open is closed, a new one is open.
      await source.connection.query("UPDATE Attendance SET out_time = '2026-07-20 16:00:00' WHERE id = 1102");
      await source.connection.query(
        "INSERT INTO Attendance (id, employee, in_time, out_time) VALUES (1103, 11, '2026-07-21 08:00:00', NULL)",
      );
      await source.connection.query("UPDATE Employees SET last_name = 'Renamed' WHERE id = 2");
      await source.connection.query("UPDATE Attendance SET note = 'Changed' WHERE id = 1002");
      await source.connection.query("UPDATE Attendance SET note = 'Too old to read' WHERE id = 1001");
      await source.connection.query(
        "INSERT INTO Attendance (id, employee, in_time, out_time) VALUES (1100, 3, '2026-08-03 09:00:00', '2026-08-03 17:00:00')",
      );

      const rerun = await runHrm(t, ['import', 'icehrm', '--from', source.url, '--since', '2026-07-01']);

      expect(rerun.code).toBe(0);
      expect(countsOf(rerun, 'employees')).toEqual([10 + BULK_EMPLOYEES, 0, 1, 7 + BULK_EMPLOYEES, 2]);
      expect(countsOf(rerun, 'attendance')).toEqual([6, 2, 2, 0, 2]);
      expect(await t.db('attendance').whereIn('id', [1102, 1103]).orderBy('id').select('id', 'out_time_local', 'open_employee_id')).toEqual(
        [
          { id: 1102, out_time_local: '2026-07-20 16:00:00', open_employee_id: null },
          { id: 1103, out_time_local: null, open_employee_id: 11 },
        ],
      );
      expect(section(rerun, 'Left out')).toContain(
        'attendance 1003 (employee 3, in 2026-07-14 08:00:00, out none): it is open, but record 1100 begins later (one open record per employee: the latest); an earlier run imported it: removed here',
      );
      expect(await t.db('attendance').where({ id: 1003 }).first()).toBeUndefined();
      expect(await t.db('deleted_attendance').where({ attendance_id: 1003 }).select('employee_id')).toEqual([{ employee_id: 3 }]);
      expect(await t.db('employees').where({ id: 2 }).first()).toMatchObject({ last_name: 'Renamed' });
      expect(await t.db('attendance').where({ id: 1002 }).first()).toMatchObject({ note: 'Changed' });
      expect(await t.db('attendance').where({ id: 1001 }).first()).toMatchObject({ note: 'Office' });
      expect(await t.db('attendance').where({ id: 1100 }).first()).toMatchObject({ employee_id: 3, in_time_utc: '2026-08-03 07:00:00' });
    });
  });

  describe.each(testDialects())('on %s, re-run after a lock made a record a missed punch-out', (dialect) => {
    const t = useTestApp(dialect);
    let source: IcehrmDatabase;
    beforeAll(async () => {
      source = await createIcehrmFixture(serverUrl!);
    }, 60_000);
    afterAll(() => source.drop());
    const record = (id: number) => t.db('attendance').where({ id }).first('note', 'out_time_local', 'open_employee_id', 'missed_punch_out');

    it('keeps it missed when IceHrm changes it, and imports later records beside it rather than against an open record', async () => {
      expect((await runHrm(t, ['import', 'icehrm', '--from', source.url])).code).toBe(0);
      expect(await record(1003)).toEqual({ note: null, out_time_local: null, open_employee_id: 3, missed_punch_out: 0 });
      expect((await runHrm(t, ['pay-period', 'lock', '--start', '2026-07-01', '--allow-open-records'])).code).toBe(0);
      expect((await runHrm(t, ['pay-period', 'unlock', '--start', '2026-07-01'])).code).toBe(0);
      await source.connection.query("UPDATE Attendance SET note = 'Forgot to punch out' WHERE id = 1003");

      const changed = await runHrm(t, ['import', 'icehrm', '--from', source.url, '--since', '2026-07-01']);

      expect(changed.code).toBe(0);
      expect(await record(1003)).toEqual({
        note: 'Forgot to punch out',
        out_time_local: null,
        open_employee_id: null,
        missed_punch_out: 1,
      });

      await source.connection.query(
        "INSERT INTO Attendance (id, employee, in_time, out_time) VALUES (1105, 3, '2026-07-21 09:00:00', '2026-07-21 17:00:00')",
      );
      const later = await runHrm(t, ['import', 'icehrm', '--from', source.url, '--since', '2026-07-20']);

      expect(later.code).toBe(0);
      expect(section(later, 'Left out').filter((line) => line.startsWith('attendance 1105 '))).toEqual([]);
      expect(await record(1105)).toEqual({
        note: null,
        out_time_local: '2026-07-21 17:00:00',
        open_employee_id: null,
        missed_punch_out: 0,
      });
      expect(await record(1003)).toMatchObject({ open_employee_id: null, missed_punch_out: 1 });
    });
  });

  describe.each(testDialects())('into a database with a locked pay period, on %s', (dialect) => {
    const t = useTestApp(dialect);
    let source: IcehrmDatabase;
    beforeAll(async () => {
      source = await createIcehrmFixture(serverUrl!);
    }, 60_000);
    afterAll(() => source.drop());
    const leftOut = (result: CliResult) => section(result, 'Left out');
    const locked = (line: string, date: string, kept: string) =>
      `${line}: it counts on ${date}, in the locked pay period 2026-02-01 to 2026-02-28: ${kept} (unlock the period and run the import again to take it)`;

    it('leaves out and reports the records that count in it, on the first run and on a re-run, and reopens approved timesheets it changes', async () => {
      await t.db('pay_period_locks').insert({ period_start: '2026-02-01', period_end: '2026-02-28', locked_at: '2026-03-01 00:00:00.000' });
      await t
        .db('pay_groups')
        .where({ id: 1 })
        .update({ settings: JSON.stringify({ frequency: 'semimonthly', overtime: { weekly_after_hours: 40 } }) });

      const first = await runHrm(t, ['import', 'icehrm', '--from', source.url]);

      expect(first.code).toBe(0);
      // The period layout stays; the overtime rules are IceHrm's.
      expect(countsOf(first, 'pay_period_settings')).toEqual([1, 0, 1, 0, 0]);
      expect(JSON.parse((await t.db('pay_groups').where({ id: 1 }).first('settings')).settings)).toMatchObject({
        frequency: 'semimonthly',
        workweek_start: 'sunday',
        overtime: { daily_after_hours: 8, daily_double_after_hours: 12, weekly_after_hours: null, seventh_day: true },
      });
      // February's records (some of which break other rules too) are reported as locked, and not imported.
      expect(leftOut(first)).toEqual(
        expect.arrayContaining([
          locked('attendance 1030 (employee 6, in 2026-02-02 08:00:00, out 2026-02-03 12:00:00)', '2026-02-02', 'not imported'),
          locked('attendance 1050 (employee 11, in 2026-02-09 23:00:00, out 2026-02-10 07:00:00)', '2026-02-09', 'not imported'),
          locked('attendance 1020 (employee 10, in 2026-02-02 09:00:00, out 2026-02-02 17:00:00)', '2026-02-02', 'not imported'),
          locked('attendance 1021 (employee 10, in 2026-02-02 16:00:00, out 2026-02-02 20:00:00)', '2026-02-02', 'not imported'),
        ]),
      );
      expect(await t.db('attendance').whereIn('id', [1020, 1021, 1030, 1031, 1040, 1050]).pluck('id')).toEqual([]);
      expect(await t.db('attendance').whereIn('id', [1001, 1002]).orderBy('id').pluck('id')).toEqual([1001, 1002]);

      // Unlocked, imported; then locked again, and IceHrm changes: a February record, one moved into
      // February, a new one there, and a July record of an approved timesheet.
      await t.db('pay_period_locks').delete();
      expect((await runHrm(t, ['import', 'icehrm', '--from', source.url])).code).toBe(0);
      expect(await t.db('attendance').where({ id: 1050 }).first('out_time_local')).toEqual({ out_time_local: '2026-02-10 07:00:00' });
      await t.db('pay_period_locks').insert({ period_start: '2026-02-01', period_end: '2026-02-28', locked_at: '2026-03-01 00:00:00.000' });
      await approveTimesheet(t, 3, '2026-07-01', '2026-07-31');
      await source.connection.query("UPDATE Attendance SET out_time = '2026-02-10 06:00:00' WHERE id = 1050");
      await source.connection.query(
        "UPDATE Attendance SET in_time = '2026-02-16 09:00:00', out_time = '2026-02-16 17:00:00' WHERE id = 1001",
      );
      await source.connection.query(
        "INSERT INTO Attendance (id, employee, in_time, out_time) VALUES (1104, 11, '2026-02-03 09:00:00', '2026-02-03 17:00:00')",
      );
      await source.connection.query("UPDATE Attendance SET out_time = '2026-07-13 18:00:00' WHERE id = 1002");
      const records = async () =>
        t.db('attendance').whereIn('id', [1001, 1050, 1104]).orderBy('id').select('id', 'in_time_local', 'out_time_local', 'updated_at');
      const before = await records();

      const rerun = await runHrm(t, ['import', 'icehrm', '--from', source.url]);

      expect(rerun.code).toBe(0);
      expect(leftOut(rerun)).toEqual(
        expect.arrayContaining([
          locked(
            'attendance 1050 (employee 11, in 2026-02-09 23:00:00, out 2026-02-10 06:00:00)',
            '2026-02-09',
            'the record imported before stays as it is',
          ),
          locked(
            'attendance 1001 (employee 3, in 2026-02-16 09:00:00, out 2026-02-16 17:00:00)',
            '2026-02-16',
            'the record imported before stays as it is',
          ),
          locked('attendance 1104 (employee 11, in 2026-02-03 09:00:00, out 2026-02-03 17:00:00)', '2026-02-03', 'not imported'),
        ]),
      );
      // Unchanged February records are not reported.
      expect(leftOut(rerun).filter((line) => line.startsWith('attendance 1020 '))).toEqual([]);
      expect(await records()).toEqual(before);
      expect(await t.db('attendance').where({ id: 1002 }).first('out_time_local')).toEqual({ out_time_local: '2026-07-13 18:00:00' });
      expect(await t.db('timesheet_approvals').where({ employee_id: 3 }).pluck('status')).toEqual(['open']);
      expect(await t.db('audit_log').where({ entity_type: 'timesheet', entity_id: 3 }).pluck('action')).toEqual(['timesheet.reopen']);
    });
  });

  describe.each(testDialects())('on %s', (dialect) => {
    let t: TestApp;
    beforeEach(async () => {
      t = await startTestApp(dialect);
    });
    afterEach(() => t.close());

    it('shows a running count on a terminal, and only the table lines elsewhere', async () => {
      const onTerminal = await runHrm(t, ['import', 'icehrm', '--from', icehrm.url], { terminal: true });
      const other = await startTestApp(dialect);
      const inFile = await runHrm(other, ['import', 'icehrm', '--from', icehrm.url]);
      await other.close();

      expect(onTerminal.code).toBe(0);
      // eslint-disable-next-line no-control-regex -- the terminal's erase-line sequence
      expect(onTerminal.stdout).toMatch(/\r\x1b\[K {2}employees: \d+ of \d+/);
      expect(onTerminal.stdout).toMatch(new RegExp(`\\r\\x1b\\[K {2}attendance: \\d+ of ${6 + BULK_ATTENDANCE + 7}`));
      // eslint-disable-next-line no-control-regex -- the terminal's erase-line sequence
      expect(onTerminal.stdout).toMatch(/\r\x1b\[K {2}attendance {11}/);
      expect(inFile.stdout).not.toContain('\r');
      expect(inFile.stdout).not.toContain('\x1b');
    });

    it('with --dry-run checks and reports everything and writes nothing', async () => {
      const tables = await tablesOf(t.db);
      const before = await snapshotDatabase(t.db, tables);

      const dry = await runHrm(t, ['import', 'icehrm', '--from', icehrm.url, '--dry-run']);

      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain('(dry run: nothing is written)');
      expect(countsOf(dry, 'employees')).toEqual([10 + BULK_EMPLOYEES, 8 + BULK_EMPLOYEES, 0, 0, 2]);
      expect(countsOf(dry, 'attendance')).toEqual([14 + BULK_ATTENDANCE, 6 + BULK_ATTENDANCE, 0, 0, 8]);
      expect(section(dry, 'Left out')).toHaveLength(18);
      expect(dry.stdout).toMatch(/: nothing written \(dry run\)\.\n$/);
      expect(changedTables(before, await snapshotDatabase(t.db, tables))).toEqual([]);
    });

    it('refuses a database that holds other employees without --merge; with it, imports beside them', async () => {
      const own = await createEmployee(t, { employee_id: 'OWN1' });
      // A record of this server's whose id IceHrm's record 1001 also has.
      await t.db('attendance').insert({
        id: 1001,
        employee_id: own,
        in_time_utc: '2026-01-05 08:00:00',
        in_time_local: '2026-01-05 08:00:00',
        out_time_utc: '2026-01-05 16:00:00',
        out_time_local: '2026-01-05 16:00:00',
        timezone: 'UTC',
        created_at: '2026-01-05 16:00:00.000',
        updated_at: '2026-01-05 16:00:00.000',
      });
      const tables = await tablesOf(t.db);
      const before = await snapshotDatabase(t.db, tables);

      const refused = await runHrm(t, ['import', 'icehrm', '--from', icehrm.url]);
      const unchanged = changedTables(before, await snapshotDatabase(t.db, tables));
      const merged = await runHrm(t, ['import', 'icehrm', '--from', icehrm.url, '--merge']);

      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe(
        'hrm: This database already holds 1 employee that did not come from IceHrm: import into an empty one, or add --merge to import beside them\n',
      );
      expect(unchanged).toEqual([]);
      expect(merged.code).toBe(0);
      expect(section(merged, 'Left out')).toContain(
        `employee ${own} (EMP00${own}): id ${own} is taken here by employee OWN1, which did not come from IceHrm`,
      );
      expect(section(merged, 'Left out')).toContain(
        'attendance 1001 (employee 3, in 2026-01-12 09:00:00, out 2026-01-12 17:30:00): id 1001 is taken here by a record that did not come from IceHrm',
      );
      expect(await t.db('employees').where({ id: own }).first()).toMatchObject({ employee_id: 'OWN1' });
      expect(await t.db('attendance').where({ id: 1001 }).first()).toMatchObject({ employee_id: own, timezone: 'UTC' });
      expect(await t.db('attendance').where({ id: 1002 }).first()).toMatchObject({ employee_id: 3 });
    });

    it("replaces the first start's ADMIN record; the admin user becomes IceHrm's admin and its token keeps working", async () => {
      const firstAdmin = await createFirstAdmin(t.instance, t.clock.now());

      const result = await runHrm(t, ['import', 'icehrm', '--from', icehrm.url]);
      const me = await request(t.app).get(t.api('/employees/me')).auth(firstAdmin!.token, { type: 'bearer' });

      expect(result.code).toBe(0);
      expect(section(result, 'Imported differently')).toEqual(
        expect.arrayContaining([
          "employee 1: this server's first-start record ADMIN (employee 1) makes room for it; the admin user stays",
          "user 1 (admin): takes over this server's first-start user admin (its tokens keep working)",
        ]),
      );
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ id: '1', employee_id: 'EMP001', user_name: 'admin', user_level: 'Admin' });
    });

    it.each([
      [
        'an unreachable database',
        () => 'mysql://root@127.0.0.1:1/icehrm',
        /^hrm: Cannot read the IceHrm database at 127\.0\.0\.1:1\/icehrm \(ECONNREFUSED\)\n$/,
      ],
      [
        'a URL that is not mysql://',
        () => 'postgres://root@127.0.0.1/icehrm',
        /^hrm: --from must be a URL like mysql:\/\/user:password@host:3306\/icehrm\n$/,
      ],
    ])('answers %s with one line and exit status 2, writing nothing', async (_, from, message) => {
      const tables = await tablesOf(t.db);
      const before = await snapshotDatabase(t.db, tables);

      const consoleWrites = ['log', 'warn', 'error'].map((method) =>
        jest.spyOn(console, method as 'log').mockImplementation(() => undefined),
      );

      const result = await runHrm(t, ['import', 'icehrm', '--from', from()]);
      const printedElsewhere = consoleWrites.flatMap((spy) => spy.mock.calls);
      for (const spy of consoleWrites) spy.mockRestore();

      expect(result).toEqual({ code: 2, stdout: '', stderr: expect.stringMatching(message) });
      expect(printedElsewhere).toEqual([]);
      expect(changedTables(before, await snapshotDatabase(t.db, tables))).toEqual([]);
    });

    it('answers a database that is not IceHrm, or lacks a column no row means anything without, with one line and exit status 2', async () => {
      const empty = await createIcehrmDatabase(serverUrl!, { tables: false });
      const broken = await createIcehrmFixture(serverUrl!);
      await broken.connection.query('ALTER TABLE `Attendance` DROP COLUMN `in_time`, DROP COLUMN `map_lat`');
      try {
        const notIcehrm = await runHrm(t, ['import', 'icehrm', '--from', empty.url]);
        const lacking = await runHrm(t, ['import', 'icehrm', '--from', broken.url]);
        const badSince = await runHrm(t, ['import', 'icehrm', '--from', broken.url, '--since', '2026-02-30']);

        expect(notIcehrm).toEqual({
          code: 2,
          stdout: '',
          stderr: expect.stringMatching(/^hrm: [^ ]+\/icehrm_t_\w+ is not an IceHrm database: it has no table Nationality\n$/),
        });
        expect(lacking).toEqual({
          code: 2,
          stdout: '',
          stderr: expect.stringMatching(/^hrm: [^ ]+\/icehrm_t_\w+ is not an IceHrm database: table Attendance lacks in_time\n$/),
        });
        expect(badSince).toEqual({ code: 2, stdout: '', stderr: 'hrm: --since must be a date YYYY-MM-DD\n' });
        expect(await countRows(t, 'employees')).toBe(0);
      } finally {
        await empty.drop();
        await broken.drop();
      }
    });
  });

  describe.each(testDialects())("from IceHrm's base schema and older releases, on %s", (dialect) => {
    let t: TestApp;
    beforeEach(async () => {
      t = await startTestApp(dialect);
    });
    afterEach(() => t.close());

    it('imports a database created from icehrmdb.sql, without the columns run-time migrations add, leaving them empty and saying so once', async () => {
      const base = await createIcehrmFixture(serverUrl!);
      await toBaseSchema(base);
      try {
        const result = await runHrm(t, ['import', 'icehrm', '--from', base.url]);

        expect(result.code).toBe(0);
        expect(result.stdout).toMatch(/^Importing IceHrm \(no applied migration recorded\) from [^ ]+:\d+\/icehrm_t_\w+\n/);
        const notes = section(result, 'Imported differently');
        expect(notes.filter((line) => line.startsWith("IceHrm's database has no"))).toEqual([
          "IceHrm's database has no Attendance map_lat, map_lng, map_out_lat, map_out_lng, in_ip, out_ip (its base schema, or a release before 26): imported empty",
        ]);
        expect(notes).toHaveLength(14 + OVERTIME_NOTES.length);
        expect(countsOf(result, 'employees')).toEqual([10 + BULK_EMPLOYEES, 8 + BULK_EMPLOYEES, 0, 0, 2]);
        expect(countsOf(result, 'attendance')).toEqual([14 + BULK_ATTENDANCE, 6 + BULK_ATTENDANCE, 0, 0, 8]);
        expect(
          await t
            .db('attendance')
            .where({ id: 1001 })
            .first('note', 'latitude', 'longitude', 'out_latitude', 'out_longitude', 'in_ip', 'out_ip'),
        ).toEqual({
          note: 'Office',
          latitude: null,
          longitude: null,
          out_latitude: null,
          out_longitude: null,
          in_ip: null,
          out_ip: null,
        });
      } finally {
        await base.drop();
      }
    });

    it('imports a release older than 26 whose tables have every column, naming its version', async () => {
      const old = await createIcehrmFixture(serverUrl!, { version: 250012 });
      try {
        const result = await runHrm(t, ['import', 'icehrm', '--from', old.url]);

        expect(result.code).toBe(0);
        expect(result.stdout).toMatch(/^Importing IceHrm 25\.0 \(migration 250012\) from /);
        expect(section(result, 'Imported differently').filter((line) => line.startsWith("IceHrm's database has no"))).toEqual([]);
        expect(await t.db('attendance').where({ id: 1001 }).first('latitude', 'in_ip')).toEqual({
          latitude: expect.anything(),
          in_ip: '10.0.0.3',
        });
      } finally {
        await old.drop();
      }
    });
  });

  describe.each(testDialects())('in cloud mode on %s', (dialect) => {
    let c: CloudTestApp;
    beforeAll(async () => {
      c = await startCloudTestApp(dialect);
    });
    afterAll(() => c.close());

    async function hrm(argv: string[]): Promise<CliResult> {
      let stdout = '';
      let stderr = '';
      const code = await runCli(argv, {
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: (text: string) => (stderr += text) },
        env: { DATABASE_URL: c.control.url, DEPLOYMENT: 'cloud', LOG_LEVEL: 'silent' },
        readStdin: async () => '',
        clock: c.clock,
      });
      return { code, stdout, stderr };
    }

    it("imports into the instance named by --instance; its admin token then answers as IceHrm's admin", async () => {
      const created = await hrm(['instance', 'create', 'moving-co']);
      const token = /^\s+(eyJ[\w-]+\.[\w-]+\.[\w-]+)$/m.exec(created.stdout)?.[1] as string;

      const imported = await hrm(['--instance', 'moving-co', 'import', 'icehrm', '--from', icehrm.url]);
      await hrm(['--instance', 'moving-co', 'api', 'enable']);
      c.clock.advance(1001);
      const me = await request(c.app).get(c.api('moving-co', '/employees/me')).auth(token, { type: 'bearer' });
      const record = await request(c.app).get(c.api('moving-co', '/attendance/1001')).auth(token, { type: 'bearer' });

      expect(imported.code).toBe(0);
      expect(countsOf(imported, 'employees')).toEqual([10 + BULK_EMPLOYEES, 8 + BULK_EMPLOYEES, 0, 0, 2]);
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ id: '1', employee_id: 'EMP001', user_name: 'admin', user_level: 'Admin' });
      expect(record.body).toMatchObject({ id: '1001', in_time_utc: '2026-01-12T08:00:00Z', timezone: 'Europe/Berlin' });
    });
  });
});
