import type { Caller, Role } from '../caller';
import type { Db } from '../db/connect';
import { sqlDateTimeToIso } from '../db/sql-time';
import type { Instance } from '../instances/instance';
import { type NamedTable, type NameLookup, referenceNamesOf } from '../lookups/reference-names';
import { wallClockIn } from '../time';
import { seesPersonalFields } from './access';
import { type AccountField, type FieldSelection, isPersonalField, type ReadField } from './field-selection';
import { COUNTRY, PERSONAL_FIELDS, REFERENCE_FIELDS, type ReferenceFieldName } from '../employee-records/fields';
import { type EmployeeRecord, storedIdList } from '../employee-records/record';

const NAMED_REFERENCES = (Object.keys(REFERENCE_FIELDS) as ReferenceFieldName[]).filter(
  (field) => REFERENCE_FIELDS[field].table !== 'employees',
);

/** The reference rows whose names these employees' reference objects display. */
export function referencesOf(records: readonly EmployeeRecord[]): Array<[NamedTable, number | string]> {
  const wanted: Array<[NamedTable, number | string]> = [];
  for (const record of records) {
    for (const field of NAMED_REFERENCES) {
      // A list read with fields= has only the columns it answers: the others are undefined.
      const id = record[REFERENCE_FIELDS[field].column as keyof EmployeeRecord];
      if (id != null) wanted.push([REFERENCE_FIELDS[field].table as NamedTable, id as number]);
    }
    if (record.country_code != null) wanted.push([COUNTRY.table, record.country_code]);
  }
  return wanted;
}

/** The names the reference objects of these employees display, from the instance's cache. */
export function employeeReferenceNames(instance: Instance, records: EmployeeRecord[], db: Db = instance.db): Promise<NameLookup> {
  return referenceNamesOf(instance).lookup(referencesOf(records), db);
}

/** What JSON.stringify escapes in a string: quotes, backslashes, control and lone surrogate characters. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;

const RESTRICTED_FIELDS_JSON = `,"restricted_fields":${JSON.stringify(PERSONAL_FIELDS)}`;

/**
 * The read shape (docs/decisions.md, "Wire format") as JSON text, leaving out what the caller may
 * not see; with a `selection` (fields=) only its fields and `id`.
 */
export function toEmployeeJson(record: EmployeeRecord, caller: Caller, names: NameLookup, selection?: FieldSelection): string {
  const personal = seesPersonalFields(caller, record.id);
  if (selection) return selectedJson(record, names, personal, selection);
  return personal ? employeeJson(record, names, true) : employeeJson(record, names, false) + RESTRICTED_FIELDS_JSON + '}';
}

type Writer = (r: EmployeeRecord, names: NameLookup) => string;

/** Each field's value as JSON, as employeeJson writes it: for a selection (fields=), field by field. */
const WRITERS: Record<Exclude<ReadField, 'id'>, Writer> = {
  employee_id: (r) => quote(r.employee_id),
  first_name: (r) => quote(r.first_name),
  middle_name: (r) => optional(r.middle_name),
  last_name: (r) => quote(r.last_name),
  nationality: (r, names) => named('Nationality', 'nationalities', r.nationality_id, names),
  birthday: (r) => date(r.birthday),
  gender: (r) => optional(r.gender),
  marital_status: (r) => optional(r.marital_status),
  ssn_num: (r) => optional(r.ssn_num),
  nic_num: (r) => optional(r.nic_num),
  other_id: (r) => optional(r.other_id),
  driving_license: (r) => optional(r.driving_license),
  employment_status: (r, names) => named('EmploymentStatus', 'employment_statuses', r.employment_status_id, names),
  job_title: (r, names) => named('JobTitle', 'job_titles', r.job_title_id, names),
  pay_grade: (r, names) => named('PayGrade', 'pay_grades', r.pay_grade_id, names),
  work_station_id: (r) => optional(r.work_station_id),
  address1: (r) => optional(r.address1),
  address2: (r) => optional(r.address2),
  city: (r) => optional(r.city),
  country: (r, names) => country(r.country_code, names),
  province: (r, names) => named('Province', 'provinces', r.province_id, names),
  postal_code: (r) => optional(r.postal_code),
  home_phone: (r) => optional(r.home_phone),
  mobile_phone: (r) => optional(r.mobile_phone),
  work_phone: (r) => optional(r.work_phone),
  work_email: (r) => optional(r.work_email),
  private_email: (r) => optional(r.private_email),
  joined_date: (r) => date(r.joined_date),
  confirmation_date: (r) => date(r.confirmation_date),
  supervisor: (r) => employee(r.supervisor_id, r.employeeNames.supervisor),
  indirect_supervisors: (r) => idList(r.indirect_supervisors),
  department: (r, names) => named('Department', 'departments', r.department_id, names),
  termination_date: (r) => date(r.termination_date),
  status: (r) => quote(r.status),
  approver1: (r) => employee(r.approver1_id, r.employeeNames.approver1),
  approver2: (r) => employee(r.approver2_id, r.employeeNames.approver2),
  approver3: (r) => employee(r.approver3_id, r.employeeNames.approver3),
  timezone: (r) => quote(r.timezone),
  attendance_device_id: (r) => optional(r.attendance_device_id),
  created_at: (r) => `"${sqlDateTimeToIso(r.created_at)}"`,
  updated_at: (r) => `"${sqlDateTimeToIso(r.updated_at)}"`,
};

