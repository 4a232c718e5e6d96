import type { Role } from '../../src/caller';
import { issueToken } from '../../src/auth/issue-token';
import { insertUser } from '../../src/users/user-repository';
import { toSqlDateTime } from '../../src/db/sql-time';
import type { EmployeeColumns } from '../../src/employee-records/record';
import { insertEmployee } from '../../src/employees/repository';
import type { TestApp } from './test-app';

let sequence = 0;

/** A unique suffix for codes and names, so tests never depend on each other's rows. */
export function unique(prefix: string): string {
  sequence += 1;
  return `${prefix}${process.pid}x${sequence}`;
}

/** Inserts an employee row directly (not through the API) and returns its id. */
export async function createEmployee(t: TestApp, overrides: Partial<EmployeeColumns> = {}): Promise<number> {
  const now = toSqlDateTime(t.clock.now());
  return insertEmployee(t.db, { ...employeeColumns(overrides), created_at: now, updated_at: now });
}

/** The columns of an active employee with a unique code and name and nothing else set. */
/**
 * Overwrites columns of an employee with values an import from IceHrm may have left, which the
 * API itself never writes: zero dates (the server's MySQL sessions refuse them), '', odd id lists.
 */
export async function storeAsImported(t: TestApp, id: number | null, columns: Record<string, unknown>): Promise<void> {
  await t.db.transaction(async (trx) => {
    const mode = t.dialect === 'mysql' ? (await trx.raw('SELECT @@SESSION.sql_mode AS mode'))[0][0].mode : undefined;
    if (mode !== undefined) await trx.raw("SET SESSION sql_mode = ''");
    await trx('employees').where({ id }).update(columns);
    if (mode !== undefined) await trx.raw('SET SESSION sql_mode = ?', [mode]);
  });
}

/**
 * An employee row as a database migrated before 0017 holds it (no attendance_device_id, nor 0025's payroll_id), for the
 * tests of earlier migrations, which run the migrations only up to theirs before inserting.
 */
export function employeeColumnsBefore0017(
  overrides: Partial<EmployeeColumns> = {},
): Omit<EmployeeColumns, 'attendance_device_id' | 'payroll_id'> {
  const { attendance_device_id: _added, payroll_id: _added0025, ...columns } = employeeColumns(overrides);
  return columns;
}

/** An employee row as a database migrated before 0025 holds it (no payroll_id). */
export function employeeColumnsBefore0025(overrides: Partial<EmployeeColumns> = {}): Omit<EmployeeColumns, 'payroll_id'> {
  const { payroll_id: _added, ...columns } = employeeColumns(overrides);
  return columns;
}

export function employeeColumns(overrides: Partial<EmployeeColumns> = {}): EmployeeColumns {
  return {
    employee_id: unique('E'),
    first_name: 'Test',
    middle_name: null,
    last_name: unique('Person'),
    nationality_id: null,
    birthday: null,
    gender: null,
    marital_status: null,
    ssn_num: null,
    nic_num: null,
    other_id: null,
    driving_license: null,
    employment_status_id: null,
    job_title_id: null,
    pay_grade_id: null,
    work_station_id: null,
    address1: null,
    address2: null,
    city: null,
    country_code: null,
    province_id: null,
    postal_code: null,
    home_phone: null,
    mobile_phone: null,
    work_phone: null,
    work_email: null,
    private_email: null,
    joined_date: null,
    confirmation_date: null,
    supervisor_id: null,
    indirect_supervisors: null,
    department_id: null,
    termination_date: null,
    status: 'Active',
    approver1_id: null,
    approver2_id: null,
    approver3_id: null,
    timezone: 'UTC',
    attendance_device_id: null,
    payroll_id: null,
    ...overrides,
  };
}

export interface TestUser {
  userId: number;
  username: string;
  employeeId: number | null;
  token: string;
  tokenId: string;
}

/**
 * A user of the given role with a real signed token. Linked to a new employee unless
 * `employee: null`; `employee` may also be an existing employee id or column overrides.
 */
export async function createUser(
  t: TestApp,
  role: Role,
  options: { employee?: number | null | Partial<EmployeeColumns>; lifetimeSeconds?: number } = {},
): Promise<TestUser> {
  const employeeId =
    options.employee === null
      ? null
      : typeof options.employee === 'number'
        ? options.employee
        : await createEmployee(t, options.employee ?? {});
  const username = unique(role);
  const userId = await insertUser(t.db, { username, role, employeeId, passwordHash: null, now: t.clock.now() });
  const issued = await issueToken(t.db, t.instance.signingKey, {
    userId,
    name: 'test',
    now: t.clock.now(),
    lifetimeSeconds: options.lifetimeSeconds,
  });
  return { userId, username, employeeId, token: issued.token, tokenId: issued.id };
}

/** A small organisation: an admin, two managers with direct reports, and an outsider. */
export interface Org {
  admin: TestUser;
  manager: TestUser;
  report: TestUser;
  /** A report of `manager` without a user of their own. */
  reportWithoutUser: number;
  otherManager: TestUser;
  otherReport: TestUser;
  outsider: TestUser;
}

export async function createOrg(t: TestApp): Promise<Org> {
  const admin = await createUser(t, 'admin');
  const manager = await createUser(t, 'manager', { employee: { first_name: 'Mona', last_name: unique('Manager') } });
  const report = await createUser(t, 'employee', {
    employee: { supervisor_id: manager.employeeId, first_name: 'Rita', last_name: unique('Report') },
  });
  const reportWithoutUser = await createEmployee(t, { supervisor_id: manager.employeeId, first_name: 'Ron' });
  const otherManager = await createUser(t, 'manager');
  const otherReport = await createUser(t, 'employee', { employee: { supervisor_id: otherManager.employeeId } });
  const outsider = await createUser(t, 'employee');
  return { admin, manager, report, reportWithoutUser, otherManager, otherReport, outsider };
}
