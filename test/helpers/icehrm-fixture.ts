import { ICEHRM_NATIONALITIES } from '../../migrations/data/icehrm-nationalities';
import { ICEHRM_PROVINCES } from '../../migrations/data/icehrm-provinces';
import { createIcehrmDatabase, type IcehrmDatabase } from '../../support/icehrm-schema';

/** Ordinary employees after the awkward ones: ids from BULK_FIRST_ID, with BULK_DAYS days of attendance each. */
export const BULK_FIRST_ID = 20;
export const BULK_EMPLOYEES = 150;
export const BULK_DAYS = 2;

type Row = Record<string, unknown>;

const employee = (row: Row): Row => ({
  middle_name: null,
  nationality: null,
  birthday: null,
  gender: null,
  marital_status: null,
  ssn_num: null,
  nic_num: null,
  other_id: null,
  driving_license: null,
  employment_status: null,
  job_title: null,
  pay_grade: null,
  work_station_id: null,
  address1: null,
  address2: null,
  city: null,
  country: null,
  province: null,
  postal_code: null,
  home_phone: null,
  mobile_phone: null,
  work_phone: null,
  work_email: null,
  private_email: null,
  joined_date: null,
  confirmation_date: null,
  supervisor: null,
  indirect_supervisors: null,
  department: null,
  termination_date: null,
  status: 'Active',
  approver1: null,
  approver2: null,
  approver3: null,
  ...row,
});

const attendance = (id: number, employeeId: number, inTime: string | null, outTime: string | null, extra: Row = {}): Row => ({
  id,
  employee: employeeId,
  in_time: inTime,
  out_time: outTime,
  note: null,
  map_lat: null,
  map_lng: null,
  map_out_lat: null,
  map_out_lng: null,
  in_ip: null,
  out_ip: null,
  ...extra,
});

/** The awkward employees, by IceHrm id (see createIcehrmFixture for what each one tests). */
export const EMPLOYEES: Row[] = [
  employee({
    id: 1,
    employee_id: 'EMP001',
    first_name: 'Ida',
    last_name: 'Admin',
    nationality: 4,
    birthday: '1980-02-03',
    gender: 'Female',
    marital_status: 'Married',
    ssn_num: '123-45-6789',
    employment_status: 3,
    job_title: 3,
    pay_grade: 1,
    work_station_id: 'WS-1',
    address1: '1 Main Street',
    city: 'Columbus',
    country: 'US',
    province: 41,
    postal_code: '43004',
    mobile_phone: '+1-555-0101',
    work_phone: '+1-555-0100',
    work_email: 'ida@acme.example',
    joined_date: '2015-01-05',
    confirmation_date: '2015-04-05',
    department: 1,
  }),
  employee({
    id: 2,
    employee_id: 'EMP002',
    first_name: 'Max',
    last_name: 'Manager',
    nationality: 35,
    country: 'DE',
    province: 900,
    supervisor: 1,
    department: 2,
    job_title: 1,
  }),
  // Zero dates and empty strings (IceHrm's "no value"), a numeric id list, Berlin through its parent department.
  employee({
    id: 3,
    employee_id: 'EMP003',
    first_name: 'Zoe',
    middle_name: '',
    last_name: 'Zero',
    birthday: '0000-00-00',
    joined_date: '0000-00-00',
    ssn_num: '',
    work_email: '',
    supervisor: 2,
    approver1: 1,
    indirect_supervisors: '[1,2]',
    department: 3,
  }),
  // A supervisor IceHrm deleted, an approver that never existed, a list naming a missing employee, a bad e-mail, a province of another country.
  employee({
    id: 4,
    employee_id: 'EMP004',
    first_name: 'Sam',
    last_name: 'Stale',
    supervisor: 500,
    approver1: 600,
    indirect_supervisors: '["2","999"]',
    department: 4,
    private_email: 'not-an-email',
    country: 'DE',
    province: 41,
  }),
  // Supervised and approved by employees that come after it.
  employee({ id: 6, employee_id: 'EMP006', first_name: 'Olaf', last_name: 'Long', department: 2, supervisor: 11, approver2: 10 }),
  employee({ id: 7, employee_id: 'EMP007', first_name: 'Una', last_name: '', department: 2 }),
  employee({
    id: 8,
    employee_id: 'EMP008',
    first_name: 'Ted',
    last_name: 'Terminated',
    status: 'Terminated',
    joined_date: '2020-01-01',
    termination_date: '2025-06-30',
    job_title: 4,
  }),
  employee({ id: 9, employee_id: null, first_name: 'Nobody', last_name: 'Nocode' }),
  employee({ id: 10, employee_id: 'EMP010', first_name: 'Vic', last_name: 'Overlap', department: 1 }),
  employee({ id: 11, employee_id: 'EMP011', first_name: 'Wes', last_name: 'Night', department: 1 }),
];

