import type { Caller } from '../auth/caller';
import type { Db } from '../db/connect';
import { sqlDateTimeToIso } from '../db/sql-time';
import type { Instance } from '../instance';
import type { NamedTable, NameLookup } from '../lookups/reference-names';
import { COUNTRY, EMPLOYEE_FIELDS, type EmployeeField, PERSONAL_FIELDS, REFERENCE_FIELDS, type ReferenceFieldName } from './fields';
import { type EmployeeRecord, type EmployeeReferenceField } from './repository';

const DATE_FIELDS = new Set<EmployeeField>(['birthday', 'joined_date', 'confirmation_date', 'termination_date']);
const PERSONAL = new Set<EmployeeField>(PERSONAL_FIELDS);
const NAMED_REFERENCES = (Object.keys(REFERENCE_FIELDS) as ReferenceFieldName[]).filter(
  (field) => REFERENCE_FIELDS[field].table !== 'employees',
);

/** Whether the caller may see an employee's personal fields (CONTRACT §4). */
export function seesPersonalFields(caller: Caller, employeeId: number): boolean {
  return caller.role === 'admin' || caller.employeeId === employeeId;
}

/** The names the reference objects of these employees display. */
export function employeeReferenceNames(instance: Instance, records: EmployeeRecord[], db: Db = instance.db): Promise<NameLookup> {
  const wanted: Array<[NamedTable, number | string]> = [];
  for (const record of records) {
    for (const field of NAMED_REFERENCES) {
      const id = record[REFERENCE_FIELDS[field].column as keyof EmployeeRecord];
      if (id !== null) wanted.push([REFERENCE_FIELDS[field].table as NamedTable, id as number]);
    }
    if (record.country_code !== null) wanted.push([COUNTRY.table, record.country_code]);
  }
  return instance.referenceNames.lookup(wanted, db);
}

type Reader = (record: EmployeeRecord, names: NameLookup) => unknown;

/** How to answer each field, worked out once: this runs for every employee of every response. */
const READERS: ReadonlyArray<{ field: EmployeeField; personal: boolean; read: Reader }> = EMPLOYEE_FIELDS.map((field) => ({
  field,
  personal: PERSONAL.has(field),
  read: readerOf(field),
}));

/** The read shape of CONTRACT §5.1, leaving out what the caller may not see. */
export function toEmployeeResponse(record: EmployeeRecord, caller: Caller, names: NameLookup): Record<string, unknown> {
  const personal = seesPersonalFields(caller, record.id);
  const body: Record<string, unknown> = { id: String(record.id) };
  for (const reader of READERS) {
    if (personal || !reader.personal) body[reader.field] = reader.read(record, names);
  }
  body.created_at = sqlDateTimeToIso(record.created_at);
  body.updated_at = sqlDateTimeToIso(record.updated_at);
  if (!personal) body.restricted_fields = [...PERSONAL_FIELDS];
  return body;
}

function readerOf(field: EmployeeField): Reader {
  if (field === 'country') {
    return (record, names) => {
      const code = record.country_code;
      return code === null ? null : { type: COUNTRY.type, code, display: names.name(COUNTRY.table, code) };
    };
  }
  if (field in REFERENCE_FIELDS) {
    const { column, table, type } = REFERENCE_FIELDS[field as ReferenceFieldName];
    const display: (record: EmployeeRecord, id: number, names: NameLookup) => string | null =
      table === 'employees'
        ? (record) => record.employeeNames[field as EmployeeReferenceField]
        : (_record, id, names) => names.name(table as NamedTable, id);
    return (record, names) => {
      const id = record[column as keyof EmployeeRecord] as number | null;
      return id === null ? null : { type, id: String(id), display: display(record, id, names) };
    };
  }
  if (DATE_FIELDS.has(field)) {
    // Rows imported from IceHrm may hold MySQL zero dates; on the wire "no date" is null.
    return (record) => {
      const value = record[field as keyof EmployeeRecord] as string | null;
      return value === null || value.startsWith('0000') ? null : value;
    };
  }
  return (record) => record[field as keyof EmployeeRecord] ?? null;
}
