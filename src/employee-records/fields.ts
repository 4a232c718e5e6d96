// The employee fields in one place (docs/decisions.md, "Wire format"): their order on the wire, which are references
// (and to what), and which are personal.

/** The write shape of the original description, in its order; the read shape adds to it. */
export const EMPLOYEE_FIELDS = [
  'employee_id',
  'first_name',
  'middle_name',
  'last_name',
  'nationality',
  'birthday',
  'gender',
  'marital_status',
  'ssn_num',
  'nic_num',
  'other_id',
  'driving_license',
  'employment_status',
  'job_title',
  'pay_grade',
  'work_station_id',
  'address1',
  'address2',
  'city',
  'country',
  'province',
  'postal_code',
  'home_phone',
  'mobile_phone',
  'work_phone',
  'work_email',
  'private_email',
  'joined_date',
  'confirmation_date',
  'supervisor',
  'indirect_supervisors',
  'department',
  'termination_date',
  'status',
  'approver1',
  'approver2',
  'approver3',
  'timezone',
  'attendance_device_id',
  'payroll_id',
  'pay_group',
] as const;

export type EmployeeField = (typeof EMPLOYEE_FIELDS)[number];

interface ReferenceField {
  /** Column in `employees`. */
  column: string;
  /** Table the id points into. */
  table: string;
  /** `type` of the reference object on the wire. */
  type: string;
}

/** Fields holding the id of a row of another table (country is keyed by code, see COUNTRY). */
export const REFERENCE_FIELDS = {
  nationality: { column: 'nationality_id', table: 'nationalities', type: 'Nationality' },
  employment_status: { column: 'employment_status_id', table: 'employment_statuses', type: 'EmploymentStatus' },
  job_title: { column: 'job_title_id', table: 'job_titles', type: 'JobTitle' },
  pay_grade: { column: 'pay_grade_id', table: 'pay_grades', type: 'PayGrade' },
  pay_group: { column: 'pay_group_id', table: 'pay_groups', type: 'PayGroup' },
  province: { column: 'province_id', table: 'provinces', type: 'Province' },
  department: { column: 'department_id', table: 'departments', type: 'Department' },
  supervisor: { column: 'supervisor_id', table: 'employees', type: 'Employee' },
  approver1: { column: 'approver1_id', table: 'employees', type: 'Employee' },
  approver2: { column: 'approver2_id', table: 'employees', type: 'Employee' },
  approver3: { column: 'approver3_id', table: 'employees', type: 'Employee' },
} as const satisfies Partial<Record<EmployeeField, ReferenceField>>;

export type ReferenceFieldName = keyof typeof REFERENCE_FIELDS;

export const COUNTRY = { column: 'country_code', table: 'countries', type: 'Country' } as const;

/** Returned only to admins and to the employee themself (docs/decisions.md, "Employees and roles"). */
export const PERSONAL_FIELDS = [
  'birthday',
  'gender',
  'marital_status',
  'nationality',
  'ssn_num',
  'nic_num',
  'other_id',
  'driving_license',
  'address1',
  'address2',
  'city',
  'country',
  'province',
  'postal_code',
  'home_phone',
  'mobile_phone',
  'private_email',
  'attendance_device_id',
] as const satisfies readonly EmployeeField[];

export const MARITAL_STATUSES = ['Married', 'Single', 'Divorced', 'Widowed', 'Other'] as const;
export const EMPLOYEE_STATUSES = ['Active', 'Terminated'] as const;

/** The `employees` column that stores a field. */
export function columnOf(field: EmployeeField): string {
  if (field === 'country') return COUNTRY.column;
  return field in REFERENCE_FIELDS ? REFERENCE_FIELDS[field as ReferenceFieldName].column : field;
}