/** The awkward attendance records (see createIcehrmFixture). */
export const ATTENDANCE: Row[] = [
  attendance(1001, 3, '2026-01-12 09:00:00', '2026-01-12 17:30:00', {
    note: 'Office',
    map_lat: '52.52000000',
    map_lng: '13.40500000',
    map_out_lat: '52.52100000',
    map_out_lng: '13.40600000',
    in_ip: '10.0.0.3',
    out_ip: '10.0.0.4',
  }),
  attendance(1002, 3, '2026-07-13 09:00:00', '2026-07-13 17:00:00'),
  attendance(1003, 3, '2026-07-14 08:00:00', null, { note: '' }),
  attendance(1010, 4, '2026-03-02 08:00:00', null),
  attendance(1011, 4, '2026-03-03 08:00:00', null),
  attendance(1020, 10, '2026-02-02 09:00:00', '2026-02-02 17:00:00'),
  attendance(1021, 10, '2026-02-02 16:00:00', '2026-02-02 20:00:00'),
  attendance(1030, 6, '2026-02-02 08:00:00', '2026-02-03 12:00:00'),
  attendance(1031, 6, '2026-02-05 10:00:00', '2026-02-05 09:00:00'),
  attendance(1032, 6, '2026-03-29 02:30:00', '2026-03-29 10:00:00'),
  attendance(1033, 6, '0000-00-00 00:00:00', '2026-04-01 10:00:00'),
  attendance(1040, 7, '2026-02-02 09:00:00', '2026-02-02 17:00:00'),
  attendance(1050, 11, '2026-02-09 23:00:00', '2026-02-10 07:00:00'),
  attendance(1060, 11, '2030-01-01 09:00:00', '2030-01-01 17:00:00'),
];

/**
 * IceHrm's overtime settings as an installation that chose the California calculator has them
 * (names and values as IceHrm's migrations insert them), and settings the import does not read.
 */
/** IceHrm leaves (EmployeeLeaves) and their days (EmployeeLeaveDays). */
export const LEAVES: Row[] = [
  {
    id: 1,
    employee: 1,
    leave_type: 1,
    leave_period: 1,
    date_start: '2026-05-11',
    date_end: '2026-05-13',
    details: 'Trip',
    status: 'Approved',
  },
  {
    id: 2,
    employee: 2,
    leave_type: 2,
    leave_period: 1,
    date_start: '2026-05-12',
    date_end: '2026-05-12',
    details: null,
    status: 'Pending',
  },
  {
    id: 3,
    employee: 3,
    leave_type: 1,
    leave_period: 1,
    date_start: '2026-05-14',
    date_end: '2026-05-14',
    details: '',
    status: 'Cancellation Requested',
  },
  {
    id: 4,
    employee: 1,
    leave_type: 1,
    leave_period: 1,
    date_start: '2026-05-12',
    date_end: '2026-05-12',
    details: null,
    status: 'Pending',
  },
  {
    id: 5,
    employee: 999,
    leave_type: 1,
    leave_period: 1,
    date_start: '2026-05-12',
    date_end: '2026-05-12',
    details: null,
    status: 'Approved',
  },
  {
    id: 6,
    employee: 2,
    leave_type: 1,
    leave_period: 1,
    date_start: '2026-05-18',
    date_end: '2026-05-19',
    details: null,
    status: 'Rejected',
  },
];

export const LEAVE_DAYS: Row[] = [
  { id: 1, employee_leave: 1, leave_date: '2026-05-11', leave_type: 'Full Day' },
  { id: 2, employee_leave: 1, leave_date: '2026-05-12', leave_type: 'Full Day' },
  { id: 3, employee_leave: 1, leave_date: '2026-05-13', leave_type: 'Full Day' },
  { id: 4, employee_leave: 2, leave_date: '2026-05-12', leave_type: 'Half Day - Morning' },
  { id: 5, employee_leave: 3, leave_date: '2026-05-14', leave_type: '2 Hours - Afternoon' },
  { id: 6, employee_leave: 4, leave_date: '2026-05-12', leave_type: 'Full Day' },
  { id: 7, employee_leave: 5, leave_date: '2026-05-12', leave_type: 'Full Day' },
  { id: 8, employee_leave: 6, leave_date: '2026-05-18', leave_type: 'Full Day' },
  { id: 9, employee_leave: 6, leave_date: '2026-05-19', leave_type: 'Full Day' },
];

