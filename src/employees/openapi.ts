import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  COMMON_PROBLEMS,
  DELETE_PROBLEMS,
  ETAG_HEADER,
  NOT_MODIFIED,
  countryReferenceSchema,
  idempotencyKeyHeader,
  ifMatchHeader,
  ifNoneMatchHeader,
  idString,
  jsonBody,
  jsonResponse,
  pageSchema,
  problems,
  referenceSchema,
  requiredReferenceSchema,
} from '../http/openapi';
import { EMPLOYEE_STATUSES, MARITAL_STATUSES, PERSONAL_FIELDS } from '../employee-records/fields';
import { employeeQuery, meQuery } from './field-selection';
import { listEmployeesQuery } from './list-query';
import { deletionFeedQuery } from '../deletions/tombstones';
import { employeeWriteSchema } from './schemas';

const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .max(10)
  .nullable()
  .meta({ format: 'date', example: '2024-03-01' });
/** Text as stored, at most `max` characters (the column's length; the input rules' limit). */
const text = (max: number) => z.string().max(max).nullable();
const instant = z.string().max(30).meta({ format: 'date-time' });
/** Personal fields are left out (not null) for callers who may not see them. */
const personal = <T extends z.ZodType>(schema: T) => schema.optional();

/** The read shape (docs/decisions.md, "Wire format"). */
export const employeeSchema = z
  .strictObject({
    id: idString,
    employee_id: z.string().max(50).meta({ example: 'E0001' }),
    first_name: z.string().max(100),
    middle_name: text(100),
    last_name: z.string().max(100),
    nationality: personal(referenceSchema('Nationality')),
    birthday: personal(date),
    gender: personal(text(20)),
    marital_status: personal(z.enum(MARITAL_STATUSES).nullable()),
    ssn_num: personal(text(100)),
    nic_num: personal(text(100)),
    other_id: personal(text(100)),
    driving_license: personal(text(100)),
    employment_status: referenceSchema('EmploymentStatus'),
    job_title: referenceSchema('JobTitle'),
    pay_grade: referenceSchema('PayGrade'),
    work_station_id: text(100),
    address1: personal(text(255)),
    address2: personal(text(255)),
    city: personal(text(150)),
    country: personal(countryReferenceSchema),
    province: personal(referenceSchema('Province')),
    postal_code: personal(text(20)),
    home_phone: personal(text(50)),
    mobile_phone: personal(text(50)),
    work_phone: text(50),
    work_email: text(254),
    private_email: personal(text(254)),
    joined_date: date,
    confirmation_date: date,
    supervisor: referenceSchema('Employee'),
    indirect_supervisors: z.string().max(65_535).nullable().meta({
      description:
        'The employee ids as JSON text, a list of id strings (`"[\\"3\\",\\"7\\"]"`), or null for none. A value imported from IceHrm that is not such a list is answered as stored.',
      example: '["3","7"]',
    }),
    department: referenceSchema('Department'),
    termination_date: date,
    status: z.enum(EMPLOYEE_STATUSES),
    approver1: referenceSchema('Employee'),
    approver2: referenceSchema('Employee'),
    approver3: referenceSchema('Employee'),
    timezone: z.string().max(64).meta({ example: 'Europe/Berlin' }),
    attendance_device_id: personal(text(100)).meta({
      description:
        'The badge, card or PIN number attendance terminals know the employee by (unique; admins write it; personal: see docs/terminals.md)',
      example: '004217',
    }),
    payroll_id: text(64).meta({
      description:
        "The id the payroll system knows the employee by (ADP's file number, Paychex's worker id, Gusto's employee id): unique when set (409 `duplicate`); admins write it; export profiles write it (docs/pay-periods.md)",
      example: 'ADP-004217',
    }),
    pay_group: requiredReferenceSchema('PayGroup').meta({
      description:
        "The pay group whose periods and rules the employee's hours follow (default group 1; admins write it; GET /pay-groups). Moving an employee is 409 `period_locked` while one of their records counts in a locked period of either group",
    }),
    created_at: instant.meta({ example: '2026-11-22T11:00:00.000Z' }),
    updated_at: instant,
    restricted_fields: z
      .array(z.enum(PERSONAL_FIELDS))
      .max(PERSONAL_FIELDS.length)
      .optional()
      .meta({ description: 'Present when the caller may not see personal fields: the ones left out' }),
  })
  .meta({ id: 'Employee', description: 'An employee as read' });

