import type { Knex } from 'knex';
import type { Caller } from '../caller';
import type { Db } from '../db/connect';
import { ForbiddenError, type FieldError, NotFoundError } from '../errors';
import { EMPLOYEE_FIELDS, type EmployeeField, PERSONAL_FIELDS } from '../employee-records/fields';
import type { EmployeeRecord } from '../employee-records/record';
import { findEmployeeById } from './repository';

// Who sees and changes which employee (docs/decisions.md, "Employees and roles").

/** Fields a manager may change on their direct reports' records, and on their own but for the reporting line. */
const MANAGER_WRITABLE_FIELDS: readonly EmployeeField[] = [
  'work_station_id',
  'work_phone',
  'work_email',
  'job_title',
  'department',
  'supervisor',
  'approver1',
  'approver2',
  'approver3',
  'indirect_supervisors',
  'employment_status',
];

/** Contact fields every user may change on their own record. */
const SELF_WRITABLE_FIELDS: readonly EmployeeField[] = [
  'address1',
  'address2',
  'city',
  'country',
  'province',
  'postal_code',
  'home_phone',
  'mobile_phone',
  'private_email',
];

/**
 * Who a manager answers to. They set it for their reports, never for themselves: a manager who
 * made a report their own supervisor, or cleared it, would leave their supervisor's oversight.
 */
const REPORTING_LINE_FIELDS: readonly EmployeeField[] = ['supervisor', 'approver1', 'approver2', 'approver3', 'indirect_supervisors'];

const ALL_FIELDS = new Set<EmployeeField>(EMPLOYEE_FIELDS);
const MANAGER_ON_SELF = new Set<EmployeeField>(
  [...MANAGER_WRITABLE_FIELDS, ...SELF_WRITABLE_FIELDS].filter((field) => !REPORTING_LINE_FIELDS.includes(field)),
);
const MANAGER_ON_REPORT = new Set<EmployeeField>(MANAGER_WRITABLE_FIELDS);
const EMPLOYEE_ON_SELF = new Set<EmployeeField>(SELF_WRITABLE_FIELDS);
const NOTHING = new Set<EmployeeField>();
const PERSONAL = new Set<EmployeeField>(PERSONAL_FIELDS);

/** The part of an employee access rules look at. */
export interface EmployeeRelation {
  id: number;
  supervisor_id: number | null;
}

export function isSelf(caller: Caller, employee: EmployeeRelation): boolean {
  return caller.employeeId !== null && caller.employeeId === employee.id;
}

export function isDirectReport(caller: Caller, employee: EmployeeRelation): boolean {
  return caller.employeeId !== null && employee.supervisor_id === caller.employeeId;
}

/** Admins see everyone; managers themselves and their direct reports; employees themselves. */
export function canSeeEmployee(caller: Caller, employee: EmployeeRelation): boolean {
  if (caller.role === 'admin') return true;
  if (isSelf(caller, employee)) return true;
  return caller.role === 'manager' && isDirectReport(caller, employee);
}

/** Restricts an employees query (aliased `alias`) to the rows the caller may see. */
export function whereVisible(query: Knex.QueryBuilder, caller: Caller, alias = 'e'): Knex.QueryBuilder {
  if (caller.role === 'admin') return query;
  const self = caller.employeeId ?? 0; // a user without an employee sees no one
  if (caller.role === 'employee') return query.where(`${alias}.id`, self);
  return query.where((visible) => visible.where(`${alias}.id`, self).orWhere(`${alias}.supervisor_id`, self));
}

/** The fields the caller may change on a visible employee. */
function writableFields(caller: Caller, employee: EmployeeRelation): ReadonlySet<EmployeeField> {
  if (caller.role === 'admin') return ALL_FIELDS;
  if (caller.role === 'manager') {
    if (isSelf(caller, employee)) return MANAGER_ON_SELF;
    if (isDirectReport(caller, employee)) return MANAGER_ON_REPORT;
    return NOTHING;
  }
  return isSelf(caller, employee) ? EMPLOYEE_ON_SELF : NOTHING;
}

/** Whether the caller may see an employee's personal fields (docs/decisions.md, "Employees and roles"). */
export function seesPersonalFields(caller: Caller, employeeId: number): boolean {
  return caller.role === 'admin' || caller.employeeId === employeeId;
}

/**
 * 403 naming every sent field the caller may not change; never silently dropped (docs/decisions.md, "Employees and roles").
 * `changes` says whether a sent field would change the record (an invalid value counts as a
 * change). A field sent back as it was read is not a change, so a read-change-write round trip
 * works for every role; but a field the caller may not read is refused whatever its value, or
 * the answer would tell them whether they guessed it.
 */
export function assertMayWriteFields(
  caller: Caller,
  employee: EmployeeRelation,
  sent: string[],
  changes: (field: EmployeeField) => boolean,
): void {
  const writable = writableFields(caller, employee);
  const readsPersonal = seesPersonalFields(caller, employee.id);
  const refused = sent.filter((name) => {
    const field = name as EmployeeField;
    if (!ALL_FIELDS.has(field) || writable.has(field)) return false;
    return changes(field) || (PERSONAL.has(field) && !readsPersonal);
  });
  if (refused.length === 0) return;
  const errors: FieldError[] = refused.map((field) => ({ field, message: `may not be changed by ${describe(caller, employee)}` }));
  throw new ForbiddenError({
    code: 'field_not_writable',
    detail: `You may not change: ${refused.join(', ')}`,
    errors,
  });
}

export function assertMayCreateEmployees(caller: Caller): void {
  if (caller.role !== 'admin') throw new ForbiddenError({ detail: 'Only admins may create employees' });
}

export function assertMayDeleteEmployees(caller: Caller): void {
  if (caller.role !== 'admin') throw new ForbiddenError({ detail: 'Only admins may delete employees' });
}

function describe(caller: Caller, employee: EmployeeRelation): string {
  if (caller.role === 'manager') return isSelf(caller, employee) ? 'a manager on their own record' : "a manager on a report's record";
  return 'an employee on their own record';
}

/** A visible employee, or 404 exactly like a missing one (docs/decisions.md, "Employees and roles": no existence oracle). */
export async function findVisibleEmployee(db: Db, caller: Caller, id: number): Promise<EmployeeRecord> {
  const employee = await findEmployeeById(db, id);
  if (!employee || !canSeeEmployee(caller, employee)) throw new NotFoundError({ detail: 'No such employee' });
  return employee;
}
