import type { Caller, Role } from '../caller';
import type { Db } from '../db/connect';
import { readersOf } from '../db/coalesced-reads';
import { sqlDateTimeToIso } from '../db/sql-time';
import type { Instance } from '../instances/instance';
import { type NamedTable, type NameLookup, type NamesSnapshot, referenceNamesOf } from '../lookups/reference-names';
import { wallClockIn } from '../time';
import { seesPersonalFields } from './access';
import { ACCOUNT_FIELDS, type AccountField, type FieldSelection, isPersonalField, type ReadField } from './field-selection';
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

/** An instance's reference names (referenceNamesOf): its cache of the names references display. */
export type ReferenceNames = ReturnType<typeof referenceNamesOf>;

/**
 * The names the reference objects of these employees display, from the instance's cache (read
 * on `db`, a write's transaction, when a name is missing or stale): the one way an employee's
 * answer, its ETag and a write's If-Match read them, so the three agree.
 */
export function employeeNames(names: ReferenceNames, records: EmployeeRecord[], db?: Db): Promise<NameLookup> {
  return names.lookup(referencesOf(records), db);
}

/**
 * An employee in the read shape, as an object for JSON.stringify, which leaves out the members
 * whose value is undefined: the personal fields of a caller who may not read them.
 */
export type EmployeeView = Record<string, unknown>;

/**
 * The read shape (docs/decisions.md, "Wire format") as an object, leaving out what the caller may
 * not see; with a `selection` (fields=) only its fields and `id`.
 */
export function toEmployeeView(record: EmployeeRecord, caller: Caller, names: NameLookup, selection?: FieldSelection): EmployeeView {
  const personal = seesPersonalFields(caller, record.id);
  return selection ? selectedView(record, names, personal, selection) : wholeView(record, names, personal);
}

/**
 * A page's items as written for one read of its rows: the requests that shared the read
 * (src/db/coalesced-reads.ts, one frozen array; readersOf) and see the same fields of it,
 * rendered with the same names, share its JSON too. Held as long as that read's rows are.
 */
const pagesWritten = new WeakMap<readonly object[], Array<{ snapshot: NamesSnapshot; view: string; json: string }>>();

/**
 * A page of employees in the read shape, as JSON text (an array), with the names of the
 * references they display. `read` is the rows the records came from.
 */
export function toEmployeeListJson(
  instance: Instance,
  read: readonly object[],
  records: readonly EmployeeRecord[],
  caller: Caller,
  selection?: FieldSelection,
): Promise<string> {
  // What a view depends on besides the record and the names (seesPersonalFields, the selection).
  const view = `${caller.role === 'admin' ? 'admin' : `${caller.employeeId}`}:${selection ? selection.fields.join(',') : '*'}`;
  const shared = readersOf(read) > 1;
  return referenceNamesOf(instance).render((names, snapshot) => {
    const written = shared ? pagesWritten.get(read) : undefined;
    const kept = written?.find((page) => page.snapshot === snapshot && page.view === view);
    if (kept) return kept.json;
    // A page with a name missing is not kept: render() reads the names again for it, and its
    // JSON with a null there must serve nobody.
    let named = true;
    const tracked: NameLookup = {
      name: (table, key) => {
        const name = names.name(table, key);
        if (name === null) named = false;
        return name;
      },
    };
    const json = JSON.stringify(records.map((record) => toEmployeeView(record, caller, tracked, selection)));
    // Kept at once: the other requests of the read render right after this one, before it has returned.
    if (shared && named) {
      if (written) written.push({ snapshot, view, json });
      else pagesWritten.set(read, [{ snapshot, view, json }]);
    }
    return json;
  });
}

/** The same read shape as JSON text. */
export function toEmployeeJson(record: EmployeeRecord, caller: Caller, names: NameLookup, selection?: FieldSelection): string {
  return JSON.stringify(toEmployeeView(record, caller, names, selection));
}

type Value = (r: EmployeeRecord, names: NameLookup) => unknown;

/** A row read without its group (none is stored so) is in group 1, as the column's default. */
const DEFAULT_PAY_GROUP = 1;

/** Each field's value as wholeView answers it: for a selection (fields=), field by field. */
const VALUES: Record<Exclude<ReadField, 'id'>, Value> = {
  employee_id: (r) => r.employee_id,
  first_name: (r) => r.first_name,
  middle_name: (r) => optional(r.middle_name),
  last_name: (r) => r.last_name,
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
  status: (r) => r.status,
  approver1: (r) => employee(r.approver1_id, r.employeeNames.approver1),
  approver2: (r) => employee(r.approver2_id, r.employeeNames.approver2),
  approver3: (r) => employee(r.approver3_id, r.employeeNames.approver3),
  timezone: (r) => r.timezone,
  attendance_device_id: (r) => optional(r.attendance_device_id),
  payroll_id: (r) => optional(r.payroll_id),
  pay_group: (r, names) => named('PayGroup', 'pay_groups', r.pay_group_id ?? DEFAULT_PAY_GROUP, names),
  created_at: (r) => sqlDateTimeToIso(r.created_at),
  updated_at: (r) => sqlDateTimeToIso(r.updated_at),
};

/**
 * The fields of a selection and `id`. Personal fields the caller may not read are left out and
 * listed in `restricted_fields`, as in the whole shape: which ones depends only on the request
 * and on who the employee is to the caller, never on what the record holds.
 */
function selectedView(r: EmployeeRecord, names: NameLookup, personal: boolean, selection: FieldSelection): EmployeeView {
  const view: EmployeeView = { id: String(r.id) };
  for (const field of selection.fields) {
    if (personal || !isPersonalField(field)) view[field] = VALUES[field](r, names);
  }
  if (!personal && selection.personal.length > 0) view.restricted_fields = selection.personal;
  return view;
}

