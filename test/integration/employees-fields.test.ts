import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser, storeAsImported, type TestUser, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useTestApp } from '../helpers/test-app';
import type { Caller } from '../../src/caller';
import { dialectOf } from '../../src/db/connect';
import { preparedListRead } from '../../src/db/coalesced-reads';
import { READ_FIELDS } from '../../src/employees/field-selection';
import { fastStatementOf, listRowsQuery } from '../../src/employees/list';
import { findEmployeeById } from '../../src/employees/repository';
import { listEmployeesQuery } from '../../src/employees/list-query';
import { parseQuery } from '../../src/http/parse';
import { PERSONAL_FIELDS } from '../../src/employee-records/fields';

type Employee = Record<string, unknown> & { id: string };

describe.each(testDialects())('fields= on the employee reads on %s', (dialect) => {
  const t = useTestApp(dialect);
  let admin: TestUser;
  let manager: TestUser;
  let employee: TestUser;
  let department: number;
  /** Reports of `manager`: the first with personal fields set, the second with none. */
  let reports: number[];
  let outsider: number;
  const tag = unique('Fz');

  beforeAll(async () => {
    admin = await createUser(t, 'admin');
    [department] = (await t.db('departments').insert({ name: unique('Fields dept ') })).map(Number) as [number];
    manager = await createUser(t, 'manager', {
      employee: { first_name: 'Mia', last_name: `Manager${tag}`, birthday: '1980-05-05', department_id: department },
    });
    reports = [
      await createEmployee(t, {
        first_name: 'Rita',
        last_name: `Report${tag}`,
        birthday: '1991-01-01',
        nic_num: 'NIC-RITA',
        city: 'Lyon',
        supervisor_id: manager.employeeId,
        department_id: department,
        work_email: `rita.${tag.toLowerCase()}@example.com`,
      }),
      await createEmployee(t, {
        first_name: 'Rolf',
        last_name: `Other${tag}`,
        supervisor_id: manager.employeeId,
        department_id: department,
        work_email: `rolf.${tag.toLowerCase()}@example.com`,
      }),
    ];
    employee = await createUser(t, 'employee', {
      employee: { first_name: 'Emma', last_name: `Employee${tag}`, birthday: '1999-09-09', department_id: department },
    });
    outsider = await createEmployee(t, { first_name: 'Otto', last_name: `Outsider${tag}` });
  });

  const get = (user: TestUser, path: string) => request(t.app).get(t.api(path)).auth(user.token, { type: 'bearer' });
  const inDepartment = () => encodeURIComponent(JSON.stringify({ department: String(department) }));
  const byId = (res: request.Response) => new Map((res.body.data as Employee[]).map((item) => [item.id, item]));
  /** The members of `full` named in `fields`, and id. */
  const pick = (full: Employee, fields: string[]) =>
    Object.fromEntries(Object.entries(full).filter(([key]) => key === 'id' || fields.includes(key)));

  describe('GET /employees', () => {
    it('answers only the named fields and id, with the values of the whole read', async () => {
      const whole = await get(admin, `/employees?filters=${inDepartment()}`);
      const res = await get(admin, `/employees?filters=${inDepartment()}&fields=first_name,last_name,work_email`);

      expect(res.status).toBe(200);
      expect(res.body.total).toBe(whole.body.total);
      expect(res.body.data).toHaveLength(4);
      for (const item of res.body.data as Employee[]) {
        expect(Object.keys(item)).toEqual(['id', 'first_name', 'last_name', 'work_email']);
        expect(item).toEqual(pick(byId(whole).get(item.id)!, ['first_name', 'last_name', 'work_email']));
      }
    });

    it('answers the fields in the order of the read shape, whatever the order asked, each once', async () => {
      const res = await get(admin, `/employees?filters=${inDepartment()}&fields=work_email, first_name ,,work_email,id`);

      expect(res.status).toBe(200);
      for (const item of res.body.data as Employee[]) expect(Object.keys(item)).toEqual(['id', 'first_name', 'work_email']);
    });

    it('takes the parameter given twice as one list', async () => {
      const res = await get(admin, `/employees?filters=${inDepartment()}&fields=last_name&fields=first_name`);

      expect(res.status).toBe(200);
      for (const item of res.body.data as Employee[]) expect(Object.keys(item)).toEqual(['id', 'first_name', 'last_name']);
    });

    it('answers references with their display, dates, instants and id lists exactly as the whole read does', async () => {
      const fields = [
        'department',
        'supervisor',
        'approver1',
        'country',
        'joined_date',
        'indirect_supervisors',
        'created_at',
        'updated_at',
        'status',
      ];
      const whole = await get(admin, `/employees?filters=${inDepartment()}`);
      const res = await get(admin, `/employees?filters=${inDepartment()}&fields=${fields.join(',')}`);

      expect(res.status).toBe(200);
      const rita = byId(res).get(String(reports[0]))!;
      expect(rita.supervisor).toEqual({ type: 'Employee', id: String(manager.employeeId), display: `Mia Manager${tag}` });
      expect(rita.department).toMatchObject({ type: 'Department', id: String(department) });
      for (const item of res.body.data as Employee[]) expect(item).toEqual(pick(byId(whole).get(item.id)!, fields));
    });

    it('with every field named answers exactly the whole read', async () => {
      const whole = await get(admin, `/employees?filters=${inDepartment()}`);
      const res = await get(admin, `/employees?filters=${inDepartment()}&fields=${READ_FIELDS.join(',')}`);

      expect(res.status).toBe(200);
      expect(res.body).toEqual(whole.body);
    });

    it('combines with filters, search, sort, descending order and pages', async () => {
      const query = `filters=${inDepartment()}&search=${encodeURIComponent(tag)}&sortField=last_name&sortOrder=descend&limit=2`;
      const whole = [await get(admin, `/employees?${query}`), await get(admin, `/employees?${query}&page=2`)];
      const selected = [
        await get(admin, `/employees?${query}&fields=first_name`),
        await get(admin, `/employees?${query}&fields=first_name&page=2`),
      ];
      // The same page again: read from its first row onward (the list's page starts).
      const again = await get(admin, `/employees?${query}&fields=first_name&page=2`);

      for (const [index, res] of [...selected, again].entries()) {
        const reference = whole[Math.min(index, 1)]!;
        expect(res.status).toBe(200);
        expect(res.body.total).toBe(reference.body.total);
        expect(res.body.nextPage).toBe(reference.body.nextPage);
        // Sorted by last_name without answering it.
        expect(res.body.data).toEqual((reference.body.data as Employee[]).map((item) => pick(item, ['first_name'])));
      }
      expect(whole[0]!.body.total).toBe(4);
      expect((whole[0]!.body.data as Employee[]).map((item) => item.first_name)).toEqual(['Rita', 'Rolf']);
    });

    it('pages the whole list in id order with only the named fields, as without them', async () => {
      const whole = await get(admin, '/employees?limit=3&page=2');
      const res = await get(admin, '/employees?limit=3&page=2&fields=employee_id');
      const again = await get(admin, '/employees?limit=3&page=2&fields=employee_id');

      expect(res.body.data).toEqual((whole.body.data as Employee[]).map((item) => pick(item, ['employee_id'])));
      expect(again.body).toEqual(res.body);
    });

    it("leaves a manager's reports' personal fields out, listed in restricted_fields, the same whether they hold a value or not", async () => {
      const res = await get(manager, '/employees?fields=first_name,birthday,nic_num');

      expect(res.status).toBe(200);
      const items = byId(res);
      expect(items.get(String(manager.employeeId))).toEqual({
        id: String(manager.employeeId),
        first_name: 'Mia',
        birthday: '1980-05-05',
        nic_num: null,
      });
      // Rita has a birthday and a NIC number, Rolf neither: their answers cannot be told apart.
      expect(items.get(String(reports[0]))).toEqual({
        id: String(reports[0]),
        first_name: 'Rita',
        restricted_fields: ['birthday', 'nic_num'],
      });
      expect(items.get(String(reports[1]))).toEqual({
        id: String(reports[1]),
        first_name: 'Rolf',
        restricted_fields: ['birthday', 'nic_num'],
      });
      expect(items.has(String(outsider))).toBe(false);
    });

    it('answers no restricted_fields when no personal field is named; naming restricted_fields changes nothing', async () => {
      const res = await get(manager, '/employees?fields=first_name');
      const named = await get(manager, '/employees?fields=first_name,restricted_fields');

      expect(res.status).toBe(200);
      for (const item of res.body.data as Employee[]) expect(Object.keys(item)).toEqual(['id', 'first_name']);
      expect(named.body).toEqual(res.body);
    });

    it('with every field named answers a manager exactly the whole read, restricted_fields included', async () => {
      const whole = await get(manager, '/employees');
      const res = await get(manager, `/employees?fields=${READ_FIELDS.join(',')}`);

      expect(res.status).toBe(200);
      expect(res.body).toEqual(whole.body);
      expect(byId(res).get(String(reports[0]))?.restricted_fields).toEqual([...PERSONAL_FIELDS]);
    });

    it('lets an employee list themselves with their personal fields', async () => {
      const res = await get(employee, '/employees?fields=first_name,birthday');

      expect(res.body).toEqual({
        data: [{ id: String(employee.employeeId), first_name: 'Emma', birthday: '1999-09-09' }],
        total: 1,
        nextPage: null,
      });
    });

    it('refuses an unknown name with 400 invalid_query naming it, and reads nothing', async () => {
      const res = await get(admin, '/employees?fields=first_name,salary');
      const several = await get(admin, '/employees?fields=salary,First_Name,salary');
      const account = await get(admin, '/employees?fields=user_name');

      const problem = expectProblem(res, 400, 'invalid_query');
      expect(problem.errors).toEqual([{ field: 'fields', message: 'names an unknown field: salary' }]);
      expect(expectProblem(several, 400, 'invalid_query').errors).toEqual([
        { field: 'fields', message: 'names unknown fields: salary, First_Name' },
      ]);
      // The account fields are /employees/me's alone.
      expect(expectProblem(account, 400, 'invalid_query').detail).toContain('user_name');
    });

    it('refuses an empty list with 400 invalid_query', async () => {
      for (const query of ['fields=', 'fields=,', 'fields=%20']) {
        const res = await get(admin, `/employees?${query}`);
        expect(expectProblem(res, 400, 'invalid_query').errors).toEqual([
          { field: 'fields', message: 'must name at least one field of the read shape' },
        ]);
      }
    });

    it('refuses a list longer than 2,000 characters with 400 invalid_query', async () => {
      const res = await get(admin, `/employees?fields=${'first_name,'.repeat(190)}`);

      expect(expectProblem(res, 400, 'invalid_query').errors).toEqual([{ field: 'fields', message: expect.stringContaining('2000') }]);
    });

    it('still refuses a manager sorting or filtering on a personal field, named in fields or not', async () => {
      const res = await get(manager, '/employees?fields=first_name&sortField=birthday');

      expectProblem(res, 403, 'filter_not_allowed');
    });
  });

  describe('GET /employees/{id}', () => {
    it('answers only the named fields and id', async () => {
      const whole = await get(admin, `/employees/${reports[0]}`);
      const res = await get(admin, `/employees/${reports[0]}?fields=last_name,department,nic_num`);

      expect(res.status).toBe(200);
      expect(res.body).toEqual(pick(whole.body as Employee, ['last_name', 'department', 'nic_num']));
      expect(res.body.nic_num).toBe('NIC-RITA');
    });

    it("leaves a report's personal fields out for their manager, the same whether they hold a value or not", async () => {
      const rita = await get(manager, `/employees/${reports[0]}?fields=first_name,city,birthday`);
      const rolf = await get(manager, `/employees/${reports[1]}?fields=first_name,city,birthday`);

      expect(rita.body).toEqual({ id: String(reports[0]), first_name: 'Rita', restricted_fields: ['birthday', 'city'] });
      expect(rolf.body).toEqual({ id: String(reports[1]), first_name: 'Rolf', restricted_fields: ['birthday', 'city'] });
    });

    it('answers an employee their own personal fields, and 404 for anyone else as without fields=', async () => {
      const own = await get(employee, `/employees/${employee.employeeId}?fields=birthday`);
      const other = await get(employee, `/employees/${reports[0]}?fields=birthday`);

      expect(own.body).toEqual({ id: String(employee.employeeId), birthday: '1999-09-09' });
      expectProblem(other, 404, 'not_found');
    });

    it('refuses unknown and empty lists with 400 invalid_query', async () => {
      expect(expectProblem(await get(admin, `/employees/${reports[0]}?fields=salary`), 400, 'invalid_query').errors).toEqual([
        { field: 'fields', message: 'names an unknown field: salary' },
      ]);
      expectProblem(await get(admin, `/employees/${reports[0]}?fields=`), 400, 'invalid_query');
      expectProblem(await get(admin, `/employees/${reports[0]}?fields=current_time`), 400, 'invalid_query');
    });

    it('ignores other query parameters, as before fields= existed', async () => {
      const res = await get(admin, `/employees/${reports[0]}?_=123&fields=first_name`);

      expect(res.body).toEqual({ id: String(reports[0]), first_name: 'Rita' });
    });
  });

  describe('GET /employees/me', () => {
    it('answers the named employee and account fields and id', async () => {
      const res = await get(manager, '/employees/me?fields=current_time,first_name,user_level,birthday,user_name');

      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['id', 'first_name', 'birthday', 'user_name', 'user_level', 'current_time']);
      expect(res.body).toMatchObject({
        id: String(manager.employeeId),
        first_name: 'Mia',
        birthday: '1980-05-05',
        user_name: manager.username,
        user_level: 'Manager',
      });
      expect(res.body.current_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    });

    it("answers an admin's own record and account level", async () => {
      const res = await get(admin, '/employees/me?fields=user_level,employee_id');

      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['id', 'employee_id', 'user_level']);
      expect(res.body).toMatchObject({ id: String(admin.employeeId), user_level: 'Admin' });
    });

    it('answers an account field alone', async () => {
      const res = await get(employee, '/employees/me?fields=user_email,can_login');

      expect(res.body).toEqual({ id: String(employee.employeeId), user_email: null, can_login: 'Yes' });
    });

    it('with every name answers exactly the whole /me', async () => {
      const whole = await get(employee, '/employees/me');
      const names = [...READ_FIELDS, 'user_name', 'user_email', 'user_level', 'can_login', 'current_time'];
      const res = await get(employee, `/employees/me?fields=${names.join(',')}`);

      expect(res.status).toBe(200);
      expect({ ...res.body, current_time: undefined }).toEqual({ ...whole.body, current_time: undefined });
      expect(Object.keys(res.body)).toEqual(Object.keys(whole.body));
    });

    it('refuses unknown and empty lists with 400 invalid_query', async () => {
      expect(expectProblem(await get(employee, '/employees/me?fields=password'), 400, 'invalid_query').errors).toEqual([
        { field: 'fields', message: 'names an unknown field: password' },
      ]);
      expectProblem(await get(employee, '/employees/me?fields='), 400, 'invalid_query');
    });
  });

  describe('the list read past Knex (the commonest pages, prepared)', () => {
    // The fast statement must read what the Knex query reads, for every shape it takes.
    it.each([
      ['id', 'ascend'],
      ['id', 'descend'],
      ['last_name', 'ascend'],
      ['first_name', 'descend'],
      ['employee_id', 'ascend'],
      ['updated_at', 'descend'],
      ['joined_date', 'ascend'],
    ])('reads the same rows as the Knex query sorted by %s %s, from the start and from a known first row', async (sortField, sortOrder) => {
      const caller: Caller = { userId: admin.userId, username: admin.username, role: 'admin', employeeId: admin.employeeId, tokenId: 'x' };
      for (const fields of [undefined, 'first_name,supervisor']) {
        const query = parseQuery(listEmployeesQuery, { limit: '3', sortField, sortOrder, ...(fields ? { fields } : {}) });
        const firstPage = await listRowsQuery(t.db, caller, query);
        const second = firstPage[1] as Record<string, unknown>;
        // joined_date may be null: a page start is only ever taken from the fields that never are.
        const starts =
          sortField === 'joined_date' ? [undefined] : [undefined, { value: second[sortField] as string | number, id: Number(second.id) }];
        for (const start of starts) {
          const statement = fastStatementOf(caller, query, start, dialectOf(t.db));
          expect(statement).toBeDefined();
          const fast = await preparedListRead(t.db, statement!.sql, statement!.values);
          const slow = await listRowsQuery(t.db, caller, query, start);
          expect(fast).toEqual(slow.map((row: Record<string, unknown>) => ({ ...row })));
          expect(fast.length).toBeGreaterThan(1);
        }
      }
    });

    it('reads dates as the Knex query does, and as one employee is read: a whole second with its milliseconds, MySQL zero dates', async () => {
      const caller: Caller = { userId: admin.userId, username: admin.username, role: 'admin', employeeId: admin.employeeId, tokenId: 'x' };
      const id = await createEmployee(t, { first_name: 'Zeno', last_name: `Dates${tag}`, birthday: '1990-03-04' });
      await storeAsImported(t, id, { created_at: '2026-01-02 03:04:05.000', joined_date: '0000-00-00', termination_date: '0000-00-00' });
      const query = parseQuery(listEmployeesQuery, { limit: '1' });
      const start = { value: id, id };

      const statement = fastStatementOf(caller, query, start, dialectOf(t.db));
      const fast = await preparedListRead(t.db, statement!.sql, statement!.values);
      const slow = await listRowsQuery(t.db, caller, query, start);

      expect(fast).toEqual(slow.map((row: Record<string, unknown>) => ({ ...row })));
      const read = { id, birthday: '1990-03-04', created_at: '2026-01-02 03:04:05.000', joined_date: '0000-00-00' };
      expect(fast[0]).toMatchObject(read);
      // The prepared, batched read of one employee (GET /employees/{id}) reads them alike.
      expect(await findEmployeeById(t.db, id)).toMatchObject(read);
    });

    it('is what an admin page 1 sends, under the list statement limit on MySQL/MariaDB', async () => {
      const sent: string[] = [];
      const listen = (query: { sql: string }) => sent.push(query.sql);
      t.db.on('query', listen);
      try {
        expect((await get(admin, '/employees?limit=2&sortField=last_name&fields=last_name')).status).toBe(200);
      } finally {
        t.db.off('query', listen);
      }
      const rows = sent.filter((sql) => sql.includes('order by `e`.`last_name` asc, `e`.`id` asc limit ?'));
      expect(rows).toHaveLength(1);
      // Only the named field's column, the id and the sort column; no joins.
      expect(rows[0]).toContain('`e`.`id`, `e`.`last_name` from `employees` as `e` order by');
      expect(rows[0]!.includes('max_statement_time')).toBe(t.dialect === 'mysql');
    });

    it('is not taken for filters, search, updated_since, deep pages without a known start, other roles or sorts without an index', () => {
      const caller: Caller = { userId: admin.userId, username: admin.username, role: 'admin', employeeId: admin.employeeId, tokenId: 'x' };
      const fast = (raw: Record<string, string>, who: Caller = caller) =>
        fastStatementOf(who, parseQuery(listEmployeesQuery, raw), undefined, dialectOf(t.db));

      expect(fast({})).toBeDefined();
      expect(fast({ filters: '' })).toBeDefined();
      expect(fast({ filters: JSON.stringify({ status: 'Active' }) })).toBeUndefined();
      expect(fast({ search: 'x' })).toBeUndefined();
      expect(fast({ updated_since: '2026-01-01' })).toBeUndefined();
      expect(fast({ page: '2' })).toBeUndefined();
      expect(fast({ sortField: 'birthday' })).toBeUndefined();
      expect(fast({}, { ...caller, role: 'manager' })).toBeUndefined();
    });
  });
});
