import request from 'supertest';
import * as rules from '../../src/employees/rules';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg, createUser, storeAsImported, type TestUser, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

/** The personal fields (docs/decisions.md, "Employees and roles"), written out here so that the code's list is checked against it. */
const PERSONAL_FIELDS = [
  'birthday',
  'gender',
  'marital_status',
  'nationality',
  'ssn_num',
  'nic_num',
  'other_id',
  'driving_license',
  'address1',
  'address2',
  'city',
  'country',
  'province',
  'postal_code',
  'home_phone',
  'mobile_phone',
  'private_email',
  // Not among the contract's personal fields: this project's decision (docs/terminals.md), a badge number lets one punch as its holder.
  'attendance_device_id',
];

describe.each(testDialects())('who sees and changes which employee on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));

  const get = (user: TestUser, id: number | null) =>
    request(t.app)
      .get(t.api(`/employees/${id}`))
      .auth(user.token, { type: 'bearer' });
  const patch = (user: TestUser, id: number | null, body: object) =>
    request(t.app)
      .patch(t.api(`/employees/${id}`))
      .auth(user.token, { type: 'bearer' })
      .send(body);
  const put = (user: TestUser, id: number | null, body: object) =>
    request(t.app)
      .put(t.api(`/employees/${id}`))
      .auth(user.token, { type: 'bearer' })
      .send(body);
  const fieldsOf = (problem: Record<string, any>) => (problem.errors as Array<{ field: string }>).map((error) => error.field);
  const listAs = (user: TestUser, query: string) =>
    request(t.app)
      .get(t.api(`/employees${query}`))
      .auth(user.token, { type: 'bearer' });
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
      expect(res.body.restricted_fields).toEqual(PERSONAL_FIELDS);
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

    it("answers 404, exactly as for a missing record, to a manager reading another manager's report", async () => {
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

    it("leaves personal fields out of the reports a manager lists, but not out of the manager's own row", async () => {
      const res = await request(t.app).get(t.api('/employees')).auth(org.manager.token, { type: 'bearer' });
      const own = res.body.data.find((row: { id: string }) => row.id === String(org.manager.employeeId));
      const report = res.body.data.find((row: { id: string }) => row.id === String(org.report.employeeId));

      expect(own).toHaveProperty('birthday');
      expect(own).not.toHaveProperty('restricted_fields');
      expect(report).not.toHaveProperty('birthday');
      expect(report.restricted_fields).toEqual(PERSONAL_FIELDS);
    });

    it('refuses a manager a filter on a personal field (it would tell what they may not read) with 403, and allows the others', async () => {
      const country = encodeURIComponent(JSON.stringify({ country: 'US' }));
      const supervisor = encodeURIComponent(JSON.stringify({ supervisor: String(org.manager.employeeId) }));

      const refused = await listAs(org.manager, `?filters=${country}`);
      const byCountry = await listAs(org.outsider, `?filters=${country}`);
      const bySupervisor = await listAs(org.manager, `?filters=${supervisor}`);
      const byAdmin = await listAs(org.admin, `?filters=${country}&limit=1`);

      expect(fieldsOf(expectProblem(refused, 403, 'filter_not_allowed'))).toEqual(['filters.country']);
      expect(byCountry.status).toBe(200);
      expect(bySupervisor.body.data.map((row: { id: string }) => Number(row.id)).sort()).toEqual(
        [org.report.employeeId, org.reportWithoutUser].sort(),
      );
      expect(byAdmin.status).toBe(200);
    });
    it('refuses a manager every personal field as a filter or as sortField, naming each; admins and employees may', async () => {
      const values: Record<string, unknown> = {
        birthday: '1990-01-01',
        marital_status: 'Single',
        nationality: '1',
        country: 'US',
        province: '1',
      };
      const filters = Object.fromEntries(PERSONAL_FIELDS.map((field) => [field, values[field] ?? 'x']));

      const refused = await listAs(org.manager, `?filters=${encodeURIComponent(JSON.stringify(filters))}&sortField=birthday`);
      const sorted = await listAs(org.manager, '?sortField=private_email');

      expect(fieldsOf(expectProblem(refused, 403, 'filter_not_allowed')).sort()).toEqual(
        [...PERSONAL_FIELDS.map((field) => `filters.${field}`), 'sortField'].sort(),
      );
      expect(fieldsOf(expectProblem(sorted, 403, 'filter_not_allowed'))).toEqual(['sortField']);
      const asAdmin = await listAs(org.admin, `?filters=${encodeURIComponent(JSON.stringify(filters))}&sortField=birthday`);
      const asEmployee = await listAs(org.outsider, `?filters=${encodeURIComponent(JSON.stringify({ gender: 'x' }))}&sortField=birthday`);
      expect(asAdmin.status).toBe(200);
      expect(asEmployee.status).toBe(200);
    });

    it('lets a manager filter and sort on the work fields of their reports', async () => {
      const phone = unique('+1 555 ');
      await t.db('employees').where({ id: org.report.employeeId }).update({ work_phone: phone });

      const res = await listAs(
        org.manager,
        `?filters=${encodeURIComponent(JSON.stringify({ work_phone: phone }))}&sortField=work_email&sortOrder=DESC`,
      );

      expect(res.status).toBe(200);
      expect(res.body.data.map((row: { id: string }) => Number(row.id))).toEqual([org.report.employeeId]);
    });

    it("searches personal ids only where the caller may read them: everyone's for admins, their own for others", async () => {
      const nic = (employeeId: number | null) => `NIC-${employeeId}-${dialect}`;
      for (const user of [org.manager, org.report, org.otherReport]) {
        await t
          .db('employees')
          .where({ id: user.employeeId })
          .update({ nic_num: nic(user.employeeId), other_id: `OID-${user.employeeId}` });
      }
      const found = async (user: TestUser, search: string) =>
        ((await listAs(user, `?search=${encodeURIComponent(search)}`)).body.data as Array<{ id: string }>).map((row) => Number(row.id));

      expect(await found(org.admin, nic(org.report.employeeId))).toEqual([org.report.employeeId]);
      expect(await found(org.manager, nic(org.report.employeeId))).toEqual([]);
      expect(await found(org.manager, `OID-${org.report.employeeId}`)).toEqual([]);
      expect(await found(org.manager, nic(org.manager.employeeId))).toEqual([org.manager.employeeId]);
      expect(await found(org.report, nic(org.report.employeeId))).toEqual([org.report.employeeId]);
      expect(await found(org.report, nic(org.otherReport.employeeId))).toEqual([]);
    });
  });

  describe('writing', () => {
    it('lets an admin change any field of anyone', async () => {
      const res = await patch(org.admin, org.otherReport.employeeId, {
        birthday: '1980-01-01',
        work_phone: '+1 555 0101',
        timezone: 'Asia/Tokyo',
      });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ birthday: '1980-01-01', work_phone: '+1 555 0101', timezone: 'Asia/Tokyo' });
    });

    it('lets an admin change any field of their own record', async () => {
      const [payGrade] = (await t.db('pay_grades').insert({ name: unique('Own grade ') })).map(Number);

      const res = await patch(org.admin, org.admin.employeeId, {
        pay_grade: payGrade,
        birthday: '1975-05-05',
        first_name: 'Ada',
        ssn_num: '078-05-1120',
      });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        pay_grade: { id: String(payGrade) },
        birthday: '1975-05-05',
        first_name: 'Ada',
        ssn_num: '078-05-1120',
      });
    });

    it('lets a manager change work fields of a report, answering the record without its personal fields', async () => {
      const res = await patch(org.manager, org.report.employeeId, { work_phone: '+1 555 0102', work_station_id: 'WS-9' });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ work_phone: '+1 555 0102', work_station_id: 'WS-9', restricted_fields: PERSONAL_FIELDS });
      expect(res.body).not.toHaveProperty('birthday');
    });

    it('refuses a manager pay grade, status and fields other than contact ones on their own record', async () => {
      const res = await patch(org.manager, org.manager.employeeId, {
        pay_grade: '1',
        status: 'Terminated',
        birthday: '1970-01-01',
        ssn_num: 'X',
      });

      expect(fieldsOf(expectProblem(res, 403, 'field_not_writable'))).toEqual(['pay_grade', 'status', 'birthday', 'ssn_num']);
      expect(await columnOf(org.manager.employeeId, 'status')).toBe('Active');
    });

    it('refuses an employee their own personal fields other than contact ones', async () => {
      const res = await patch(org.outsider, org.outsider.employeeId, { birthday: '1990-01-01', ssn_num: '123', city: 'Oslo' });

      expect(fieldsOf(expectProblem(res, 403, 'field_not_writable'))).toEqual(['birthday', 'ssn_num']);
      expect(await columnOf(org.outsider.employeeId, 'city')).not.toBe('Oslo');
    });

    it('lets every role send back a record as read, with its changes: fields it may not write but sends unchanged are no change', async () => {
      for (const [user, id, change] of [
        [org.manager, org.report.employeeId, { work_phone: '+1 555 0177' }],
        [org.outsider, org.outsider.employeeId, { city: 'Bergen' }],
        [org.manager, org.manager.employeeId, { work_email: 'mona.round@example.com' }],
      ] as const) {
        const read = (await get(user, id)).body;

        const res = await put(user, id, { ...read, ...change });

        expect(res.status).toBe(200);
        expect(res.body).toEqual({ ...read, ...change, updated_at: expect.any(String) });
      }
    });

    it('lets an employee send back their record as imported from IceHrm (zero dates, "", an id list of numbers), and writes none of it', async () => {
      const id = org.outsider.employeeId;
      const imported = {
        joined_date: '0000-00-00',
        confirmation_date: '0000-00-00',
        middle_name: '',
        indirect_supervisors: `[${org.manager.employeeId}, ${org.manager.employeeId}]`,
      };
      await storeAsImported(t, id, imported);
      const read = (await get(org.outsider, id)).body;

      const res = await put(org.outsider, id, { ...read, postal_code: '0150' });

      expect(read).toMatchObject({
        joined_date: null,
        confirmation_date: null,
        middle_name: null,
        indirect_supervisors: `["${org.manager.employeeId}"]`,
      });
      expect(res.status).toBe(200);
      expect(res.body.postal_code).toBe('0150');
      expect(await t.db('employees').where({ id }).first(Object.keys(imported))).toEqual(imported);
    });

    it('lets an employee send back values an import left that the rules would now refuse, untouched', async () => {
      const user = await createUser(t, 'employee');
      const id = user.employeeId;
      await storeAsImported(t, id, { work_email: 'jdoe@intranet', indirect_supervisors: '["999999"]' });
      const read = (await get(user, id)).body;

      const res = await put(user, id, { ...read, city: 'Tromsø' });
      const changed = await patch(user, id, { work_email: 'other@intranet' });

      expect(res.status).toBe(200);
      expect(await t.db('employees').where({ id }).first('work_email', 'indirect_supervisors', 'city')).toEqual({
        work_email: 'jdoe@intranet',
        indirect_supervisors: '["999999"]',
        city: 'Tromsø',
      });
      expect(fieldsOf(expectProblem(changed, 403, 'field_not_writable'))).toEqual(['work_email']);
    });

    it('writes only what a request changes: a whole record sent by a manager does not undo a termination made meanwhile', async () => {
      const id = await createEmployee(t, { supervisor_id: org.manager.employeeId, first_name: 'Tess' });
      const read = (await get(org.manager, id)).body;
      const checkRules = rules.checkEmployeeRules;
      // An admin's termination commits between the manager's request reading the record and writing it.
      // The admin's write goes through the request's own transaction (its first argument): a write
      // runs whole in one transaction, which holds SQLite's only connection.
      const spy = jest.spyOn(rules, 'checkEmployeeRules').mockImplementationOnce(async (...args) => {
        await args[0]('employees').where({ id }).update({ status: 'Terminated', termination_date: '2026-01-02' });
        return checkRules(...args);
      });

      const res = await put(org.manager, id, { ...read, work_phone: '+1 555 0166' });
      spy.mockRestore();

      expect(res.status).toBe(200);
      expect(await t.db('employees').where({ id }).first('status', 'termination_date', 'work_phone')).toEqual({
        status: 'Terminated',
        termination_date: '2026-01-02',
        work_phone: '+1 555 0166',
      });
    });

    it('lets a manager send back a terminated report whose termination date is unset, as imported', async () => {
      const id = await createEmployee(t, { supervisor_id: org.manager.employeeId, status: 'Terminated', termination_date: null });
      const read = (await get(org.manager, id)).body;

      const res = await put(org.manager, id, { ...read, work_phone: '+1 555 0155' });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'Terminated', termination_date: null, work_phone: '+1 555 0155' });
    });

    it('refuses a field sent back changed that the role may not write', async () => {
      const read = (await get(org.manager, org.report.employeeId)).body;

      const res = await put(org.manager, org.report.employeeId, { ...read, first_name: 'Renamed', work_phone: '+1 555 0188' });

      expect(fieldsOf(expectProblem(res, 403, 'field_not_writable'))).toEqual(['first_name']);
      expect(await columnOf(org.report.employeeId, 'work_phone')).not.toBe('+1 555 0188');
    });

    it('refuses a manager a personal field of a report even with its stored value, so the answer cannot confirm a guess', async () => {
      await t.db('employees').where({ id: org.report.employeeId }).update({ birthday: '1991-03-04', city: 'Turin' });
      const stored = await t.db('employees').where({ id: org.report.employeeId }).first('birthday', 'city');

      const res = await patch(org.manager, org.report.employeeId, { birthday: stored.birthday, city: stored.city });

      expect(fieldsOf(expectProblem(res, 403, 'field_not_writable'))).toEqual(['birthday', 'city']);
    });

    it('lets a manager change work fields and own contact fields of their own record', async () => {
      const res = await patch(org.manager, org.manager.employeeId, { work_email: 'mona@example.com', city: 'Lyon' });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ work_email: 'mona@example.com', city: 'Lyon' });
    });

    describe("a manager's own reporting line", () => {
      /** A manager who answers to another manager, with approvers, an indirect supervisor and a report of their own. */
      const managerInALine = async () => {
        const boss = await createEmployee(t);
        const [approver, indirect] = [await createEmployee(t), await createEmployee(t)];
        const manager = await createUser(t, 'manager', {
          employee: {
            supervisor_id: boss,
            approver1_id: approver,
            approver2_id: approver,
            approver3_id: approver,
            indirect_supervisors: JSON.stringify([String(indirect)]),
          },
        });
        const report = await createEmployee(t, { supervisor_id: manager.employeeId });
        return { manager, boss, report };
      };

      it('refuses a manager setting their own supervisor to a report, or clearing it, with 403 naming it, and writes nothing', async () => {
        const { manager, report } = await managerInALine();
        const before = await t.db('employees').where({ id: manager.employeeId }).first();

        for (const supervisor of [report, null]) {
          const body = expectProblem(
            await patch(manager, manager.employeeId, { supervisor, work_phone: '+1 555 0111' }),
            403,
            'field_not_writable',
          );

          expect(body.errors).toEqual([{ field: 'supervisor', message: 'may not be changed by a manager on their own record' }]);
        }
        expect(await t.db('employees').where({ id: manager.employeeId }).first()).toEqual(before);
        expect(await t.db('audit_log').where({ entity_type: 'employee', entity_id: manager.employeeId })).toEqual([]);
      });

      it('refuses a manager changing their own approvers and indirect supervisors, naming each, and writes nothing', async () => {
        const { manager, report } = await managerInALine();
        const before = await t.db('employees').where({ id: manager.employeeId }).first();

        const res = await put(manager, manager.employeeId, {
          approver1: report,
          approver2: null,
          approver3: String(report),
          indirect_supervisors: [String(report)],
        });

        expect(fieldsOf(expectProblem(res, 403, 'field_not_writable'))).toEqual([
          'approver1',
          'approver2',
          'approver3',
          'indirect_supervisors',
        ]);
        expect(await t.db('employees').where({ id: manager.employeeId }).first()).toEqual(before);
      });

      it('lets a manager send their own record back whole, reporting line unchanged, with a work field changed', async () => {
        const { manager, boss } = await managerInALine();
        const read = (await get(manager, manager.employeeId)).body;

        const res = await put(manager, manager.employeeId, { ...read, work_phone: '+1 555 0122' });

        expect(res.status).toBe(200);
        expect(res.body).toEqual({ ...read, work_phone: '+1 555 0122', updated_at: expect.any(String) });
        expect(await columnOf(manager.employeeId, 'supervisor_id')).toBe(boss);
      });

      it("lets an admin change a manager's reporting line, and the manager their reports'", async () => {
        const { manager, boss, report } = await managerInALine();

        const byAdmin = await patch(org.admin, manager.employeeId, { supervisor: null, approver1: boss, indirect_supervisors: [] });
        const byManager = await patch(manager, report, { supervisor: boss, approver1: manager.employeeId });

        expect(byAdmin.status).toBe(200);
        expect(byAdmin.body).toMatchObject({ supervisor: null, approver1: { id: String(boss) }, indirect_supervisors: null });
        expect(byManager.status).toBe(200);
        expect(await t.db('employees').where({ id: report }).first('supervisor_id', 'approver1_id')).toEqual({
          supervisor_id: boss,
          approver1_id: manager.employeeId,
        });
      });
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
      const res = await patch(org.outsider, org.outsider.employeeId, {
        address1: '2 Side St',
        mobile_phone: '+44 7700 900000',
        private_email: 'me@example.org',
      });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ address1: '2 Side St', mobile_phone: '+44 7700 900000', private_email: 'me@example.org' });
    });

    it('refuses an employee work fields of their own record with 403', async () => {
      const body = expectProblem(
        await patch(org.outsider, org.outsider.employeeId, { job_title: '1', work_email: 'x@example.com' }),
        403,
        'field_not_writable',
      );

      expect(body.errors).toEqual([
        { field: 'job_title', message: 'may not be changed by an employee on their own record' },
        { field: 'work_email', message: 'may not be changed by an employee on their own record' },
      ]);
      expect(await columnOf(org.outsider.employeeId, 'work_email')).toBeNull();
    });

    it("answers 404 to a manager writing another manager's report, and to an employee writing a colleague", async () => {
      expectProblem(await patch(org.manager, org.otherReport.employeeId, { work_phone: '1' }), 404, 'not_found');
      expectProblem(await patch(org.report, org.outsider.employeeId, { city: 'X' }), 404, 'not_found');
      expect(await columnOf(org.otherReport.employeeId, 'work_phone')).not.toBe('1');
    });

    it('refuses a manager deleting a report with 403 (visible) and an employee with 404 (invisible)', async () => {
      const remove = (user: TestUser) =>
        request(t.app)
          .delete(t.api(`/employees/${org.reportWithoutUser}`))
          .auth(user.token, { type: 'bearer' });

      expectProblem(await remove(org.manager), 403, 'forbidden');
      expectProblem(await remove(org.report), 404, 'not_found');
      expect(await t.db('employees').where({ id: org.reportWithoutUser }).first('id')).toBeDefined();
    });
  });
});