/**
 * The fields of a selection and `id`. Personal fields the caller may not read are left out and
 * listed in `restricted_fields`, as in the whole shape: which ones depends only on the request
 * and on who the employee is to the caller, never on what the record holds.
 */
function selectedJson(r: EmployeeRecord, names: NameLookup, personal: boolean, selection: FieldSelection): string {
  let json = `{"id":"${r.id}"`;
  for (const field of selection.fields) {
    if (!personal && isPersonalField(field)) continue;
    json += `,"${field}":${WRITERS[field](r, names)}`;
  }
  if (!personal && selection.personal.length > 0) json += `,"restricted_fields":${JSON.stringify(selection.personal)}`;
  return `${json}}`;
}

/**
 * The employee written straight from its row, field by field in the order of EMPLOYEE_FIELDS (a
 * test holds it to that order), personal fields only when `personal`; without the closing brace
 * when they are left out, for restricted_fields to follow. A list writes 50 employees per
 * response: building an object per employee for JSON.stringify to walk again, or a loop over one
 * writer function per field, cost more (docs/performance.md, "Figures behind the code").
 */
function employeeJson(r: EmployeeRecord, names: NameLookup, personal: boolean): string {
  let json =
    `{"id":"${r.id}","employee_id":${quote(r.employee_id)},"first_name":${quote(r.first_name)}` +
    `,"middle_name":${optional(r.middle_name)},"last_name":${quote(r.last_name)}`;
  if (personal) json += `,"nationality":${named('Nationality', 'nationalities', r.nationality_id, names)}`;
  if (personal) {
    json +=
      `,"birthday":${date(r.birthday)},"gender":${optional(r.gender)},"marital_status":${optional(r.marital_status)}` +
      `,"ssn_num":${optional(r.ssn_num)},"nic_num":${optional(r.nic_num)},"other_id":${optional(r.other_id)}` +
      `,"driving_license":${optional(r.driving_license)}`;
  }
  json +=
    `,"employment_status":${named('EmploymentStatus', 'employment_statuses', r.employment_status_id, names)}` +
    `,"job_title":${named('JobTitle', 'job_titles', r.job_title_id, names)}` +
    `,"pay_grade":${named('PayGrade', 'pay_grades', r.pay_grade_id, names)}` +
    `,"work_station_id":${optional(r.work_station_id)}`;
  if (personal) {
    json +=
      `,"address1":${optional(r.address1)},"address2":${optional(r.address2)},"city":${optional(r.city)}` +
      `,"country":${country(r.country_code, names)},"province":${named('Province', 'provinces', r.province_id, names)}` +
      `,"postal_code":${optional(r.postal_code)},"home_phone":${optional(r.home_phone)},"mobile_phone":${optional(r.mobile_phone)}`;
  }
  json += `,"work_phone":${optional(r.work_phone)},"work_email":${optional(r.work_email)}`;
  if (personal) json += `,"private_email":${optional(r.private_email)}`;
  json +=
    `,"joined_date":${date(r.joined_date)},"confirmation_date":${date(r.confirmation_date)}` +
    `,"supervisor":${employee(r.supervisor_id, r.employeeNames.supervisor)}` +
    `,"indirect_supervisors":${idList(r.indirect_supervisors)}` +
    `,"department":${named('Department', 'departments', r.department_id, names)}` +
    `,"termination_date":${date(r.termination_date)},"status":${quote(r.status)}` +
    `,"approver1":${employee(r.approver1_id, r.employeeNames.approver1)}` +
    `,"approver2":${employee(r.approver2_id, r.employeeNames.approver2)}` +
    `,"approver3":${employee(r.approver3_id, r.employeeNames.approver3)}` +
    `,"timezone":${quote(r.timezone)}` +
    (personal ? `,"attendance_device_id":${optional(r.attendance_device_id)}` : '') +
    // ISO instants are digits and -:.TZ only: nothing to escape.
    `,"created_at":"${sqlDateTimeToIso(r.created_at)}","updated_at":"${sqlDateTimeToIso(r.updated_at)}"`;
  return personal ? `${json}}` : json;
}

