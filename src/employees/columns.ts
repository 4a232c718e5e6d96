import { columnOf, type EmployeeField, PERSONAL_FIELDS } from './fields';
import type { EmployeeValues } from './schemas';

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
}

/** Parsed input values as `employees` column values. */
export function toEmployeeColumns(values: EmployeeValues): Partial<EmployeeColumns> {
  const columns: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(values)) {
    columns[columnOf(field as EmployeeField)] =
      // Stored as on the wire: a JSON array of id strings inside a string.
      field === 'indirect_supervisors' && Array.isArray(value) ? JSON.stringify(value.map(String)) : value;
  }
  return columns as Partial<EmployeeColumns>;
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

const PERSONAL = new Set<string>(PERSONAL_FIELDS);

/** Before/after of changed fields, leaving out personal fields' values (names only). */
export function valueChanges(
  before: Partial<EmployeeColumns>,
  after: Partial<EmployeeColumns>,
  fields: EmployeeField[],
): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const field of fields) {
    if (PERSONAL.has(field)) continue;
    const column = columnOf(field) as keyof EmployeeColumns;
    changes[field] = { from: before[column] ?? null, to: after[column] ?? null };
  }
  return changes;
}
