import type { Knex } from 'knex';
import { writeAudit } from '../audit/repository';
import { toSqlDateTime } from '../db/sql-time';
import { ValidationError } from '../errors';
import { todayIn } from '../time';
import { recordEmployeeEvent } from './events';
import type { Caller } from '../caller';
import { assertMayCreateEmployees } from './access';
import { toEmployeeColumns, valueChanges } from './columns';
import { columnOf, EMPLOYEE_FIELDS } from '../employee-records/fields';
import type { EmployeeColumns, EmployeeRecord } from '../employee-records/record';
import { findEmployeeById, insertEmployee } from './repository';
import { checkEmployeeRules } from './rules';
import { byFieldOrder, parseEmployeeInput } from './schemas';

const EMPTY_EMPLOYEE: Omit<EmployeeColumns, 'employee_id' | 'first_name' | 'last_name' | 'timezone'> = {
  middle_name: null,
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
  attendance_device_id: null,
  payroll_id: null,
};

/**
 * Validates a create body (every invalid field at once) and inserts the employee with its audit
 * row, in the write's transaction `trx`. Only admins create employees through the API; the
 * installation itself (the first admin's record: no caller) may too. A duplicate employee_id
 * is left to the unique index, which the error handler answers with 409.
 */
export async function createEmployee(
  trx: Knex.Transaction,
  body: Record<string, unknown>,
  context: { now: Date; defaultTimezone: string; caller: Caller | undefined; requestId: string | undefined },
): Promise<EmployeeRecord> {
  if (context.caller) assertMayCreateEmployees(context.caller);
  const { values, errors } = parseEmployeeInput(body);
  const timezone = values.timezone ?? context.defaultTimezone;
  errors.push(...(await checkEmployeeRules(trx, values, { now: context.now, timezone })));
  if (errors.length > 0) throw new ValidationError(errors.sort(byFieldOrder));

  const columns = { ...EMPTY_EMPLOYEE, ...toEmployeeColumns(values), timezone } as EmployeeColumns;
  if (columns.status === 'Terminated' && columns.termination_date === null) {
    columns.termination_date = todayIn(timezone, context.now);
  }
  const now = toSqlDateTime(context.now);
  const id = await insertEmployee(trx, { ...columns, created_at: now, updated_at: now });
  // Unset fields are null, and pay_group_id is left out unless sent (the column's default, group 1).
  const fields = EMPLOYEE_FIELDS.filter((field) => columns[columnOf(field) as keyof EmployeeColumns] != null);
  await writeAudit(
    trx,
    { action: 'create', entityType: 'employee', entityId: id, fields, changes: valueChanges({}, columns, fields) },
    { caller: context.caller, requestId: context.requestId, now: context.now },
  );
  const created = await findEmployeeById(trx, id);
  if (!created) throw new Error(`Employee ${id} vanished inside its own transaction`);
  await recordEmployeeEvent(trx, 'employee.created', created, context.now);
  return created;
}
