import type { Caller } from '../auth/caller';
import type { Db } from '../db/connect';
import { sqlDateTimeToIso } from '../db/sql-time';
import type { Instance } from '../instance';
import type { NamedTable, NameLookup } from '../lookups/reference-names';
import { seesPersonalFields } from './access';
import { COUNTRY, EMPLOYEE_FIELDS, type EmployeeField, PERSONAL_FIELDS, REFERENCE_FIELDS, type ReferenceFieldName } from './fields';
import { type EmployeeRecord, type EmployeeReferenceField } from './repository';
import { REQUIRED_ON_CREATE } from './schemas';

const DATE_FIELDS = new Set<EmployeeField>(['birthday', 'joined_date', 'confirmation_date', 'termination_date']);
const PERSONAL = new Set<EmployeeField>(PERSONAL_FIELDS);
const REQUIRED = new Set<EmployeeField>(REQUIRED_ON_CREATE);
const NAMED_REFERENCES = (Object.keys(REFERENCE_FIELDS) as ReferenceFieldName[]).filter(
  (field) => REFERENCE_FIELDS[field].table !== 'employees',
);

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

/** What JSON.stringify escapes in a string: quotes, backslashes, control and lone surrogate characters. */
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Writes one field's value as JSON. */
type ValueWriter = (record: EmployeeRecord, names: NameLookup) => string;

/**
 * How to write each field, worked out once. The read shape is written straight from the row as
 * JSON: a list writes 50 employees per response, and building an object per employee for
 * JSON.stringify to walk again cost about as much CPU as reading the page.
 */
const WRITERS: ReadonlyArray<{ personal: boolean; key: string; write: ValueWriter }> = EMPLOYEE_FIELDS.map((field) => ({
  personal: PERSONAL.has(field),
  key: `,${JSON.stringify(field)}:`,
  write: writerOf(field),
}));

const RESTRICTED_FIELDS_JSON = `,"restricted_fields":${JSON.stringify(PERSONAL_FIELDS)}`;

/** The read shape of CONTRACT §5.1 as JSON text, leaving out what the caller may not see. */
export function toEmployeeJson(record: EmployeeRecord, caller: Caller, names: NameLookup): string {
  const personal = seesPersonalFields(caller, record.id);
  let json = `{"id":${quote(String(record.id))}`;
  for (const writer of WRITERS) {
    if (personal || !writer.personal) json += writer.key + writer.write(record, names);
  }
  // ISO instants are digits and -:.TZ only: nothing to escape.
  json += `,"created_at":"${sqlDateTimeToIso(record.created_at)}","updated_at":"${sqlDateTimeToIso(record.updated_at)}"`;
  if (!personal) json += RESTRICTED_FIELDS_JSON;
  return `${json}}`;
}

/** The same read shape as an object, for the replies of writes (kept for idempotent retries). */
export function toEmployeeResponse(record: EmployeeRecord, caller: Caller, names: NameLookup): Record<string, unknown> {
  return JSON.parse(toEmployeeJson(record, caller, names)) as Record<string, unknown>;
}

/** A value as JSON: null for null or undefined. Most strings need no escaping, and are written faster by hand. */
function quote(value: unknown): string {
  if (typeof value === 'string' && !NEEDS_ESCAPING.test(value)) return `"${value}"`;
  return value == null ? 'null' : JSON.stringify(value);
}

function writerOf(field: EmployeeField): ValueWriter {
  if (field === 'country') {
    const prefix = `{"type":${quote(COUNTRY.type)},"code":`;
    return (record, names) => {
      const code = record.country_code;
      return code === null ? 'null' : `${prefix}${quote(code)},"display":${quote(names.name(COUNTRY.table, code))}}`;
    };
  }
  if (field in REFERENCE_FIELDS) {
    const { column, table, type } = REFERENCE_FIELDS[field as ReferenceFieldName];
    const prefix = `{"type":${quote(type)},"id":`;
    const display: (record: EmployeeRecord, id: number, names: NameLookup) => string | null =
      table === 'employees'
        ? (record) => record.employeeNames[field as EmployeeReferenceField]
        : (_record, id, names) => names.name(table as NamedTable, id);
    return (record, names) => {
      const id = record[column as keyof EmployeeRecord] as number | null;
      return id === null ? 'null' : `${prefix}${quote(String(id))},"display":${quote(display(record, id, names))}}`;
    };
  }
  if (DATE_FIELDS.has(field)) {
    // Rows imported from IceHrm may hold MySQL zero dates; on the wire "no date" is null.
    return (record) => {
      const value = record[field as keyof EmployeeRecord] as string | null;
      return value === null || value.startsWith('0000') ? 'null' : quote(value);
    };
  }
  if (field === 'indirect_supervisors') {
    return (record) => {
      const value = record.indirect_supervisors;
      return value === null || value === '' ? 'null' : quote(asIdList(value));
    };
  }
  if (REQUIRED.has(field)) return (record) => quote(record[field as keyof EmployeeRecord]);
  // Optional text is never answered as "" (CONTRACT §5.1); rows imported from IceHrm may hold it.
  return (record) => {
    const value = record[field as keyof EmployeeRecord];
    return value === '' ? 'null' : quote(value);
  };
}

/**
 * indirect_supervisors as the API writes it, a JSON array of id strings: an imported list of
 * numbers or with duplicates is answered so too. A value that is not such a list is answered as it is.
 */
function asIdList(value: string): string | null {
  try {
    const ids: unknown = JSON.parse(value);
    if (!Array.isArray(ids)) return value;
    return ids.length === 0 ? null : JSON.stringify([...new Set(ids.map(String))]);
  } catch {
    return value;
  }
}