export const SETTINGS: Row[] = [
  {
    name: 'Attendance: Overtime Calculation Class',
    value: 'CaliforniaOvertimeCalculator',
    description: 'Set the method used to calculate overtime',
  },
  {
    name: 'Attendance: Overtime Start Hour',
    value: '8',
    description: 'Overtime calculation will start after an employee work this number of hours per day, 0 to indicate no overtime',
  },
  {
    name: 'Attendance: Double time Start Hour',
    value: '12',
    description: 'Double time calculation will start after an employee work this number of hours per day, 0 to indicate no double time',
  },
  { name: 'Attendance: Work Week Start Day', value: '0', description: 'Set the starting day of the work week' },
  {
    name: 'Attendance: Overtime Calculation Period',
    value: 'Daily',
    description: 'Set the period for overtime calculation. (Affects attendance sheets)',
  },
  { name: 'Attendance: Shift (Minutes)', value: '60', description: 'Shift length' },
  { name: 'System: Default Country', value: '0', description: 'Set the default Country' },
].map((row) => ({ meta: '', ...row }));

/**
 * An IceHrm 26 database on the MySQL/MariaDB server at `serverUrl`, with IceHrm's reference data
 * and a few hundred rows, the awkward ones included: zero dates, empty strings, id lists,
 * references to deleted rows, a custom job title without a name and one named like another,
 * a province IceHrm added and one duplicating Ohio, overlapping, over-long, open and future
 * attendance, a time Berlin skips, and users that cannot be imported as they are.
 */