/** GET /employees/me: the read shape and the caller's account, as IceHrm's /me answers it (docs/api.md, "IceHrm compatibility"). */
const meSchema = employeeSchema
  .extend({
    user_name: z.string().max(100).meta({ description: "The caller's username", example: 'admin' }),
    user_email: text(254).meta({ description: "The employee's work e-mail (users here have no e-mail of their own)" }),
    user_level: z
      .enum(['Admin', 'Manager', 'Employee'])
      .meta({ description: "The caller's role, by IceHrm's names (admin, manager, employee)" }),
    can_login: z.enum(['Yes', 'No']).meta({ description: 'Whether the employee has a user: always Yes here, the caller being one' }),
    current_time: z
      .string()
      .max(19)
      .meta({ description: "Now on the employee's wall clock (their time zone), YYYY-MM-DD HH:MM:SS", example: '2026-11-22 15:31:10' }),
  })
  .meta({ id: 'EmployeeMe', description: "The caller's employee record and account, as IceHrm's /me answers it" });

/** With fields= (docs/api.md, "Field selection"): id and the named members only. */
const employeeFieldsSchema = employeeSchema.partial().required({ id: true }).meta({
  id: 'EmployeeFields',
  description: 'An employee read with fields=: id and the named fields (less those the caller may not read)',
});
const meFieldsSchema = meSchema
  .partial()
  .required({ id: true })
  .meta({ id: 'EmployeeMeFields', description: '/employees/me read with fields=: id and the named fields' });
const employeeOrFields = z.union([employeeSchema, employeeFieldsSchema]);

const employeeInput = employeeWriteSchema.meta({
  id: 'EmployeeInput',
  description:
    'IceHrm\'s write shape. Values may be strings (ids also numbers or reference objects as read); "" means no value, 0000-00-00 no date. Unknown fields are refused (422).',
});

const createInput = employeeInput.required({ employee_id: true, first_name: true, last_name: true }).meta({ id: 'EmployeeCreate' });
const idParam = z.object({ id: idString });
const location = z.object({ Location: z.string().max(2048).meta({ description: 'The new employee, e.g. /app/api/employees/42' }) });
const writeHeaders = idempotencyKeyHeader.extend(ifMatchHeader.shape);

/** GET /employees/deleted: one deleted employee. */
const deletedEmployeeSchema = z
  .strictObject({
    id: idString.meta({ description: "The deleted employee's id" }),
    employee_id: z.string().max(50).meta({ description: 'Their employee_id (the code)', example: 'E0001' }),
    deleted_at: instant.meta({ example: '2026-11-22T11:00:00.000Z' }),
  })
  .meta({ id: 'DeletedEmployee', description: 'An employee deleted (a tombstone, kept at least 90 days)' });

