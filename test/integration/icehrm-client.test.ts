import type request from 'supertest';
import { asUser, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createUser, unique } from '../helpers/factories';
import { useFixture, useTestApp } from '../helpers/test-app';

/**
 * A client written against IceHrm v35 (an integration, a mobile app), replayed end to end: the
 * requests it sends, with IceHrm's ids, parameters, field names and time strings, and the answers
 * it reads. Each step is one that answered differently, or 400, before this server followed
 * IceHrm there (docs/api.md, "IceHrm compatibility").
 */
describe.each(testDialects())('an IceHrm client on %s', (dialect) => {
  const t = useTestApp(dialect);
  const admin = useFixture(() =>
    createUser(t, 'admin', { employee: { first_name: 'Ada', last_name: 'Admin', work_email: 'ada@example.com' } }),
  );
  beforeEach(() => setClock(t, '2026-11-20T12:00:00.000Z'));

  it('creates an employee with IceHrm ids, lists, reads /me, punches in and out, and reads the summary', async () => {
    const client = asUser(t, admin);
    const jobTitle = (await client.post('/job-titles', { name: unique('Software Engineer ') })).body.id as string;
    const payGrade = (await client.post('/pay-grades', { name: unique('Grade ') })).body.id as string;
    const department = (await client.post('/departments', { name: unique('Engineering ') })).body.id as string;
    const code = unique('EMP');

    // The body of IceHrm's documentation: every value a string, "" for nothing, 0000-00-00 for no
    // date, IceHrm's ids for nationality (35), employment status (3) and province (41).
    const created = await client.post('/employees', {
      employee_id: code,
      first_name: 'Lala',
      middle_name: '',
      last_name: 'Lamees',
      nationality: '35',
      birthday: '1984-03-17',
      gender: 'Female',
      marital_status: 'Married',
      ssn_num: '',
      nic_num: '294-38-3535',
      other_id: `OTHER-${code}`,
      driving_license: '',
      employment_status: '3',
      job_title: jobTitle,
      pay_grade: payGrade,
      work_station_id: '',
      address1: '2 Lake Shore',
      address2: '',
      city: 'Columbus',
      country: 'US',
      province: '41',
      postal_code: '43004',
      home_phone: '',
      mobile_phone: '',
      work_phone: '',
      work_email: `${code.toLowerCase()}@example.com`,
      private_email: '',
      joined_date: '2022-01-01',
      confirmation_date: '0000-00-00',
      supervisor: String(admin.employeeId),
      indirect_supervisors: JSON.stringify([String(admin.employeeId)]),
      department,
      termination_date: '0000-00-00',
      status: 'Active',
      approver1: '',
      approver2: '',
      approver3: '',
    });

    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      employee_id: code,
      nationality: { type: 'Nationality', id: '35', display: 'Canadian' },
      employment_status: { type: 'EmploymentStatus', id: '3', display: 'Full Time Permanent' },
      country: { type: 'Country', code: 'US', display: 'United States' },
      province: { type: 'Province', id: '41', display: 'Ohio' },
      confirmation_date: null,
      termination_date: null,
      middle_name: null,
    });
    const id = created.body.id as string;
    expect((await client.get('/nationalities/35')).body).toEqual({ id: '35', name: 'Canadian' });
    expect((await client.get('/provinces/41')).body).toMatchObject({ id: '41', code: 'OH', name: 'Ohio' });
    expect((await client.get('/employment-statuses/3')).body).toMatchObject({ id: '3', name: 'Full Time Permanent' });

    // The list as IceHrm's table component asks for it.
    const firstPage = await client.get(`/employees?limit=0&page=0&sortField=first_name&sortOrder=ASC&filters=&_=1763640000000`);
    const filtered = await client.get(
      `/employees?filters=${encodeURIComponent(JSON.stringify({ nationality: '35', gender: 'Female', employee_id: code }))}&sortField=last_name&sortOrder=DESC&limit=500`,
    );
    const searched = await client.get(`/employees?search=294-38-3535&filters=null`);
    expect(firstPage.status).toBe(200);
    expect(firstPage.body.data.map((employee: { first_name: string }) => employee.first_name)).toEqual(['Ada', 'Lala']);
    expect(filtered.body).toMatchObject({ total: 1, nextPage: null, data: [{ id, last_name: 'Lamees' }] });
    expect(searched.body).toMatchObject({ total: 1, data: [{ id }] });

    // The employee signs in to the app: /me with the account, then punches with the phone's position.
    const lala = await createUser(t, 'employee', { employee: Number(id) });
    const me = await asUser(t, lala).get('/employees/me');
    expect(me.body).toMatchObject({
      id,
      user_name: lala.username,
      user_email: `${code.toLowerCase()}@example.com`,
      user_level: 'Employee',
      can_login: 'Yes',
      current_time: '2026-11-20 12:00:00',
    });

    const punchedIn = await asUser(t, lala).post('/attendance/punch-in', {
      employee: id,
      in_time: '2026-11-20 08:30:00',
      note: 'office',
      map_lat: '39.9612',
      map_lng: '-82.9988',
    });
    const open = await asUser(t, lala).get(`/employee/${id}/open-punch-in/today`);
    const punchedOut = await asUser(t, lala).post('/attendance/punch-out', {
      employee: id,
      out_time: '2026-11-20 11:45:00',
      note: 'lunch',
      map_lat: 39.96,
      map_lng: -83,
    });
    expect(punchedIn.status).toBe(201);
    expect(open.body).toEqual({ attendance: punchedIn.body, time: '2026-11-20 12:00:00' });
    expect(punchedOut.body).toMatchObject({
      employee: { type: 'Employee', id, display: 'Lala Lamees' },
      in_time: '2026-11-20 08:30:00',
      out_time: '2026-11-20 11:45:00',
      note: 'office',
      out_note: 'lunch',
      hours: 3.25,
      latitude: 39.9612,
      longitude: -82.9988,
      out_latitude: 39.96,
      out_longitude: -83,
    });
    await asUser(t, lala).post('/attendance/punch-in', { employee: id, in_time: '2026-11-20 11:50:00' });

    // IceHrm's summary: two records this month, one of them open; 3.25 hours over 2 records.
    const summary = await asUser(t, lala).get(`/employees/${id}/attendance/summary`);
    const history = await asUser(t, lala).get(`/employee/${id}/attendance?limit=10`);
    expect(summary.body).toEqual({ total: 2, totalHours: 3.25, thisMonth: 2, avgHours: 1.63, closed: 1, thisMonthHours: 3.25 });
    expect(history.body).toMatchObject({ total: 2, nextPage: null });
  });

  it('gets its own nationality, province and status ids in the lists it picks them from', async () => {
    const client = asUser(t, admin);

    const nationalities = await client.get('/nationalities?limit=500');
    const provinces = await client.get('/provinces?country=US&limit=500');
    const statuses = await client.get('/employment-statuses');

    const names = (res: request.Response, ids: number[]) => {
      const byId = new Map((res.body.data as Array<{ id: string; name: string }>).map((row) => [row.id, row.name]));
      return ids.map((id) => byId.get(String(id)));
    };
    expect(names(nationalities, [1, 35, 36, 56, 193])).toEqual(['Afghan', 'Canadian', 'Cape Verdean', 'Emirian', 'Zimbabwean']);
    expect(names(provinces, [1, 41, 48, 65])).toEqual(['Alaska', 'Ohio', 'South Carolina', 'Armed Forces Pacific']);
    expect(names(statuses, [1, 2, 3, 4, 5, 6])).toEqual([
      'Full Time Contract',
      'Full Time Internship',
      'Full Time Permanent',
      'Part Time Contract',
      'Part Time Internship',
      'Part Time Permanent',
    ]);
  });
});