/** IceHrm's names for the roles (its users' `user_level`). */
const USER_LEVELS: Record<Role, string> = { admin: 'Admin', manager: 'Manager', employee: 'Employee' };

/**
 * GET /employees/me: the caller's employee and, as IceHrm's /me answers them, their account's
 * user_name, user_email, user_level and can_login, and the employee's wall clock now (docs/api.md,
 * "IceHrm compatibility"). Users here have no e-mail of their own: user_email is the employee's work e-mail. IceHrm's
 * can_login says whether the employee has a user, which the caller of /me always is.
 */
export function toMeJson(record: EmployeeRecord, caller: Caller, names: NameLookup, now: Date, selection?: FieldSelection): string {
  const employee = toEmployeeJson(record, caller, names, selection).slice(0, -1);
  if (!selection) {
    return (
      `${employee},"user_name":${quote(caller.username)},"user_email":${optional(record.work_email)}` +
      `,"user_level":"${USER_LEVELS[caller.role]}","can_login":"Yes","current_time":"${wallClockIn(record.timezone, now)}"}`
    );
  }
  let json = employee;
  for (const field of selection.account) json += `,"${field}":${accountValue(field, record, caller, now)}`;
  return `${json}}`;
}

function accountValue(field: AccountField, record: EmployeeRecord, caller: Caller, now: Date): string {
  switch (field) {
    case 'user_name':
      return quote(caller.username);
    case 'user_email':
      return optional(record.work_email);
    case 'user_level':
      return `"${USER_LEVELS[caller.role]}"`;
    case 'can_login':
      return '"Yes"';
    case 'current_time':
      return `"${wallClockIn(record.timezone, now)}"`;
  }
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

/** Optional text: never answered as "" (docs/decisions.md, "Wire format"), which rows imported from IceHrm may hold. */
function optional(value: string | null): string {
  return value === '' ? 'null' : quote(value);
}

/** A date; rows imported from IceHrm may hold MySQL zero dates, and on the wire "no date" is null. */
function date(value: string | null): string {
  return value === null || value.startsWith('0000') ? 'null' : quote(value);
}

/** A reference to a row of a named table: {"type", "id", "display"}, or null. */
function named(type: string, table: NamedTable, id: number | null, names: NameLookup): string {
  return id === null ? 'null' : `{"type":"${type}","id":"${id}","display":${quote(names.name(table, id))}}`;
}

/** A reference to another employee, displayed by the name the row was read with. */
function employee(id: number | null, name: string | null): string {
  return id === null ? 'null' : `{"type":"Employee","id":"${id}","display":${quote(name)}}`;
}

function country(code: string | null, names: NameLookup): string {
  return code === null ? 'null' : `{"type":"Country","code":${quote(code)},"display":${quote(names.name(COUNTRY.table, code))}}`;
}

/**
 * indirect_supervisors as the API writes it, a string holding a JSON array of id strings: an
 * imported list of numbers or with duplicates is answered so too. A value that is not such a
 * list is answered as it is.
 */
function idList(value: string | null): string {
  const ids = storedIdList(value);
  if (ids === undefined) return quote(value);
  return ids.length === 0 ? 'null' : quote(JSON.stringify(ids));
}
