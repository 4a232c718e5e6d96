import { z } from 'zod';
import type { FieldError } from '../errors';
import { blankToNull, countryCode, date, email, idSchema, optionalText, reference, requiredText, timeZone } from '../http/field-schemas';
import { parseFields } from '../http/parse';
import { EMPLOYEE_FIELDS, EMPLOYEE_STATUSES, type EmployeeField, MARITAL_STATUSES } from '../employee-records/fields';

// Input rules of docs/decisions.md, "Wire format". IceHrm clients send every value as a string; ids may also be
// numbers or reference objects as read, "" means "no value" and 0000-00-00 means "no date".

/** A string holding a JSON array of employee ids (as IceHrm sends it), or the array itself. */
const indirectSupervisors = z
  .preprocess(
    (value) => {
      if (value === '' || value === null) return null;
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return value;
      }
    },
    z
      .array(idSchema('an employee'), { error: 'must be a JSON array of employee ids, e.g. "[\\"3\\",\\"7\\"]"' })
      .max(50, { error: 'may list at most 50 employees' })
      .transform((ids) => (ids.length === 0 ? null : [...new Set(ids)]))
      .nullable(),
  )
  .meta({ 'x-accepts': 'idList' });

const maritalStatus = z.preprocess(
  blankToNull,
  z.enum(MARITAL_STATUSES, { error: `must be one of ${MARITAL_STATUSES.join(', ')}` }).nullable(),
);

/** Every writable employee field with its rule. */
const employeeWriteShape = {
  employee_id: requiredText(50),
  first_name: requiredText(100),
  middle_name: optionalText(100),
  last_name: requiredText(100),
  nationality: reference('a nationality'),
  birthday: date,
  gender: optionalText(20),
  marital_status: maritalStatus,
  ssn_num: optionalText(100),
  nic_num: optionalText(100),
  other_id: optionalText(100),
  driving_license: optionalText(100),
  employment_status: reference('an employment status'),
  job_title: reference('a job title'),
  pay_grade: reference('a pay grade'),
  work_station_id: optionalText(100),
  address1: optionalText(255),
  address2: optionalText(255),
  city: optionalText(150),
  country: countryCode,
  province: reference('a province'),
  postal_code: optionalText(20),
  home_phone: optionalText(50),
  mobile_phone: optionalText(50),
  work_phone: optionalText(50),
  work_email: email,
  private_email: email,
  joined_date: date,
  confirmation_date: date,
  supervisor: reference('an employee'),
  indirect_supervisors: indirectSupervisors,
  department: reference('a department'),
  termination_date: date,
  status: z.enum(EMPLOYEE_STATUSES, { error: `must be one of ${EMPLOYEE_STATUSES.join(', ')}` }),
  approver1: reference('an employee'),
  approver2: reference('an employee'),
  approver3: reference('an employee'),
  timezone: timeZone,
  attendance_device_id: z.preprocess(
    (value) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? String(value) : blankToNull(value)),
    z
      .string({ error: 'must be a string' })
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(100, { error: 'must be at most 100 characters' })
      .nullable(),
  ),
  payroll_id: z.preprocess(
    blankToNull,
    z.string({ error: 'must be a string' }).trim().max(64, { error: 'must be at most 64 characters' }).nullable(),
  ),
  pay_group: reference('a pay group'),
} satisfies Record<EmployeeField, z.ZodType>;

/** The employee body; which fields are required depends on the operation, see parseEmployeeInput. */
export const employeeWriteSchema = z.strictObject(employeeWriteShape).partial();

export type EmployeeValues = Partial<z.output<typeof employeeWriteSchema>>;

export const REQUIRED_ON_CREATE = ['employee_id', 'first_name', 'last_name'] as const satisfies readonly EmployeeField[];

/**
 * Read-only members of the read shape that a PUT/PATCH may send back unchanged (docs/decisions.md, "Wire format"),
 * and the account members of /employees/me, so that a /me answer can be sent back changed.
 */
const READ_ONLY_FIELDS = [
  'created_at',
  'updated_at',
  'restricted_fields',
  'user_name',
  'user_email',
  'user_level',
  'can_login',
  'current_time',
];

/**
 * Parses a create or update body field by field (see parseFields). `pathId` is the id of the
 * record being updated; without it the body is a create.
 */
export function parseEmployeeInput(body: Record<string, unknown>, pathId?: number): { values: EmployeeValues; errors: FieldError[] } {
  const { values, errors } = parseFields(employeeWriteShape, body, {
    pathId,
    required: REQUIRED_ON_CREATE,
    readOnly: READ_ONLY_FIELDS,
    noun: 'an employee',
  });
  return { values: values as EmployeeValues, errors };
}

/** Orders field errors as the fields are ordered on the wire; unknown fields last. */
export function byFieldOrder(a: FieldError, b: FieldError): number {
  const rank = (field: string) => {
    const index = EMPLOYEE_FIELDS.indexOf(field.split('.')[0] as EmployeeField);
    return index === -1 ? EMPLOYEE_FIELDS.length : index;
  };
  return rank(a.field) - rank(b.field);
}