export async function createIcehrmFixture(serverUrl: string, options: { version?: number } = {}): Promise<IcehrmDatabase> {
  const db = await createIcehrmDatabase(serverUrl);
  const version = options.version ?? 260004;
  await db.insert('Migrations', [
    { file: 'v20180101_240001_older', version: Math.min(240001, version), status: 'Up', created: '2018-01-01 00:00:00' },
    { file: `v20240101_${version}_latest`, version, status: 'Up', created: '2024-01-01 00:00:00' },
    { file: 'v20990101_990001_not_yet', version: 990001, status: 'Pending', created: null },
  ]);
  await db.insert('Country', [
    { code: 'US', namecap: 'UNITED STATES', name: 'United States', iso3: 'USA', numcode: 840 },
    { code: 'DE', namecap: 'GERMANY', name: 'Germany', iso3: 'DEU', numcode: 276 },
    { code: 'GB', namecap: 'UNITED KINGDOM', name: 'United Kingdom', iso3: 'GBR', numcode: 826 },
  ]);
  await db.insert('CurrencyTypes', [
    { code: 'USD', name: 'United States Dollar' },
    { code: 'EUR', name: 'Euro' },
  ]);
  await db.insert(
    'Nationality',
    ICEHRM_NATIONALITIES.map(([id, name]) => ({ id, name })),
  );
  await db.insert('Province', [
    ...ICEHRM_PROVINCES.map(([id, country, code, name]) => ({ id, name, code, country })),
    { id: 900, name: 'Bavaria', code: 'BY', country: 'DE' },
    { id: 901, name: 'ohio', code: 'OH', country: 'US' },
  ]);
  await db.insert('EmploymentStatus', [
    ...[
      'Full Time Contract',
      'Full Time Internship',
      'Full Time Permanent',
      'Part Time Contract',
      'Part Time Internship',
      'Part Time Permanent',
    ].map((name, index) => ({ id: index + 1, name, description: null })),
    { id: 7, name: 'Probation', description: 'First six months' },
  ]);
  await db.insert('JobTitles', [
    { id: 1, code: 'SE', name: 'Software Engineer', description: 'Writes software', specification: null },
    { id: 2, code: 'QA', name: 'QA Engineer', description: null, specification: null },
    { id: 3, code: 'MGR', name: 'Manager', description: '', specification: null },
    { id: 4, code: '', name: '', description: null, specification: null },
    { id: 5, code: 'X', name: 'software engineer', description: null, specification: null },
  ]);
  await db.insert('PayGrades', [
    { id: 1, name: 'Grade A', currency: 'USD', min_salary: '1000.00', max_salary: '2000.00' },
    { id: 2, name: 'Grade B', currency: 'EUR', min_salary: '2000.00', max_salary: '4000.00' },
  ]);
  await db.insert('CompanyStructures', [
    { id: 1, title: 'Acme', description: 'The company', type: 'Company', country: 'US', parent: null, timezone: 'America/New_York' },
    { id: 2, title: 'Berlin Office', description: '', type: 'Regional Office', country: 'DE', parent: 1, timezone: 'Europe/Berlin' },
    { id: 3, title: 'Engineering', description: 'Builds things', type: 'Department', country: 'DE', parent: 2, timezone: 'Mars/Olympus' },
    { id: 4, title: 'Sales', description: '', type: 'Department', country: 'US', parent: 1, timezone: 'America/Chicago' },
    // Department titles repeat in IceHrm; here names are unique.
    { id: 5, title: 'sales', description: '', type: 'Unit', country: 'DE', parent: 2, timezone: 'Europe/Berlin' },
  ]);
  const bulk = Array.from({ length: BULK_EMPLOYEES }, (_, index) => {
    const id = BULK_FIRST_ID + index;
    return employee({
      id,
      employee_id: `EMP${String(id).padStart(3, '0')}`,
      first_name: `First${id}`,
      last_name: `Last${id}`,
      supervisor: 2,
      department: (index % 4) + 1,
      job_title: (index % 3) + 1,
      employment_status: (index % 7) + 1,
      work_email: `e${id}@acme.example`,
      joined_date: '2021-03-01',
      gender: index % 2 === 0 ? 'Male' : 'Female',
    });
  });
  await db.insert('Employees', [...EMPLOYEES, ...bulk]);
  await db.insert('Users', [
    { id: 1, username: 'admin', email: 'ida@acme.example', password: 'x', employee: 1, user_level: 'Admin' },
    { id: 2, username: 'max', email: 'max@acme.example', password: 'x', employee: 2, user_level: 'Manager' },
    { id: 3, username: 'zoe', email: null, password: 'x', employee: 3, user_level: 'Employee' },
    { id: 4, username: 'bad name!', email: null, password: 'x', employee: 4, user_level: 'Employee' },
    { id: 5, username: 'ghost', email: null, password: 'x', employee: 999, user_level: 'Employee' },
    { id: 6, username: 'vic', email: null, password: 'x', employee: 10, user_level: 'Other' },
    { id: 7, username: 'una', email: null, password: 'x', employee: 7, user_level: 'Employee' },
  ]);
  // The leave module: a type without a name, a leave overlapping another, one of an employee
  // IceHrm deleted, hour portions, a cancellation requested, a country's holiday and work day.
  await db.insert('LeavePeriods', [{ id: 1, name: '2026', date_start: '2026-01-01', date_end: '2026-12-31', status: 'Active' }]);
  await db.insert('LeaveTypes', [
    { id: 1, name: 'Annual leave', default_per_year: '20.000' },
    { id: 2, name: 'Sick leave', default_per_year: '10.000' },
    { id: 3, name: ' ', default_per_year: '0.000' },
  ]);
  await db.insert('EmployeeLeaves', LEAVES);
  await db.insert('EmployeeLeaveDays', LEAVE_DAYS);
  await db.insert('HoliDays', [
    { id: 1, name: "New Year's Day", dateh: '2026-01-01', status: 'Full Day', country: null },
    { id: 2, name: 'Tag der Deutschen Einheit', dateh: '2026-10-03', status: 'Full Day', country: 2 },
    { id: 3, name: 'Christmas Eve', dateh: '2026-12-24', status: 'Half Day', country: null },
    { id: 4, name: 'Nowhere Day', dateh: '2026-06-01', status: 'Full Day', country: 77 },
  ]);
  await db.insert('WorkDays', [
    ...['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'].map((name, index) => ({
      id: index + 1,
      name,
      status: 'Full Day',
      country: null,
    })),
    { id: 6, name: 'Saturday', status: 'Half Day', country: null },
    { id: 7, name: 'Sunday', status: 'Non-working Day', country: null },
    { id: 8, name: 'Saturday', status: 'Non-working Day', country: 2 },
  ]);
  const bulkAttendance: Row[] = [];
  for (let index = 0; index < BULK_EMPLOYEES; index++) {
    for (let day = 0; day < BULK_DAYS; day++) {
      const date = `2026-05-${String(4 + day).padStart(2, '0')}`;
      bulkAttendance.push(attendance(10_000 + index * BULK_DAYS + day, BULK_FIRST_ID + index, `${date} 08:30:00`, `${date} 17:00:00`));
    }
  }
  await db.insert('Attendance', [...ATTENDANCE, ...bulkAttendance]);
  await db.insert('Settings', SETTINGS);
  return db;
}