export function describeEmployees(registry: OpenAPIRegistry): void {
  const tags = ['Employees'];
  const security = [{ bearer: [] }];
  registry.registerPath({
    method: 'get',
    path: '/employees/me',
    operationId: 'getMyEmployee',
    tags,
    security,
    summary: "The caller's own employee record",
    request: { query: meQuery },
    responses: {
      200: jsonResponse("The employee linked to the token's user, with the user's account", z.union([meSchema, meFieldsSchema])),
      ...problems(400, 401, 404, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/employees',
    operationId: 'listEmployees',
    tags,
    security,
    summary: 'The employees the caller may see (admins: all; managers: themselves and direct reports; employees: themselves)',
    description:
      "IceHrm's parameters, read as IceHrm reads them where that is harmless (`limit` and `page` out of range, `sortOrder` in any case, an empty or `null` `filters`, `_`). Unknown parameters, filters and sort fields, and bad values, are 400 naming them. Managers may not filter or sort on a personal field of their reports: 403 `filter_not_allowed`.",
    request: { query: listEmployeesQuery },
    responses: {
      200: jsonResponse('A page of employees', pageSchema(employeeOrFields, 'EmployeePage')),
      ...problems(400, 401, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/employees',
    operationId: 'createEmployee',
    tags,
    security,
    summary: 'Create an employee (admins)',
    request: { headers: idempotencyKeyHeader, body: jsonBody(createInput) },
    responses: {
      201: jsonResponse('Created', employeeSchema, location.extend(ETAG_HEADER.shape)),
      ...problems(400, 401, 409, 413, 415, 422, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/employees/{id}',
    operationId: 'getEmployee',
    tags,
    security,
    summary: 'One employee, with its ETag',
    description:
      'The answer carries a strong `ETag` that changes with every change of the employee (and of the reference names it displays). Send it back in `If-None-Match` to be answered 304 without a body while nothing changed, or in `If-Match` on a write.',
    request: { params: idParam, query: employeeQuery, headers: ifNoneMatchHeader },
    responses: {
      200: jsonResponse('The employee', employeeOrFields, ETAG_HEADER),
      304: NOT_MODIFIED,
      ...problems(400, 401, 404, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/employees/deleted',
    operationId: 'listDeletedEmployees',
    tags,
    security,
    summary: 'Employees deleted since an instant, oldest first (the deletion feed of a copy kept in sync)',
    description:
      'Visibility as for the live records, as it was at the deletion: admins see every deletion; managers those of the employees whose supervisor they were then, and their own; employees their own. Deletions are kept at least 90 days: a copy that was not synced for longer reads the whole list again.',
    request: { query: deletionFeedQuery },
    responses: {
      200: jsonResponse('A page of deleted employees', pageSchema(deletedEmployeeSchema, 'DeletedEmployeePage')),
      ...problems(400, 401, ...COMMON_PROBLEMS),
    },
  });
  for (const method of ['put', 'patch'] as const) {
    registry.registerPath({
      method,
      path: '/employees/{id}',
      operationId: method === 'put' ? 'updateEmployee' : 'patchEmployee',
      tags,
      security,
      summary: 'Change an employee: only the sent fields change, null clears (PUT and PATCH alike)',
      description:
        "Admins may change every field; managers the work fields of themselves and their direct reports; employees their own contact fields. A refused field is 403 naming it; a field sent back with the value it has is no change, so a record can be read, changed and sent back whole. Setting status to Terminated revokes the user's tokens. With `If-Match` (an ETag of the employee, or `*`) the change is made only if the employee is still as read, else 412 and nothing is written; the answer carries the new ETag.",
      request: { params: idParam, headers: writeHeaders, body: jsonBody(employeeInput) },
      responses: {
        200: jsonResponse('The changed employee', employeeSchema, ETAG_HEADER),
        ...problems(400, 401, 404, 409, 412, 413, 415, 422, ...COMMON_PROBLEMS),
      },
    });
  }
  registry.registerPath({
    method: 'delete',
    path: '/employees/{id}',
    operationId: 'deleteEmployee',
    tags,
    security,
    summary: "Delete an employee (admins); revokes their user's tokens",
    request: { params: idParam, headers: writeHeaders },
    responses: {
      200: jsonResponse('Deleted', z.strictObject({ id: idString }).meta({ id: 'DeletedId' })),
      ...problems(401, 404, 412, ...DELETE_PROBLEMS, ...COMMON_PROBLEMS),
    },
  });
}
