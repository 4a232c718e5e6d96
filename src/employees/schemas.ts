import { z } from 'zod';
import type { FieldError } from '../errors';
import { fieldErrorsOf } from '../http/parse';
import { isCalendarDate, isTimeZone } from '../time';
import { EMPLOYEE_FIELDS, EMPLOYEE_STATUSES, type EmployeeField, MARITAL_STATUSES } from './fields';

// Input rules of CONTRACT §5.2. IceHrm clients send every value as a string; ids may also be
// numbers or reference objects as read, "" means "no value" and 0000-00-00 means "no date".

const MAX_ID = 4294967295;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const blankToNull = (value: unknown) => (value === '' ? null : value);

const text = (max: number) =>
  z.string({ error: 'must be a string' }).max(max, { error: `must be at most ${max} characters` });

const optionalText = (max: number) => z.preprocess(blankToNull, text(max).nullable());

const requiredText = (max: number) =>
  text(max).trim().min(1, { error: 'must not be empty' });

const email = z.preprocess(
  blankToNull,
  z.email({ error: 'must be a valid e-mail address' }).max(254, { error: 'must be at most 254 characters' }).nullable(),
);

const date = z.preprocess(
  (value) => (value === '' || value === '0000-00-00' ? null : value),
  z.string({ error: 'must be a date YYYY-MM-DD' }).refine(isCalendarDate, { error: 'must be a real date YYYY-MM-DD' }).nullable(),
);

/** An id as a string or number, e.g. "3" or 3; a read reference {"id": "3", ...} is accepted too. */
export const idSchema = (what: string) =>
  z.preprocess(
    (value) => (typeof value === 'number' && Number.isInteger(value) ? String(value) : value),
    z
      .string({ error: `must be the id of ${what}` })
      .regex(/^[1-9][0-9]{0,9}$/, { error: `must be the id of ${what}` })
      .transform(Number)
      .refine((id) => id <= MAX_ID, { error: `must be the id of ${what}` }),
  );

const reference = (what: string) =>
  z.preprocess(
    (value) => (isPlainObject(value) ? value.id : blankToNull(value)),
    idSchema(what).nullable(),
  );

const country = z.preprocess(
  (value) => (isPlainObject(value) ? value.code : blankToNull(value)),
  z
    .string({ error: 'must be a two-letter ISO 3166-1 country code' })
    .regex(/^[A-Za-z]{2}$/, { error: 'must be a two-letter ISO 3166-1 country code' })
    .transform((code) => code.toUpperCase())
    .nullable(),
);

/** A string holding a JSON array of employee ids (as IceHrm sends it), or the array itself. */
const indirectSupervisors = z.preprocess(
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
);

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
  country,
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
  timezone: z.string({ error: 'must be a string' }).refine(isTimeZone, { error: 'must be an IANA time zone such as Europe/Berlin' }),
} satisfies Record<EmployeeField, z.ZodType>;

/** The employee body; which fields are required depends on the operation, see parseEmployeeInput. */
export const employeeWriteSchema = z.strictObject(employeeWriteShape).partial();

export type EmployeeValues = Partial<z.output<typeof employeeWriteSchema>>;

export const REQUIRED_ON_CREATE = ['employee_id', 'first_name', 'last_name'] as const satisfies readonly EmployeeField[];

/** Read-only members of the read shape that a PUT/PATCH may send back unchanged (CONTRACT §5.2). */
const READ_ONLY_FIELDS = new Set(['created_at', 'updated_at', 'restricted_fields']);

/**
 * Parses a create or update body field by field, so that every invalid field is reported at once
 * and the valid ones can still be checked against the database. `pathId` is the id of the
 * record being updated; without it the body is a create.
 */
export function parseEmployeeInput(
  body: Record<string, unknown>,
  pathId?: number,
): { values: EmployeeValues; errors: FieldError[] } {
  const shape = employeeWriteShape;
  const values: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const [field, raw] of Object.entries(body)) {
    if (field === 'id') {
      if (pathId === undefined) errors.push({ field, message: 'must not be sent when creating an employee' });
      else if (String(raw) !== String(pathId)) errors.push({ field, message: 'must match the id in the path' });
      continue;
    }
    if (pathId !== undefined && READ_ONLY_FIELDS.has(field)) continue;
    if (!Object.hasOwn(shape, field)) {
      errors.push({ field, message: 'is not a known field' });
      continue;
    }
    const result = shape[field as EmployeeField].safeParse(raw);
    if (result.success) values[field] = result.data;
    else errors.push(...fieldErrorsOf(result.error).map((error) => ({ ...error, field: field + suffix(error.field) })));
  }
  if (pathId === undefined) {
    for (const field of REQUIRED_ON_CREATE) {
      if (!Object.hasOwn(body, field)) errors.push({ field, message: 'is required' });
    }
  }
  return { values: values as EmployeeValues, errors };
}

/** A nested path (e.g. an array index) reported by zod relative to the field. */
function suffix(path: string): string {
  return path === 'body' ? '' : `.${path}`;
}

/** Orders field errors as the fields are ordered on the wire; unknown fields last. */
export function byFieldOrder(a: FieldError, b: FieldError): number {
  const rank = (field: string) => {
    const index = EMPLOYEE_FIELDS.indexOf(field.split('.')[0] as EmployeeField);
    return index === -1 ? EMPLOYEE_FIELDS.length : index;
  };
  return rank(a.field) - rank(b.field);
}
