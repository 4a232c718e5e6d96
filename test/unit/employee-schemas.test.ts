import { parseEmployeeInput } from '../../src/employees/schemas';

describe('parseEmployeeInput', () => {
  const base = { employee_id: 'E1', first_name: 'Ada', last_name: 'Lovelace' };

  it('normalises IceHrm-style input: "" and 0000-00-00 to null, ids and codes, trimmed names', () => {
    const { values, errors } = parseEmployeeInput({
      ...base,
      first_name: '  Ada ',
      middle_name: '',
      job_title: '3',
      department: 4,
      supervisor: { type: 'Employee', id: '9', display: 'Boss' },
      country: { type: 'Country', code: 'gb', display: 'United Kingdom' },
      nationality: '',
      confirmation_date: '0000-00-00',
      indirect_supervisors: '["9","12","9"]',
      marital_status: '',
    });

    expect(errors).toEqual([]);
    expect(values).toEqual({
      employee_id: 'E1',
      first_name: 'Ada',
      last_name: 'Lovelace',
      middle_name: null,
      job_title: 3,
      department: 4,
      supervisor: 9,
      country: 'GB',
      nationality: null,
      confirmation_date: null,
      indirect_supervisors: [9, 12],
      marital_status: null,
    });
  });

  it('accepts indirect_supervisors as an array and turns an empty list into null', () => {
    expect(parseEmployeeInput({ ...base, indirect_supervisors: ['5', 6] }).values.indirect_supervisors).toEqual([5, 6]);
    expect(parseEmployeeInput({ ...base, indirect_supervisors: '[]' }).values.indirect_supervisors).toBeNull();
  });

  it('requires employee_id, first_name and last_name on create only', () => {
    expect(parseEmployeeInput({}).errors).toEqual([
      { field: 'employee_id', message: 'is required' },
      { field: 'first_name', message: 'is required' },
      { field: 'last_name', message: 'is required' },
    ]);
    expect(parseEmployeeInput({ city: 'Paris' }, 12)).toEqual({ values: { city: 'Paris' }, errors: [] });
  });

  it('rejects nulls in required fields and in status', () => {
    expect(parseEmployeeInput({ ...base, last_name: null, status: null }).errors).toEqual([
      { field: 'last_name', message: 'must be a string' },
      { field: 'status', message: 'must be one of Active, Terminated' },
    ]);
  });

  it.each([
    ['job_title', '0'],
    ['job_title', '-1'],
    ['job_title', '1e3'],
    ['job_title', 1.5],
    ['job_title', '99999999999'],
    ['job_title', { id: 'x' }],
    ['job_title', true],
  ])('rejects %s = %j as an id', (field, value) => {
    expect(parseEmployeeInput({ ...base, [field]: value }).errors).toEqual([{ field, message: 'must be the id of a job title' }]);
  });

  it('reports a bad entry of indirect_supervisors with its index', () => {
    expect(parseEmployeeInput({ ...base, indirect_supervisors: '["3","x"]' }).errors).toEqual([
      { field: 'indirect_supervisors.1', message: 'must be the id of an employee' },
    ]);
  });

  it('on update ignores the read-only members of the read shape and checks id against the path', () => {
    const body = { id: '12', created_at: '2026-01-01T00:00:00.000Z', updated_at: 'x', restricted_fields: ['birthday'], city: 'Oslo' };

    expect(parseEmployeeInput(body, 12)).toEqual({ values: { city: 'Oslo' }, errors: [] });
    expect(parseEmployeeInput({ id: 13 }, 12).errors).toEqual([{ field: 'id', message: 'must match the id in the path' }]);
    expect(parseEmployeeInput({ ...base, created_at: 'x' }).errors).toEqual([{ field: 'created_at', message: 'is not a known field' }]);
  });
});
