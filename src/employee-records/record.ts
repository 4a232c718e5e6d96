import type { Knex } from 'knex';
import { type Db, type Dialect, dialectOf } from '../db/connect';
import { columnOf, EMPLOYEE_FIELDS, REFERENCE_FIELDS } from './fields';

// The employee row as stored and as read: below every feature, since authentication reads the
// caller's employee with the token and webhooks strip its personal fields.

/** Column values of an `employees` row as written (ids as numbers, dates as YYYY-MM-DD). */
export interface EmployeeColumns {
  employee_id: string;
  first_name: string;
  middle_name: string | null;
  last_name: string;
  nationality_id: number | null;
  birthday: string | null;
  gender: string | null;
  marital_status: string | null;
  ssn_num: string | null;
  nic_num: string | null;
  other_id: string | null;
  driving_license: string | null;
  employment_status_id: number | null;
  job_title_id: number | null;
  pay_grade_id: number | null;
  work_station_id: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  country_code: string | null;
  province_id: number | null;
  postal_code: string | null;
  home_phone: string | null;
  mobile_phone: string | null;
  work_phone: string | null;
  work_email: string | null;
  private_email: string | null;
  joined_date: string | null;
  confirmation_date: string | null;
  supervisor_id: number | null;
  /** JSON array of employee-id strings, as on the wire. */
  indirect_supervisors: string | null;
  department_id: number | null;
  termination_date: string | null;
  status: string;
  approver1_id: number | null;
  approver2_id: number | null;
  approver3_id: number | null;
  timezone: string;
  /** The badge, card or PIN number attendance terminals know the employee by. */
  attendance_device_id: string | null;
  /** The id the payroll system knows the employee by (ADP's file number, Paychex's worker id). */
  payroll_id: string | null;
  /**
   * The employee's pay group (docs/pay-periods.md, "Pay groups"): every stored employee has one,
   * the column's default 1 unless set, so a row written without it (seeds, imports) is in group 1.
   */
  pay_group_id?: number;
}

/**
 * The ids a stored indirect_supervisors value lists, as strings without duplicates, or undefined
 * when it is not a list. The API stores a JSON array of id strings; an import from IceHrm may
 * have stored numbers, duplicates or something else.
 */
export function storedIdList(value: string | null): string[] | undefined {
  if (value === null || value === '') return [];
  try {
    const ids: unknown = JSON.parse(value);
    return Array.isArray(ids) ? [...new Set(ids.map(String))] : undefined;
  } catch {
    return undefined;
  }
}

/** The employee fields whose reference points at another employee. */
export const EMPLOYEE_REFERENCE_FIELDS = ['supervisor', 'approver1', 'approver2', 'approver3'] as const;
export type EmployeeReferenceField = (typeof EMPLOYEE_REFERENCE_FIELDS)[number];

export interface EmployeeRecord extends EmployeeColumns {
  id: number;
  created_at: string;
  updated_at: string;
  /** "First Last" of the supervisor and approvers, for the `display` of their references. */
  employeeNames: Record<EmployeeReferenceField, string | null>;
}

/** The columns of an employee record: what a whole read selects. */
export const RECORD_COLUMNS: readonly string[] = ['id', ...EMPLOYEE_FIELDS.map(columnOf), 'created_at', 'updated_at'];
/** The DATE and DATETIME columns among them. */
const DATE_COLUMNS = new Set(['birthday', 'joined_date', 'confirmation_date', 'termination_date', 'created_at', 'updated_at']);

/**
 * A column of the employee aliased `alias` as SQL for a select list. On MySQL/MariaDB a date is
 * cast to text: mysql2 writes a date of a prepared statement's binary row into text digit by
 * digit, a large share of reading a page of the list, and the cast is the very text the text
 * protocol reads (milliseconds and zero dates included), so every way of reading a record reads
 * the same values (docs/performance.md, "The third pass").
 */
export function recordColumnSql(column: string, dialect: Dialect, alias = 'e'): string {
  const name = `\`${alias}\`.\`${column}\``;
  return dialect === 'mysql' && DATE_COLUMNS.has(column) ? `cast(${name} as char) as \`${column}\`` : name;
}

/**
 * An employee row with the names of the employees it points to (each a primary-key join). The
 * names of other references come from the in-memory ReferenceNames, not from joins.
 */
export function selectEmployees(db: Db, alias = 'e'): Knex.QueryBuilder {
  const dialect = dialectOf(db);
  const query = db(`employees as ${alias}`).select(RECORD_COLUMNS.map((column) => db.raw(recordColumnSql(column, dialect, alias))));
  addEmployeeNames(query, alias);
  return query;
}

/** Joins the supervisor and approvers of the employee aliased `alias`, selecting their names. */
export function addEmployeeNames(query: Knex.QueryBuilder, alias: string): Knex.QueryBuilder {
  for (const field of EMPLOYEE_REFERENCE_FIELDS) {
    const joined = `${alias}_${field}`;
    query
      .leftJoin(`employees as ${joined}`, `${joined}.id`, `${alias}.${REFERENCE_FIELDS[field].column}`)
      .select(`${joined}.first_name as ${field}__first_name`, `${joined}.last_name as ${field}__last_name`);
  }
  return query;
}

/**
 * The EmployeeRecord in a row selected with addEmployeeNames. The row itself becomes the record
 * (a list builds one per employee, so nothing is copied); its other columns are never read. Each
 * name column is read by its own property: reading them by keys built per row was most of its cost.
 */
export function toEmployeeRecord(row: Record<string, unknown>): EmployeeRecord {
  // A row a coalesced read already shaped, and froze for every caller sharing it.
  if (row.employeeNames !== undefined) return row as unknown as EmployeeRecord;
  const names: Record<EmployeeReferenceField, string | null> = {
    supervisor: fullName(row.supervisor__first_name, row.supervisor__last_name),
    approver1: fullName(row.approver1__first_name, row.approver1__last_name),
    approver2: fullName(row.approver2__first_name, row.approver2__last_name),
    approver3: fullName(row.approver3__first_name, row.approver3__last_name),
  };
  row.employeeNames = names;
  return row as unknown as EmployeeRecord;
}

function fullName(first: unknown, last: unknown): string | null {
  return first == null ? null : `${String(first)} ${String(last)}`;
}
