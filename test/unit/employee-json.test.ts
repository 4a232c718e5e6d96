import fc from 'fast-check';
import type { Caller } from '../../src/caller';
import { EMPLOYEE_FIELDS, PERSONAL_FIELDS } from '../../src/employee-records/fields';
import { fieldsParameter, READ_FIELDS } from '../../src/employees/field-selection';
import { toEmployeeJson, toMeJson } from '../../src/employees/output';
import type { EmployeeRecord } from '../../src/employee-records/record';
import type { NameLookup } from '../../src/lookups/reference-names';
import { employeeColumns } from '../helpers/factories';
import golden from './fixtures/employee-json.golden.json';

const admin: Caller = { userId: 1, username: 'admin', role: 'admin', employeeId: null, tokenId: 't1' };
const colleague: Caller = { userId: 2, username: 'colleague', role: 'employee', employeeId: 99, tokenId: 't2' };

/** The text fields answered as stored, "" as null for the optional ones. */
const REQUIRED_TEXT = ['employee_id', 'first_name', 'status', 'timezone'] as const;
const OPTIONAL_TEXT = [
  'middle_name',
  'gender',
  'marital_status',
  'ssn_num',
  'nic_num',
  'other_id',
  'driving_license',
  'work_station_id',
  'address1',
  'address2',
  'city',
  'postal_code',
  'home_phone',
  'mobile_phone',
  'work_phone',
  'work_email',
  'private_email',
] as const;

function record(text: string, name: string): EmployeeRecord {
  const texts = Object.fromEntries([...REQUIRED_TEXT, ...OPTIONAL_TEXT].map((field) => [field, text]));
  return {
    ...employeeColumns({
      ...texts,
      last_name: 'Last',
      nationality_id: 3,
      birthday: '0000-00-00',
      employment_status_id: 4,
      job_title_id: 5,
      pay_grade_id: 6,
      province_id: 8,
      approver2_id: 9,
      country_code: 'US',
      joined_date: '2024-02-29',
      supervisor_id: 5,
      indirect_supervisors: '["5"]',
      department_id: 2,
    }),
    id: 7,
    created_at: '2026-01-02 03:04:05.678',
    updated_at: '2026-01-02 03:04:05.678',
    employeeNames: { supervisor: name, approver1: null, approver2: 'Ann Lee', approver3: null },
  };
}

const names = (name: string): NameLookup => ({ name: (table) => (table === 'departments' ? name : null) });

