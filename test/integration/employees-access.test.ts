import request from 'supertest';
import { PERSONAL_FIELDS } from '../../src/employees/fields';
import { testDialects } from '../helpers/databases';
import { createOrg, type Org, type TestUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { startTestApp, type TestApp } from '../helpers/test-app';

describe.each(testDialects())('who sees and changes which employee on %s', (dialect) => {
  let t: TestApp;
  let org: Org;
  beforeAll(async () => {
    t = await startTestApp(dialect);
    org = await createOrg(t);
  });
  afterAll(() => t.close());

  const get = (user: TestUser, id: number | null) => request(t.app).get(t.api(`/employees/${id}`)).auth(user.token, { type: 'bearer' });
  const patch = (user: TestUser, id: number | null, body: object) =>
    request(t.app).patch(t.api(`/employees/${id}`)).auth(user.token, { type: 'bearer' }).send(body);
  const listIds = async (user: TestUser) => {
    const res = await request(t.app).get(t.api('/employees?limit=200')).auth(user.token, { type: 'bearer' });
    expect(res.status).toBe(200);
    return (res.body.data as Array<{ id: string }>).map((employee) => Number(employee.id)).sort((a, b) => a - b);
  };
  const columnOf = async (id: number | null, column: string) => (await t.db('employees').where({ id }).first(column))[column];

  describe('reading', () => {
    it('lets an admin read anyone, with personal fields', async () => {
      const res = await get(org.admin, org.otherReport.employeeId);

      expect(res.status).toBe(200);
      expect(res.body).toHaveProperty('birthday');
      expect(res.body).not.toHaveProperty('restricted_fields');
    });

    it('lets a manager read a direct report, without personal fields', async () => {
      const res = await get(org.manager, org.report.employeeId);

      expect(res.status).toBe(200);
      expect(res.body.restricted_fields).toEqual([...PERSONAL_FIELDS]);
      for (const field of PERSONAL_FIELDS) expect(res.body).not.toHaveProperty(field);
      expect(res.body).toHaveProperty('work_email');
      expect(res.body.supervisor).toMatchObject({ type: 'Employee', id: String(org.manager.employeeId) });
    });

    it('lets everyone read themselves in full', async () => {
      for (const user of [org.manager, org.report, org.outsider]) {
        const res = await get(user, user.employeeId);

        expect(res.status).toBe(200);
        expect(res.body).toHaveProperty('birthday');
        expect(res.body).not.toHaveProperty('restricted_fields');
      }
    });

    it('answers 404, exactly as for a missing record, to a manager reading another manager\'s report', async () => {
      const invisible = await get(org.manager, org.otherReport.employeeId);
      const missing = await get(org.manager, 999999);

      expectProblem(invisible, 404, 'not_found');
      expect(invisible.body.detail).toBe(missing.body.detail);
    });

    it('answers 404 to an employee reading a colleague or their own manager', async () => {
      expectProblem(await get(org.report, org.outsider.employeeId), 404, 'not_found');
      expectProblem(await get(org.report, org.manager.employeeId), 404, 'not_found');
    });

    it('answers 404 for an id that is not a number', async () => {
      expectProblem(await request(t.app).get(t.api('/employees/abc')).auth(org.admin.token, { type: 'bearer' }), 404, 'not_found');
    });
  });

  describe('listing', () => {
    it('shows an admin everyone', async () => {
      const total = Number((await t.db('employees').count({ n: '*' }).first())?.n);

      expect(await listIds(org.admin)).toHaveLength(total);
    });

    it('shows a manager themself and their direct reports only', async () => {
      expect(await listIds(org.manager)).toEqual(
        [org.manager.employeeId, org.report.employeeId, org.reportWithoutUser].sort((a, b) => Number(a) - Number(b)),
      );
    });

    it('shows an employee themself only', async () => {
      expect(await listIds(org.outsider)).toEqual([org.outsider.employeeId]);
    });

    it('leaves personal fields out of the reports a manager lists, but not out of the manager\'s own row', async () => {
      const res = await request(t.app).get(t.api('/employees')).auth(org.manager.token, { type: 'bearer' });
      const own = res.body.data.find((row: { id: string }) => row.id === String(org.manager.employeeId));
      const report = res.body.data.find((row: { id: string }) => row.id === String(org.report.employeeId));

      expect(own).toHaveProperty('birthday');
      expect(own).not.toHaveProperty('restricted_fields');
      expect(report).not.toHaveProperty('birthday');
      expect(report.restricted_fields).toEqual([...PERSONAL_FIELDS]);
    });
  });

  describe('writing', () => {
    it('lets an admin change any field of anyone', async () => {
      const res = await patch(org.admin, org.otherReport.employeeId, { birthday: '1980-01-01', work_phone: '+1 555 0101', timezone: 'Asia/Tokyo' });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ birthday: '1980-01-01', work_phone: '+1 555 0101', timezone: 'Asia/Tokyo' });
    });

    it('lets a manager change work fields of a report', async () => {
      const res = await patch(org.manager, org.report.employeeId, { work_phone: '+1 555 0102', work_station_id: 'WS-9' });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ work_phone: '+1 555 0102', work_station_id: 'WS-9' });
    });

    it('lets a manager change work fields and own contact fields of their own record', async () => {
      const res = await patch(org.manager, org.manager.employeeId, { work_email: 'mona@example.com', city: 'Lyon' });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ work_email: 'mona@example.com', city: 'Lyon' });
    });

    it('refuses a manager personal fields, pay grade and status of a report with 403 naming them, and writes nothing', async () => {
      const before = await t.db('employees').where({ id: org.report.employeeId }).first();

      const res = await patch(org.manager, org.report.employeeId, {
        work_phone: '+1 555 0199',
        city: 'Paris',
        pay_grade: '1',
        status: 'Terminated',
        birthday: 'not even a date',
      });

      const body = expectProblem(res, 403, 'field_not_writable');
      expect(body.errors.map((error: { field: string }) => error.field)).toEqual(['city', 'pay_grade', 'status', 'birthday']);
      expect(await t.db('employees').where({ id: org.report.employeeId }).first()).toEqual(before);
    });

    it('lets an employee change their own contact fields', async () => {
      const res = await patch(org.outsider, org.outsider.employeeId, { address1: '2 Side St', mobile_phone: '+44 7700 900000', private_email: 'me@example.org' });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ address1: '2 Side St', mobile_phone: '+44 7700 900000', private_email: 'me@example.org' });
    });

    it('refuses an employee work fields of their own record with 403', async () => {
      const body = expectProblem(await patch(org.outsider, org.outsider.employeeId, { job_title: '1', work_email: 'x@example.com' }), 403, 'field_not_writable');

      expect(body.errors).toEqual([
        { field: 'job_title', message: 'may not be changed by an employee on their own record' },
        { field: 'work_email', message: 'may not be changed by an employee on their own record' },
      ]);
      expect(await columnOf(org.outsider.employeeId, 'work_email')).toBeNull();
    });

    it('answers 404 to a manager writing another manager\'s report, and to an employee writing a colleague', async () => {
      expectProblem(await patch(org.manager, org.otherReport.employeeId, { work_phone: '1' }), 404, 'not_found');
      expectProblem(await patch(org.report, org.outsider.employeeId, { city: 'X' }), 404, 'not_found');
      expect(await columnOf(org.otherReport.employeeId, 'work_phone')).not.toBe('1');
    });

    it('refuses a manager deleting a report with 403 (visible) and an employee with 404 (invisible)', async () => {
      const remove = (user: TestUser) => request(t.app).delete(t.api(`/employees/${org.reportWithoutUser}`)).auth(user.token, { type: 'bearer' });

      expectProblem(await remove(org.manager), 403, 'forbidden');
      expectProblem(await remove(org.report), 404, 'not_found');
      expect(await t.db('employees').where({ id: org.reportWithoutUser }).first('id')).toBeDefined();
    });
  });
});
