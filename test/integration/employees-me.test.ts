import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { startTestApp, type TestApp } from '../helpers/test-app';

describe.each(testDialects())('GET /employees/me on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect);
  });
  afterAll(() => t.close());

  it("returns the caller's whole employee record in the read shape", async () => {
    const [department] = await t.db('departments').insert({ name: 'Engineering ME' });
    const [jobTitle] = await t.db('job_titles').insert({ name: 'Engineer ME' });
    const supervisorId = await createEmployee(t, { first_name: 'Grace', last_name: 'Hopper' });
    const california = await t.db('provinces').where({ country_code: 'US', code: 'CA' }).first('id');
    const user = await createUser(t, 'employee', {
      employee: {
        employee_id: 'ME-1',
        first_name: 'Ada',
        last_name: 'Lovelace',
        birthday: '1990-12-10',
        gender: 'Female',
        marital_status: 'Single',
        nic_num: 'N-123',
        department_id: Number(department),
        job_title_id: Number(jobTitle),
        supervisor_id: supervisorId,
        approver1_id: supervisorId,
        country_code: 'US',
        province_id: california.id,
        indirect_supervisors: JSON.stringify([String(supervisorId)]),
        joined_date: '2020-01-06',
        work_email: 'ada@example.com',
        timezone: 'Europe/London',
      },
    });

    const res = await request(t.app).get(t.api('/employees/me')).auth(user.token, { type: 'bearer' });

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      id: String(user.employeeId),
      employee_id: 'ME-1',
      first_name: 'Ada',
      middle_name: null,
      last_name: 'Lovelace',
      nationality: null,
      birthday: '1990-12-10',
      gender: 'Female',
      marital_status: 'Single',
      ssn_num: null,
      nic_num: 'N-123',
      other_id: null,
      driving_license: null,
      employment_status: null,
      job_title: { type: 'JobTitle', id: String(jobTitle), display: 'Engineer ME' },
      pay_grade: null,
      work_station_id: null,
      address1: null,
      address2: null,
      city: null,
      country: { type: 'Country', code: 'US', display: 'United States' },
      province: { type: 'Province', id: String(california.id), display: 'California' },
      postal_code: null,
      home_phone: null,
      mobile_phone: null,
      work_phone: null,
      work_email: 'ada@example.com',
      private_email: null,
      joined_date: '2020-01-06',
      confirmation_date: null,
      supervisor: { type: 'Employee', id: String(supervisorId), display: 'Grace Hopper' },
      indirect_supervisors: JSON.stringify([String(supervisorId)]),
      department: { type: 'Department', id: String(department), display: 'Engineering ME' },
      termination_date: null,
      status: 'Active',
      approver1: { type: 'Employee', id: String(supervisorId), display: 'Grace Hopper' },
      approver2: null,
      approver3: null,
      timezone: 'Europe/London',
      created_at: t.clock.now().toISOString(),
      updated_at: t.clock.now().toISOString(),
    });
  });

  it('answers 404 no_employee for a user without an employee record', async () => {
    const user = await createUser(t, 'admin', { employee: null });

    const res = await request(t.app).get(t.api('/employees/me')).auth(user.token, { type: 'bearer' });

    expectProblem(res, 404, 'no_employee');
  });
});
