import fc from 'fast-check';
import type { Caller } from '../../src/auth/caller';
import { PERSONAL_FIELDS } from '../../src/employees/fields';
import { toEmployeeJson } from '../../src/employees/output';
import type { EmployeeRecord } from '../../src/employees/repository';
import type { NameLookup } from '../../src/lookups/reference-names';
import { employeeColumns } from '../helpers/factories';

const admin: Caller = { userId: 1, username: 'admin', role: 'admin', employeeId: null, tokenId: 't1' };
const colleague: Caller = { userId: 2, username: 'colleague', role: 'employee', employeeId: 99, tokenId: 't2' };

function record(text: string, name: string): EmployeeRecord {
  return {
    ...employeeColumns({
      employee_id: text,
      first_name: text,
      last_name: 'Last',
      nationality_id: 3,
      birthday: '0000-00-00',
      ssn_num: text,
      address1: text,
      country_code: 'US',
      joined_date: '2024-02-29',
      supervisor_id: 5,
      indirect_supervisors: '["5"]',
      department_id: 2,
      timezone: 'Europe/Berlin',
    }),
    id: 7,
    created_at: '2026-01-02 03:04:05.678',
    updated_at: '2026-01-02 03:04:05.678',
    employeeNames: { supervisor: name, approver1: null, approver2: null, approver3: null },
  };
}

const names = (name: string): NameLookup => ({ name: (table) => (table === 'departments' ? name : null) });

describe('toEmployeeJson', () => {
  it('writes exactly the text JSON.stringify would, for any text in any field', () => {
    // 'binary' strings include lone surrogates, which JSON.stringify writes as \udxxx escapes.
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.constantFrom('"', '\\', '\u0000', '\u2028', '</script>'));
    fc.assert(
      fc.property(text, text, (value, name) => {
        const json = toEmployeeJson(record(value, name), admin, names(name));
        const parsed = JSON.parse(json) as Record<string, unknown>;

        expect(json).toBe(JSON.stringify(parsed));
        // Optional text is never answered as "" (CONTRACT §5.1); required text is answered as stored.
        const optional = value === '' ? null : value;
        expect(parsed).toMatchObject({ employee_id: value, first_name: value, ssn_num: optional, address1: optional });
        expect(parsed.supervisor).toEqual({ type: 'Employee', id: '5', display: name });
        expect(parsed.department).toEqual({ type: 'Department', id: '2', display: name });
      }),
      { numRuns: 500 },
    );
  });

  it('writes the whole read shape in its order, zero dates as null and instants in ISO-8601', () => {
    const parsed = JSON.parse(toEmployeeJson(record('E1', 'Sam Boss'), admin, names('Sales'))) as Record<string, unknown>;

    expect(Object.keys(parsed).slice(0, 6)).toEqual(['id', 'employee_id', 'first_name', 'middle_name', 'last_name', 'nationality']);
    expect(Object.keys(parsed).slice(-3)).toEqual(['timezone', 'created_at', 'updated_at']);
    expect(parsed).toMatchObject({
      id: '7',
      nationality: { type: 'Nationality', id: '3', display: null },
      birthday: null,
      joined_date: '2024-02-29',
      country: { type: 'Country', code: 'US', display: null },
      indirect_supervisors: '["5"]',
      approver1: null,
      created_at: '2026-01-02T03:04:05.678Z',
    });
    expect(parsed).not.toHaveProperty('restricted_fields');
  });

  it('leaves out personal fields for another employee, and lists them in restricted_fields', () => {
    const parsed = JSON.parse(toEmployeeJson(record('E1', 'Sam Boss'), colleague, names('Sales'))) as Record<string, unknown>;

    for (const field of PERSONAL_FIELDS) expect(parsed).not.toHaveProperty(field);
    expect(parsed.restricted_fields).toEqual([...PERSONAL_FIELDS]);
    expect(parsed).toMatchObject({ id: '7', first_name: 'E1', department: { type: 'Department', id: '2', display: 'Sales' } });
  });
});