/**
 * The whole employee, in the order of EMPLOYEE_FIELDS (a test holds it to that order and to
 * VALUES); personal fields undefined, so left out, unless `personal`, and then listed in
 * restricted_fields. One object literal of one shape: a list writes 50 employees per response,
 * and JSON.stringify walks such objects faster than text written by hand or objects built field
 * by field in a loop (docs/performance.md, "Figures behind the code").
 */
function wholeView(r: EmployeeRecord, names: NameLookup, personal: boolean): EmployeeView {
  return {
    id: String(r.id),
    employee_id: r.employee_id,
    first_name: r.first_name,
    middle_name: optional(r.middle_name),
    last_name: r.last_name,
    nationality: personal ? named('Nationality', 'nationalities', r.nationality_id, names) : undefined,
    birthday: personal ? date(r.birthday) : undefined,
    gender: personal ? optional(r.gender) : undefined,
    marital_status: personal ? optional(r.marital_status) : undefined,
    ssn_num: personal ? optional(r.ssn_num) : undefined,
    nic_num: personal ? optional(r.nic_num) : undefined,
    other_id: personal ? optional(r.other_id) : undefined,
    driving_license: personal ? optional(r.driving_license) : undefined,
    employment_status: named('EmploymentStatus', 'employment_statuses', r.employment_status_id, names),
    job_title: named('JobTitle', 'job_titles', r.job_title_id, names),
    pay_grade: named('PayGrade', 'pay_grades', r.pay_grade_id, names),
    work_station_id: optional(r.work_station_id),
    address1: personal ? optional(r.address1) : undefined,
    address2: personal ? optional(r.address2) : undefined,
    city: personal ? optional(r.city) : undefined,
    country: personal ? country(r.country_code, names) : undefined,
    province: personal ? named('Province', 'provinces', r.province_id, names) : undefined,
    postal_code: personal ? optional(r.postal_code) : undefined,
    home_phone: personal ? optional(r.home_phone) : undefined,
    mobile_phone: personal ? optional(r.mobile_phone) : undefined,
    work_phone: optional(r.work_phone),
    work_email: optional(r.work_email),
    private_email: personal ? optional(r.private_email) : undefined,
    joined_date: date(r.joined_date),
    confirmation_date: date(r.confirmation_date),
    supervisor: employee(r.supervisor_id, r.employeeNames.supervisor),
    indirect_supervisors: idList(r.indirect_supervisors),
    department: named('Department', 'departments', r.department_id, names),
    termination_date: date(r.termination_date),
    status: r.status,
    approver1: employee(r.approver1_id, r.employeeNames.approver1),
    approver2: employee(r.approver2_id, r.employeeNames.approver2),
    approver3: employee(r.approver3_id, r.employeeNames.approver3),
    timezone: r.timezone,
    attendance_device_id: personal ? optional(r.attendance_device_id) : undefined,
    payroll_id: optional(r.payroll_id),
    pay_group: named('PayGroup', 'pay_groups', r.pay_group_id ?? DEFAULT_PAY_GROUP, names),
    created_at: sqlDateTimeToIso(r.created_at),
    updated_at: sqlDateTimeToIso(r.updated_at),
    restricted_fields: personal ? undefined : PERSONAL_FIELDS,
  };
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
  const view = toEmployeeView(record, caller, names, selection);
  for (const field of selection ? selection.account : ACCOUNT_FIELDS) view[field] = accountValue(field, record, caller, now);
  return JSON.stringify(view);
}

function accountValue(field: AccountField, record: EmployeeRecord, caller: Caller, now: Date): string | null {
  switch (field) {
    case 'user_name':
      return caller.username;
    case 'user_email':
      return optional(record.work_email);
    case 'user_level':
      return USER_LEVELS[caller.role];
    case 'can_login':
      return 'Yes';
    case 'current_time':
      return wallClockIn(record.timezone, now);
  }
}

/** The same read shape as an object, for the replies of writes (kept for idempotent retries). */
export function toEmployeeResponse(record: EmployeeRecord, caller: Caller, names: NameLookup): Record<string, unknown> {
  return JSON.parse(toEmployeeJson(record, caller, names)) as Record<string, unknown>;
}

/** Optional text: never answered as "" (docs/decisions.md, "Wire format"), which rows imported from IceHrm may hold. */
function optional(value: string | null): string | null {
  return value === '' ? null : (value ?? null);
}

/** A date; rows imported from IceHrm may hold MySQL zero dates, and on the wire "no date" is null. */
function date(value: string | null): string | null {
  return value === null || value.startsWith('0000') ? null : value;
}

interface Reference {
  type: string;
  id?: string;
  code?: string;
  display: string | null;
}

/** A reference to a row of a named table: {"type", "id", "display"}, or null. */
function named(type: string, table: NamedTable, id: number | null, names: NameLookup): Reference | null {
  return id === null ? null : { type, id: String(id), display: names.name(table, id) };
}

/** A reference to another employee, displayed by the name the row was read with. */
function employee(id: number | null, name: string | null): Reference | null {
  return id === null ? null : { type: 'Employee', id: String(id), display: name };
}

function country(code: string | null, names: NameLookup): Reference | null {
  return code === null ? null : { type: 'Country', code, display: names.name(COUNTRY.table, code) };
}

/**
 * indirect_supervisors as the API writes it, a string holding a JSON array of id strings: an
 * imported list of numbers or with duplicates is answered so too. A value that is not such a
 * list is answered as it is.
 */
function idList(value: string | null): string | null {
  const ids = storedIdList(value);
  if (ids === undefined) return value;
  return ids.length === 0 ? null : JSON.stringify(ids);
}