describe('toEmployeeJson', () => {
  it('answers any text in any field as stored, optional text "" as null', () => {
    // 'binary' strings include lone surrogates, which JSON.stringify writes as \udxxx escapes.
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: 'grapheme' }),
      fc.constantFrom('"', '\\', '\u0000', '\u2028', '</script>'),
    );
    fc.assert(
      fc.property(text, text, (value, name) => {
        const json = toEmployeeJson(record(value, name), admin, names(name));
        const parsed = JSON.parse(json) as Record<string, unknown>;

        // Optional text is never answered as "" (docs/decisions.md, "Wire format"); required text is answered as stored.
        for (const field of REQUIRED_TEXT) expect(parsed[field]).toBe(value);
        for (const field of OPTIONAL_TEXT) expect(parsed[field]).toBe(value === '' ? null : value);
        expect(parsed.supervisor).toEqual({ type: 'Employee', id: '5', display: name });
        expect(parsed.department).toEqual({ type: 'Department', id: '2', display: name });
      }),
      { numRuns: 500 },
    );
  });

  // The JSON that the hand-written writer of earlier versions answered for these records, byte for
  // byte: an employee's ETag hashes this text, so the tags clients hold stay valid across versions.
  it('answers byte for byte what earlier versions answered, escapes, restricted fields and /me included', () => {
    const tricky = 'Zo\u00eb "q" \\ \u0001 \u2028 \ud800';
    const berlin = { ...record('E1', 'Sam'), timezone: 'Europe/Berlin' };

    expect(toEmployeeJson(record(tricky, 'Sam </script>'), admin, names('Sales'))).toBe(golden.admin);
    expect(toEmployeeJson(record(tricky, 'Sam'), colleague, names('Sales'))).toBe(golden.colleague);
    expect(toMeJson(berlin, { ...admin, employeeId: 7 }, names('Sales'), new Date('2026-01-02T03:04:05Z'))).toBe(golden.me);
  });

  it('writes the whole read shape in its order, zero dates as null and instants in ISO-8601', () => {
    const parsed = JSON.parse(toEmployeeJson(record('E1', 'Sam Boss'), admin, names('Sales'))) as Record<string, unknown>;

    expect(Object.keys(parsed)).toEqual(['id', ...EMPLOYEE_FIELDS, 'created_at', 'updated_at']);
    expect(parsed).toMatchObject({
      id: '7',
      nationality: { type: 'Nationality', id: '3', display: null },
      birthday: null,
      joined_date: '2024-02-29',
      country: { type: 'Country', code: 'US', display: null },
      indirect_supervisors: '["5"]',
      employment_status: { type: 'EmploymentStatus', id: '4', display: null },
      job_title: { type: 'JobTitle', id: '5', display: null },
      pay_grade: { type: 'PayGrade', id: '6', display: null },
      province: { type: 'Province', id: '8', display: null },
      department: { type: 'Department', id: '2', display: 'Sales' },
      supervisor: { type: 'Employee', id: '5', display: 'Sam Boss' },
      approver1: null,
      approver2: { type: 'Employee', id: '9', display: 'Ann Lee' },
      created_at: '2026-01-02T03:04:05.678Z',
    });
    expect(parsed).not.toHaveProperty('restricted_fields');
  });

  it('leaves out personal fields for another employee, and lists them in restricted_fields', () => {
    const parsed = JSON.parse(toEmployeeJson(record('E1', 'Sam Boss'), colleague, names('Sales'))) as Record<string, unknown>;

    const personal = new Set<string>(PERSONAL_FIELDS);
    expect(Object.keys(parsed)).toEqual([
      'id',
      ...EMPLOYEE_FIELDS.filter((field) => !personal.has(field)),
      'created_at',
      'updated_at',
      'restricted_fields',
    ]);
    expect(parsed.restricted_fields).toEqual([...PERSONAL_FIELDS]);
    expect(parsed).toMatchObject({ id: '7', first_name: 'E1', department: { type: 'Department', id: '2', display: 'Sales' } });
  });

  it('with fields= writes exactly the named members of the whole read, for any text and any selection', () => {
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '', 'plain'));
    const selection = fc.subarray([...READ_FIELDS, 'restricted_fields']);
    fc.assert(
      fc.property(text, text, selection, fc.boolean(), (value, name, fields, own) => {
        const parsed = fieldsParameter({ account: false }).safeParse(fields.join(','));
        fc.pre(parsed.success && parsed.data !== undefined);
        const caller = own ? admin : colleague;
        const whole = JSON.parse(toEmployeeJson(record(value, name), caller, names(name))) as Record<string, unknown>;
        const json = toEmployeeJson(record(value, name), caller, names(name), parsed.data);
        const selected = JSON.parse(json) as Record<string, unknown>;

        const named = new Set<string>(fields);
        const expected = Object.fromEntries(Object.entries(whole).filter(([key]) => key === 'id' || named.has(key)));
        const hidden = PERSONAL_FIELDS.filter((field) => named.has(field) && !(field in whole));
        if (hidden.length > 0) expected.restricted_fields = hidden;
        else delete expected.restricted_fields;
        expect(selected).toEqual(expected);
        expect(Object.keys(selected)).toEqual(Object.keys(expected));
      }),
      { numRuns: 300 },
    );
  });
});
