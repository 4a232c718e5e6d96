import type { Caller } from '../auth/caller';
import { sqlDateTimeToIso } from '../db/sql-time';
import { COUNTRY, EMPLOYEE_FIELDS, type EmployeeField, PERSONAL_FIELDS, REFERENCE_FIELDS, type ReferenceFieldName } from './fields';
import type { EmployeeRecord } from './repository';

const DATE_FIELDS = new Set<EmployeeField>(['birthday', 'joined_date', 'confirmation_date', 'termination_date']);
const PERSONAL = new Set<EmployeeField>(PERSONAL_FIELDS);

/** Whether the caller may see an employee's personal fields (CONTRACT §4). */
export function seesPersonalFields(caller: Caller, employeeId: number): boolean {
  return caller.role === 'admin' || caller.employeeId === employeeId;
}

/** The read shape of CONTRACT §5.1, leaving out what the caller may not see. */
export function toEmployeeResponse(record: EmployeeRecord, caller: Caller): Record<string, unknown> {
  const personal = seesPersonalFields(caller, record.id);
  const body: Record<string, unknown> = { id: String(record.id) };
  for (const field of EMPLOYEE_FIELDS) {
    if (!personal && PERSONAL.has(field)) continue;
    body[field] = fieldValue(record, field);
  }
  body.created_at = sqlDateTimeToIso(record.created_at);
  body.updated_at = sqlDateTimeToIso(record.updated_at);
  if (!personal) body.restricted_fields = [...PERSONAL_FIELDS];
  return body;
}

function fieldValue(record: EmployeeRecord, field: EmployeeField): unknown {
  if (field === 'country') {
    return record.country_code === null ? null : { type: COUNTRY.type, code: record.country_code, display: record.displays.country };
  }
  if (field in REFERENCE_FIELDS) {
    const reference = REFERENCE_FIELDS[field as ReferenceFieldName];
    const id = record[reference.column as keyof EmployeeRecord];
    return id === null ? null : { type: reference.type, id: String(id), display: record.displays[field as ReferenceFieldName] };
  }
  const value = record[field as keyof EmployeeRecord];
  // Rows imported from IceHrm may hold MySQL zero dates; on the wire "no date" is null.
  if (DATE_FIELDS.has(field) && typeof value === 'string' && value.startsWith('0000')) return null;
  return value ?? null;
}
