import request from 'supertest';
import { EMPLOYEE_FIELDS } from '../../src/employee-records/fields';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser, type TestUser, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

describe.each(testDialects())('POST /employees on %s', (dialect) => {
  const t = useTestApp(dialect);
  const admin = useFixture(() => createUser(t, 'admin'));

  const post = (body: unknown, user: TestUser = admin) =>
    request(t.app)
      .post(t.api('/employees'))
      .auth(user.token, { type: 'bearer' })
      .send(body as object);
  const employeeCount = async () => Number((await t.db('employees').count({ n: '*' }).first())?.n);

  it('creates an employee from an IceHrm-style all-strings body: 201, Location and the read shape', async () => {
    const supervisorId = await createEmployee(t, { first_name: 'Sam', last_name: 'Boss' });
    const [jobTitle] = await t.db('job_titles').insert({ name: unique('Job ') });
    const nationality = await t.db('nationalities').where({ name: 'Canadian' }).first('id');
    const status = await t.db('employment_statuses').where({ name: 'Full Time Permanent' }).first('id');
    const ontario = await t.db('provinces').where({ country_code: 'CA', code: 'ON' }).first('id');
    const code = unique('NEW');

    const res = await post({
      employee_id: code,
      first_name: 'Jane',
      middle_name: '',
      last_name: 'Doe',
      nationality: String(nationality.id),
      birthday: '1985-07-14',
      gender: 'Female',
      marital_status: 'Married',
      ssn_num: '',
      nic_num: 'NIC-42',
      other_id: '',
      driving_license: '',
      employment_status: String(status.id),
      job_title: { type: 'JobTitle', id: String(jobTitle), display: 'ignored' },
      pay_grade: '',
      work_station_id: 'WS-1',
      address1: '1 Main St',
      address2: '',
      city: 'Toronto',
      country: 'ca',
      province: String(ontario.id),
      postal_code: 'M5V 2T6',
      home_phone: '',
      mobile_phone: '+1 416 555 0100',
      work_phone: '',
      work_email: 'jane.doe@example.com',
      private_email: '',
      joined_date: '2024-03-01',
      confirmation_date: '0000-00-00',
      supervisor: String(supervisorId),
      indirect_supervisors: JSON.stringify([String(supervisorId)]),
      department: '',
      termination_date: '0000-00-00',
      status: 'Active',
      approver1: supervisorId,
      approver2: '',
      approver3: '',
      timezone: 'America/Toronto',
    });

    expect(res.status).toBe(201);
    const id = res.body.id as string;
    expect(id).toMatch(/^\d+$/);
    expect(res.headers.location).toBe(`/app/api/employees/${id}`);
    expect(res.body).toMatchObject({
      employee_id: code,
      middle_name: null,
      nationality: { type: 'Nationality', id: String(nationality.id), display: 'Canadian' },
      birthday: '1985-07-14',
      ssn_num: null,
      employment_status: { type: 'EmploymentStatus', id: String(status.id), display: 'Full Time Permanent' },
      job_title: { type: 'JobTitle', id: String(jobTitle) },
      pay_grade: null,
      country: { type: 'Country', code: 'CA', display: 'Canada' },
      province: { type: 'Province', id: String(ontario.id), display: 'Ontario' },
      confirmation_date: null,
      supervisor: { type: 'Employee', id: String(supervisorId), display: 'Sam Boss' },
      indirect_supervisors: `["${supervisorId}"]`,
      termination_date: null,
      approver1: { type: 'Employee', id: String(supervisorId), display: 'Sam Boss' },
      timezone: 'America/Toronto',
      status: 'Active',
    });
    const stored = await t
      .db('employees')
      .where({ id: Number(id) })
      .first();
    expect(stored).toMatchObject({ employee_id: code, middle_name: null, confirmation_date: null, country_code: 'CA' });
  });

  it('fills in defaults: status Active, the instance time zone, pay group 1, every other field null', async () => {
    const res = await post({ employee_id: unique('MIN'), first_name: 'Min', last_name: 'Imal' });

    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', ...EMPLOYEE_FIELDS, 'created_at', 'updated_at']);
    expect(res.body.pay_group).toEqual({ type: 'PayGroup', id: '1', display: 'Default' });
    const given = ['id', 'employee_id', 'first_name', 'last_name', 'status', 'timezone', 'pay_group', 'created_at', 'updated_at'];
    const rest = Object.entries(res.body).filter(([field]) => !given.includes(field));
    expect(rest.every(([, value]) => value === null)).toBe(true);
    expect(res.body).toMatchObject({ first_name: 'Min', last_name: 'Imal', status: 'Active', timezone: 'UTC' });
  });

  it('sets termination_date to today when created as Terminated without one', async () => {
    const res = await post({ employee_id: unique('TERM'), first_name: 'Ex', last_name: 'Employee', status: 'Terminated' });

    expect(res.status).toBe(201);
    expect(res.body.termination_date).toBe(t.clock.now().toISOString().slice(0, 10));
  });

  it('answers 422 listing every invalid field at once, and writes nothing', async () => {
    const before = await employeeCount();

    const res = await post({
      employee_id: 'x'.repeat(51),
      first_name: '',
      nationality: '999999',
      birthday: '2023-02-30',
      marital_status: 'Complicated',
      employment_status: 'abc',
      job_title: 12.5,
      country: 'ZZ',
      work_email: 'not-an-email',
      private_email: 'a@',
      joined_date: '2024-01-10',
      termination_date: '2024-01-01',
      supervisor: '999999',
      indirect_supervisors: 'not json',
      status: 'Retired',
      timezone: 'Mars/Olympus',
      gender: 'g'.repeat(21),
      city: 42,
      salary: '100',
    });

    const body = expectProblem(res, 422, 'validation_failed');
    expect(body.errors).toEqual([
      { field: 'employee_id', message: 'must be at most 50 characters' },
      { field: 'first_name', message: 'must not be empty' },
      { field: 'last_name', message: 'is required' },
      { field: 'nationality', message: 'does not exist' },
      { field: 'birthday', message: 'must be a real date YYYY-MM-DD' },
      { field: 'gender', message: 'must be at most 20 characters' },
      { field: 'marital_status', message: 'must be one of Married, Single, Divorced, Widowed, Other' },
      { field: 'employment_status', message: 'must be the id of an employment status' },
      { field: 'job_title', message: 'must be the id of a job title' },
      { field: 'city', message: 'must be a string' },
      { field: 'country', message: 'is not a known ISO 3166-1 country code' },
      { field: 'work_email', message: 'must be a valid e-mail address' },
      { field: 'private_email', message: 'must be a valid e-mail address' },
      { field: 'supervisor', message: 'does not exist' },
      { field: 'indirect_supervisors', message: expect.stringContaining('must be a JSON array of employee ids') },
      { field: 'termination_date', message: 'must not be before joined_date' },
      { field: 'status', message: 'must be one of Active, Terminated' },
      { field: 'timezone', message: 'must be an IANA time zone such as Europe/Berlin' },
      { field: 'salary', message: 'is not a known field' },
    ]);
    expect(body.detail).toBe('19 fields are invalid');
    expect(await employeeCount()).toBe(before);
  });

  it('rejects a birthday that is not in the past', async () => {
    const today = t.clock.now().toISOString().slice(0, 10);

    const res = await post({ employee_id: unique('B'), first_name: 'A', last_name: 'B', birthday: today });

    expect(expectProblem(res, 422, 'validation_failed').errors).toEqual([{ field: 'birthday', message: 'must be in the past' }]);
  });

  it('rejects a province of another country', async () => {
    const texas = await t.db('provinces').where({ country_code: 'US', code: 'TX' }).first('id');

    const res = await post({ employee_id: unique('P'), first_name: 'A', last_name: 'B', country: 'CA', province: texas.id });

    expect(expectProblem(res, 422, 'validation_failed').errors).toEqual([{ field: 'province', message: 'does not belong to country CA' }]);
  });

  it('rejects an indirect supervisor that does not exist', async () => {
    const existing = await createEmployee(t);

    const res = await post({
      employee_id: unique('I'),
      first_name: 'A',
      last_name: 'B',
      indirect_supervisors: JSON.stringify([String(existing), '999999']),
    });

    expect(expectProblem(res, 422, 'validation_failed').errors).toEqual([
      { field: 'indirect_supervisors', message: 'lists employee 999999, which does not exist' },
    ]);
  });

  it('rejects an id in the body, so a create can never overwrite another record', async () => {
    const existing = await createEmployee(t);
    const before = await t.db('employees').where({ id: existing }).first();

    const res = await post({ id: String(existing), employee_id: unique('ID'), first_name: 'Over', last_name: 'Write' });

    expect(expectProblem(res, 422, 'validation_failed').errors).toEqual([
      { field: 'id', message: 'must not be sent when creating an employee' },
    ]);
    expect(await t.db('employees').where({ id: existing }).first()).toEqual(before);
  });

  it('answers 409 duplicate for an employee_id already in use, whatever its case', async () => {
    const code = unique('DUP');
    expect((await post({ employee_id: code, first_name: 'One', last_name: 'First' })).status).toBe(201);
    const before = await employeeCount();

    const res = await post({ employee_id: code.toLowerCase(), first_name: 'Two', last_name: 'Second' });

    const body = expectProblem(res, 409, 'duplicate');
    expect(body.errors).toEqual([{ field: 'employee_id', message: 'is already in use' }]);
    expect(await employeeCount()).toBe(before);
  });

  it.each(['manager', 'employee'] as const)('answers 403 to a %s and writes nothing', async (role) => {
    const user = await createUser(t, role);
    const before = await employeeCount();

    const res = await post({ employee_id: unique('R'), first_name: 'A', last_name: 'B' }, user);

    expectProblem(res, 403, 'forbidden');
    expect(await employeeCount()).toBe(before);
  });

  it('answers 415 for a body that is not declared as JSON', async () => {
    const res = await request(t.app)
      .post(t.api('/employees'))
      .auth(admin.token, { type: 'bearer' })
      .set('Content-Type', 'text/plain')
      .send('{"employee_id":"T1","first_name":"A","last_name":"B"}');

    expectProblem(res, 415, 'unsupported_media_type');
  });

  it('answers 415 for a POST without a body or Content-Type', async () => {
    const res = await request(t.app).post(t.api('/employees')).auth(admin.token, { type: 'bearer' });

    expectProblem(res, 415, 'unsupported_media_type');
  });

  it('accepts a charset parameter on the Content-Type', async () => {
    const res = await request(t.app)
      .post(t.api('/employees'))
      .auth(admin.token, { type: 'bearer' })
      .set('Content-Type', 'application/json; charset=utf-8')
      .send(JSON.stringify({ employee_id: unique('CS'), first_name: 'Char', last_name: 'Set' }));

    expect(res.status).toBe(201);
  });

  it('answers 400 malformed_json for broken JSON', async () => {
    const res = await request(t.app)
      .post(t.api('/employees'))
      .auth(admin.token, { type: 'bearer' })
      .set('Content-Type', 'application/json')
      .send('{"employee_id": "X1", ');

    expectProblem(res, 400, 'malformed_json');
  });

  it('answers 400 malformed_json for a body that tries prototype poisoning', async () => {
    const res = await request(t.app)
      .post(t.api('/employees'))
      .auth(admin.token, { type: 'bearer' })
      .set('Content-Type', 'application/json')
      .send('{"employee_id": "PP1", "first_name": "A", "last_name": "B", "__proto__": {"role": "admin"}}');

    expectProblem(res, 400, 'malformed_json');
  });

  it('answers 400 invalid_body for an empty body declared as JSON', async () => {
    const res = await request(t.app)
      .post(t.api('/employees'))
      .auth(admin.token, { type: 'bearer' })
      .set('Content-Type', 'application/json')
      .send('');

    expectProblem(res, 400, 'invalid_body');
  });

  it('answers 400 when the JSON body is not an object', async () => {
    const res = await post([{ employee_id: 'X', first_name: 'A', last_name: 'B' }]);

    expectProblem(res, 400, 'invalid_body');
  });

  it('answers 413 for a body over the limit, and writes nothing', async () => {
    const before = await employeeCount();

    const res = await post({ employee_id: unique('BIG'), first_name: 'A', last_name: 'B', address1: 'x'.repeat(200 * 1024) });

    expectProblem(res, 413, 'payload_too_large');
    expect(await employeeCount()).toBe(before);
  });
});
