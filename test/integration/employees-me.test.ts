import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { setClock } from '../helpers/attendance';
import { createEmployee, createUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useTestApp } from '../helpers/test-app';

describe.each(testDialects())('GET /employees/me on %s', (dialect) => {
  const t = useTestApp(dialect);

  it("returns the caller's whole employee record in the read shape, and their account as IceHrm answers it", async () => {
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
    setClock(t, '2026-07-01T11:59:58.700Z');

    const res = await request(t.app).get(t.api('/employees/me')).auth(user.token, { type: 'bearer' });
    const created = (await t.db('employees').where({ id: user.employeeId }).first('created_at')).created_at.replace(' ', 'T') + 'Z';

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
      attendance_device_id: null,
      payroll_id: null,
      pay_group: { type: 'PayGroup', id: '1', display: 'Default' },
      created_at: created,
      updated_at: created,
      user_name: user.username,
      user_email: 'ada@example.com',
      user_level: 'Employee',
      can_login: 'Yes',
      // Noon (less 1.3 s) in London, on summer time.
      current_time: '2026-07-01 12:59:58',
    });
  });

  it("names the role as IceHrm's user_level, and answers user_email null when the employee has no work e-mail", async () => {
    setClock(t, '2026-01-15T08:00:00Z');
    const admin = await createUser(t, 'admin', { employee: { timezone: 'Asia/Kolkata' } });
    const manager = await createUser(t, 'manager', { employee: { work_email: 'm@example.com' } });
    const me = (user: { token: string }) => request(t.app).get(t.api('/employees/me')).auth(user.token, { type: 'bearer' });

    const asAdmin = await me(admin);
    const asManager = await me(manager);

    expect(asAdmin.body).toMatchObject({
      id: String(admin.employeeId),
      user_name: admin.username,
      user_email: null,
      user_level: 'Admin',
      can_login: 'Yes',
      current_time: '2026-01-15 13:30:00',
    });
    expect(asManager.body).toMatchObject({
      user_name: manager.username,
      user_email: 'm@example.com',
      user_level: 'Manager',
      current_time: '2026-01-15 08:00:00',
    });
  });

  it('answers the account fields on /me only, not on the same record read by id or in a list', async () => {
    const user = await createUser(t, 'employee');

    const byId = await request(t.app)
      .get(t.api(`/employees/${user.employeeId}`))
      .auth(user.token, { type: 'bearer' });
    const list = await request(t.app).get(t.api('/employees')).auth(user.token, { type: 'bearer' });

    for (const record of [byId.body, list.body.data[0]]) {
      expect(record.id).toBe(String(user.employeeId));
      for (const field of ['user_name', 'user_email', 'user_level', 'can_login', 'current_time']) expect(record).not.toHaveProperty(field);
    }
  });

  it('takes a /me answer back, changed, through PUT /employees/{id}: the account fields are ignored there', async () => {
    const user = await createUser(t, 'employee', { employee: { city: 'Leeds' } });
    const me = await request(t.app).get(t.api('/employees/me')).auth(user.token, { type: 'bearer' });

    const res = await request(t.app)
      .put(t.api(`/employees/${user.employeeId}`))
      .auth(user.token, { type: 'bearer' })
      .send({ ...me.body, city: 'York', user_level: 'Admin', user_name: 'someone-else' });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ city: 'York' });
    expect(res.body).not.toHaveProperty('user_level');
    expect(await t.db('users').where({ id: user.userId }).first('username', 'role')).toEqual({ username: user.username, role: 'employee' });
  });

  it('answers 404 no_employee for a user without an employee record', async () => {
    const user = await createUser(t, 'admin', { employee: null });

    const res = await request(t.app).get(t.api('/employees/me')).auth(user.token, { type: 'bearer' });

    expectProblem(res, 404, 'no_employee');
  });
});
