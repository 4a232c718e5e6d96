import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser, storeAsImported, type TestUser, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useTestApp } from '../helpers/test-app';

describe.each(testDialects())('GET /employees on %s', (dialect) => {
  const t = useTestApp(dialect);
  let admin: TestUser;
  let department: number;
  let otherDepartment: number;
  let team: number[];
  const tag = unique('Zz');

  beforeAll(async () => {
    admin = await createUser(t, 'admin');
    [department] = (await t.db('departments').insert({ name: unique('List dept ') })).map(Number) as [number];
    [otherDepartment] = (await t.db('departments').insert({ name: unique('Other dept ') })).map(Number) as [number];
    team = [];
    const people = [
      ['Alice', 'Anders', '2020-01-01', 'US'],
      ['Bob', 'Brown', '2021-06-15', 'CA'],
      ['Carol', 'Clark', '2019-03-10', 'US'],
      ['Dave', 'Davis', '2022-11-30', 'GB'],
      ['Eve', 'Evans', '2018-07-04', 'US'],
    ] as const;
    for (const [first, last, joined, country] of people) {
      team.push(
        await createEmployee(t, {
          first_name: first,
          last_name: `${last}${tag}`,
          joined_date: joined,
          country_code: country,
          department_id: department,
          work_email: `${first.toLowerCase()}.${tag.toLowerCase()}@example.com`,
          nic_num: `SECRET-${first}`,
        }),
      );
    }
    await createEmployee(t, {
      first_name: 'Frank',
      last_name: `Fisher${tag}`,
      department_id: otherDepartment,
      status: 'Terminated',
      termination_date: '2024-01-01',
    });
  });

  const list = (query: string) =>
    request(t.app)
      .get(t.api(`/employees${query}`))
      .auth(admin.token, { type: 'bearer' });
  const names = (res: request.Response) => (res.body.data as Array<{ first_name: string }>).map((employee) => employee.first_name);
  const inDepartment = () => encodeURIComponent(JSON.stringify({ department: String(department) }));

  it('answers {data, total, nextPage} with 50 per page by default, sorted by id', async () => {
    const res = await list('');

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: expect.any(Array), total: expect.any(Number), nextPage: null });
    const ids = (res.body.data as Array<{ id: string }>).map((employee) => Number(employee.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(res.body.total).toBe(Number((await t.db('employees').count({ n: '*' }).first())?.n));
  });

  it('pages with limit and page; nextPage is null on the last page', async () => {
    const first = await list(`?filters=${inDepartment()}&limit=2`);
    const second = await list(`?filters=${inDepartment()}&limit=2&page=2`);
    const last = await list(`?filters=${inDepartment()}&limit=2&page=3`);
    const beyond = await list(`?filters=${inDepartment()}&limit=2&page=4`);

    expect(first.body).toMatchObject({ total: 5, nextPage: 2 });
    expect(names(first)).toEqual(['Alice', 'Bob']);
    expect(names(second)).toEqual(['Carol', 'Dave']);
    expect(second.body.nextPage).toBe(3);
    expect(names(last)).toEqual(['Eve']);
    expect(last.body.nextPage).toBeNull();
    expect(beyond.body).toEqual({ data: [], total: 5, nextPage: null });
  });

  it('pages through the same employees in either id order, whether a page is read from its start or by position', async () => {
    const pages = async (order: string) => {
      const seen: string[] = [];
      for (let page = 1; page <= 3; page++)
        seen.push(...names(await list(`?filters=${inDepartment()}&limit=2&page=${page}&sortOrder=${order}`)));
      return seen;
    };
    const ascending = await pages('ascend');
    t.clock.advance(2001); // the page starts learnt above are forgotten: pages 2 and 3 by position
    const descending = await pages('descend');
    const descendingAgain = await pages('descend'); // pages 2 and 3 from where they started

    expect(ascending).toEqual(['Alice', 'Bob', 'Carol', 'Dave', 'Eve']);
    expect(descending).toEqual(['Eve', 'Dave', 'Carol', 'Bob', 'Alice']);
    expect(descendingAgain).toEqual(descending);
  });

  it('pages in name order through ties on the name, from remembered starts and by position alike', async () => {
    const dept = (await t.db('departments').insert({ name: unique('Ties dept ') })).map(Number)[0];
    for (const [first, last] of [
      ['T1', 'Same'],
      ['T2', 'Other'],
      ['T3', 'Same'],
      ['T4', 'Same'],
      ['T5', 'Other'],
    ]) {
      await createEmployee(t, { first_name: first, last_name: last, department_id: dept });
    }
    const filters = encodeURIComponent(JSON.stringify({ department: dept }));
    const pages = async (order: string) => {
      const seen: string[] = [];
      for (let page = 1; page <= 3; page++)
        seen.push(...names(await list(`?filters=${filters}&sortField=last_name&sortOrder=${order}&limit=2&page=${page}`)));
      return seen;
    };

    const byPosition = await pages('ascend'); // pages 2 and 3 are read by position the first time
    const fromStarts = await pages('ascend'); // and from their remembered first rows the second
    const descending = [await pages('descend'), await pages('descend')];

    expect(byPosition).toEqual(['T2', 'T5', 'T1', 'T3', 'T4']);
    expect(fromStarts).toEqual(byPosition);
    expect(descending).toEqual([
      ['T4', 'T3', 'T1', 'T5', 'T2'],
      ['T4', 'T3', 'T1', 'T5', 'T2'],
    ]);
  });

  it('writes any text stored in a field as the same JSON string, in a list and alone', async () => {
    const awkward = 'Quote " backslash \\ tab \t nul \u0000 line-separator \u2028 emoji 😀 é';
    const id = await createEmployee(t, { first_name: 'Esc', last_name: `Awkward${tag}`, address1: awkward, work_station_id: '</script>' });

    const one = await request(t.app)
      .get(t.api(`/employees/${id}`))
      .auth(admin.token, { type: 'bearer' });
    const page = await list(`?search=${encodeURIComponent(`Awkward${tag}`)}`);

    expect(one.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(page.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(one.body).toMatchObject({ id: String(id), address1: awkward, work_station_id: '</script>' });
    expect(page.body).toEqual({ data: [one.body], total: 1, nextPage: null });
  });

  it('sorts by an allowed field in either order, ties broken by id', async () => {
    const byJoined = await list(`?filters=${inDepartment()}&sortField=joined_date&sortOrder=ascend`);
    const byLastDesc = await list(`?filters=${inDepartment()}&sortField=last_name&sortOrder=descend`);

    expect(names(byJoined)).toEqual(['Eve', 'Carol', 'Alice', 'Bob', 'Dave']);
    expect(names(byLastDesc)).toEqual(['Eve', 'Dave', 'Carol', 'Bob', 'Alice']);
  });

  it('searches names, employee_id and work e-mail, every word matching, case-insensitively', async () => {
    expect(names(await list(`?search=carol`))).toEqual(['Carol']);
    expect(names(await list(`?search=${encodeURIComponent(`bob brown${tag}`)}`))).toEqual(['Bob']);
    expect(names(await list(`?search=${encodeURIComponent(`dave.${tag.toLowerCase()}@example`)}`))).toEqual(['Dave']);
    const code = (await t.db('employees').where({ id: team[0] }).first('employee_id')).employee_id as string;
    expect(names(await list(`?search=${encodeURIComponent(code)}`))).toEqual(['Alice']);
  });

  it("searches an admin's list in the identity fields IceHrm searches too: other_id, nic_num, driving_license", async () => {
    await t
      .db('employees')
      .where({ id: team[1] })
      .update({ other_id: `OTHER-${tag}`, driving_license: `DL-${tag}` });

    expect(names(await list('?search=SECRET-Alice'))).toEqual(['Alice']);
    expect(names(await list(`?search=${encodeURIComponent(`other-${tag}`)}`))).toEqual(['Bob']);
    expect(names(await list(`?search=${encodeURIComponent(`DL-${tag} brown`)}`))).toEqual(['Bob']);
  });

  it('treats % and _ in a search as plain characters', async () => {
    expect((await list('?search=%25')).body.total).toBe(0);
    expect((await list('?search=_')).body.total).toBe(0);
  });

  it('filters by allowed fields, a value or a list of values', async () => {
    const usInDepartment = encodeURIComponent(JSON.stringify({ department: department, country: ['us'] }));
    const twoDepartments = encodeURIComponent(JSON.stringify({ department: [String(department), String(otherDepartment)] }));
    const terminated = encodeURIComponent(JSON.stringify({ status: 'Terminated', department: String(otherDepartment) }));

    expect(names(await list(`?filters=${usInDepartment}`))).toEqual(['Alice', 'Carol', 'Eve']);
    expect((await list(`?filters=${twoDepartments}`)).body.total).toBe(6);
    expect(names(await list(`?filters=${terminated}`))).toEqual(['Frank']);
  });

  it('returns only records changed since updated_since', async () => {
    const later = new Date(t.clock.now().getTime() + 60_000);
    t.clock.advance(120_000);
    await request(t.app)
      .patch(t.api(`/employees/${team[1]}`))
      .auth(admin.token, { type: 'bearer' })
      .send({ work_phone: '+1 555 0000' });

    const res = await list(`?filters=${inDepartment()}&updated_since=${encodeURIComponent(later.toISOString())}`);

    expect(names(res)).toEqual(['Bob']);
  });

  it('reuses a total for 2 seconds, but knows the next page exactly and recounts after its own writes', async () => {
    const dept = (await t.db('departments').insert({ name: unique('Count dept ') })).map(Number)[0];
    const query = `?limit=1&filters=${encodeURIComponent(JSON.stringify({ department: dept }))}`;
    await createEmployee(t, { department_id: dept });
    expect((await list(query)).body).toMatchObject({ total: 1, nextPage: null });

    await createEmployee(t, { department_id: dept }); // by another process, as far as the app knows
    const cached = await list(query);
    t.clock.advance(2001);
    const recounted = await list(query);
    await request(t.app)
      .post(t.api('/employees'))
      .auth(admin.token, { type: 'bearer' })
      .send({ employee_id: unique('CNT'), first_name: 'C', last_name: 'N', department: dept });
    const afterOwnWrite = await list(query);

    expect(cached.body).toMatchObject({ total: 1, nextPage: 2 });
    expect(recounted.body).toMatchObject({ total: 2, nextPage: 2 });
    expect(afterOwnWrite.body).toMatchObject({ total: 3, nextPage: 2 });
  });

  it.each([
    ['id', 'ascend'],
    ['last_name', 'descend'],
    ['first_name', 'ascend'],
    ['employee_id', 'descend'],
  ])('pages through every row once, in order, by %s %s (later pages start where the previous ended)', async (sortField, sortOrder) => {
    const seen: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const res = await list(`?filters=${inDepartment()}&limit=2&page=${page}&sortField=${sortField}&sortOrder=${sortOrder}`);
      seen.push(...names(res));
      if (res.body.nextPage === null) break;
    }
    const again = await list(`?filters=${inDepartment()}&limit=2&page=2&sortField=${sortField}&sortOrder=${sortOrder}`);

    const byOffset = await t
      .db('employees')
      .where({ department_id: department })
      .orderBy([
        { column: sortField, order: sortOrder === 'ascend' ? 'asc' : 'desc' },
        { column: 'id', order: sortOrder === 'ascend' ? 'asc' : 'desc' },
      ])
      .select('first_name');
    expect(seen).toEqual(byOffset.map((row) => row.first_name));
    expect(names(again)).toEqual(seen.slice(2, 4));
  });

  it('serves a page again from where it started for 2 seconds, then by position', async () => {
    const dept = (await t.db('departments').insert({ name: unique('Anchor dept ') })).map(Number)[0];
    for (const first of ['A1', 'A2', 'A3', 'A4']) await createEmployee(t, { first_name: first, department_id: dept });
    const query = `?limit=2&page=2&filters=${encodeURIComponent(JSON.stringify({ department: dept }))}`;
    expect(names(await list(query))).toEqual(['A3', 'A4']);

    await t.db('employees').where({ first_name: 'A1', department_id: dept }).delete(); // by another process
    const withinTtl = await list(query);
    t.clock.advance(2001);
    const afterTtl = await list(query);

    expect(names(withinTtl)).toEqual(['A3', 'A4']);
    expect(names(afterTtl)).toEqual(['A4']);
  });

  it.each([
    ['limit=ten', 'limit'],
    ['page=1.5', 'page'],
    ['sortField=salary', 'sortField'],
    ['sortField=id%3B%20DROP%20TABLE%20employees', 'sortField'],
    ['sortOrder=up', 'sortOrder'],
    ['updated_since=yesterday', 'updated_since'],
    ['updated_since=2026-01-01T10:00:00', 'updated_since'],
    ['search=', 'search'],
    ['filters=not-json', 'filters'],
    ['filters=%5B1%5D', 'filters'],
    [`filters=${encodeURIComponent('{"salary": 1}')}`, 'filters.salary'],
    [`filters=${encodeURIComponent('{"department": "1 OR 1=1"}')}`, 'filters.department'],
    [`filters=${encodeURIComponent('{"status": "Retired"}')}`, 'filters.status'],
    [`filters=${encodeURIComponent('{"country": "USA"}')}`, 'filters.country'],
    [`filters=${encodeURIComponent('{"department": []}')}`, 'filters.department'],
    ['limit=0x10', 'limit'],
    ['limit=1e1', 'limit'],
    ['limit=%205', 'limit'],
    ['limit=5.0', 'limit'],
    ['page=1e3', 'page'],
    ['updated_since=2026-02-31', 'updated_since'],
    ['updated_since=2026-02-31T00:00:00Z', 'updated_since'],
    ['updated_since=2026-01-01T24:00:00Z', 'updated_since'],
    [`search=${encodeURIComponent('a b c d e f g h i j k')}`, 'search'],
    ['order=desc', 'order'],
    ['limit=1&limit=2', 'limit'],
    ['limit=-1.5', 'limit'],
    ['limit=-', 'limit'],
    ['page=-x', 'page'],
    ['page=1000001', 'page'],
    ['sortField=nationality', 'sortField'],
    ['sortField=country', 'sortField'],
    ['sortField=indirect_supervisors', 'sortField'],
    ['sortField=restricted_fields', 'sortField'],
    ['sortOrder=ascending', 'sortOrder'],
    ['sortOrder=', 'sortOrder'],
    ['filters=NULL', 'filters'],
    [`filters=${encodeURIComponent('{"restricted_fields": "x"}')}`, 'filters.restricted_fields'],
    [`filters=${encodeURIComponent('{"gender": 5}')}`, 'filters.gender'],
    [`filters=${encodeURIComponent('{"birthday": "1990-02-30"}')}`, 'filters.birthday'],
    [`filters=${encodeURIComponent('{"marital_status": "Engaged"}')}`, 'filters.marital_status'],
    [`filters=${encodeURIComponent('{"created_at": "2026-01-01"}')}`, 'filters.created_at'],
    [`filters=${encodeURIComponent('{"supervisor": "NULL"}')}`, 'filters.supervisor'],
    [`filters=${encodeURIComponent('{"indirect_supervisors": "x"}')}`, 'filters.indirect_supervisors'],
    [`filters=${encodeURIComponent('{"first_name": null}')}`, 'filters.first_name'],
    ['_=1&_=2', '_'],
  ])('answers 400 naming the parameter for ?%s', async (query, parameter) => {
    const body = expectProblem(await list(`?${query}`), 400, 'invalid_query');

    expect(body.errors.map((error: { field: string }) => error.field)).toEqual([parameter]);
  });

  it('keeps SQL in search and filters as data', async () => {
    const before = Number((await t.db('employees').count({ n: '*' }).first())?.n);

    const injected = await list(`?search=${encodeURIComponent("' OR '1'='1")}`);
    const union = await list(`?search=${encodeURIComponent("x%' UNION SELECT username FROM users --")}`);
    const filtered = await list(`?filters=${encodeURIComponent(JSON.stringify({ country: "U'" }))}`);

    expect(injected.body).toEqual({ data: [], total: 0, nextPage: null });
    expect(union.body.total).toBe(0);
    expectProblem(filtered, 400, 'invalid_query');
    expect(Number((await t.db('employees').count({ n: '*' }).first())?.n)).toBe(before);
  });

  describe("IceHrm's list parameters", () => {
    const inDept = (dept: number, more: object = {}) => encodeURIComponent(JSON.stringify({ department: dept, ...more }));
    const ids = (res: request.Response) => (res.body.data as Array<{ id: string }>).map((employee) => Number(employee.id));

    it('reads limit 0 or negative as the default, clamps a limit above 200, and reads page 0 or negative as page 1', async () => {
      const dept = (await t.db('departments').insert({ name: unique('Many dept ') })).map(Number)[0]!;
      for (let i = 0; i < 201; i++) await createEmployee(t, { department_id: dept });
      const page = (query: string) => list(`?filters=${inDept(dept)}&${query}`);

      const zero = await page('limit=0');
      const negative = await page('limit=-5');
      const huge = await page('limit=500');
      const enormous = await page('limit=99999999999999999999');
      const pageZero = await page('limit=3&page=0');
      const pageNegative = await page('limit=3&page=-2');
      const first = await page('limit=3');

      for (const res of [zero, negative]) expect(res.body).toMatchObject({ total: 201, nextPage: 2 });
      expect(zero.body.data).toHaveLength(50);
      expect(negative.body.data).toHaveLength(50);
      for (const res of [huge, enormous]) {
        expect(res.status).toBe(200);
        expect(res.body.data).toHaveLength(200);
        expect(res.body.nextPage).toBe(2);
      }
      expect(pageZero.body).toEqual(first.body);
      expect(pageNegative.body).toEqual(first.body);
      expect(first.body.nextPage).toBe(2);
    });

    it('takes sortOrder as ASC, asc, DESC, desc in any case, as well as ascend and descend', async () => {
      const order = async (sortOrder: string) =>
        names(await list(`?filters=${inDepartment()}&sortField=joined_date&sortOrder=${sortOrder}`));
      const ascending = ['Eve', 'Carol', 'Alice', 'Bob', 'Dave'];

      for (const sortOrder of ['ASC', 'asc', 'Ascend', 'ascend']) expect(await order(sortOrder)).toEqual(ascending);
      for (const sortOrder of ['DESC', 'desc', 'DeSc', 'descend']) expect(await order(sortOrder)).toEqual([...ascending].reverse());
    });

    it('reads an empty filters and filters=null as no filter, and ignores _', async () => {
      const all = await list('?limit=200');

      for (const query of [
        '?limit=200&filters=',
        '?limit=200&filters=null',
        '?limit=200&filters=%20',
        '?limit=200&_=1732186512345',
        '?_=&limit=200&filters=null',
      ]) {
        const res = await list(query);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(all.body);
      }
    });

    it('filters on any readable field: text case-insensitively, enums, dates, codes and ids, a value or a list', async () => {
      const dept = (await t.db('departments').insert({ name: unique('Filter dept ') })).map(Number)[0]!;
      const ada = await createEmployee(t, {
        department_id: dept,
        first_name: 'Ada',
        gender: 'Female',
        marital_status: 'Single',
        city: 'Bern',
        birthday: '1990-05-01',
        timezone: 'Europe/Zurich',
      });
      const max = await createEmployee(t, {
        department_id: dept,
        first_name: 'Max',
        gender: 'Male',
        marital_status: 'Married',
        city: 'bern',
        birthday: '1985-01-31',
      });
      const zoe = await createEmployee(t, {
        department_id: dept,
        first_name: 'Zoe',
        gender: 'Female',
        marital_status: 'Married',
        joined_date: '2024-02-29',
      });
      const code = (await t.db('employees').where({ id: max }).first('employee_id')).employee_id as string;
      const filtered = async (filters: object) => ids(await list(`?filters=${inDept(dept, filters)}`));

      expect(await filtered({ gender: 'Female' })).toEqual([ada, zoe]);
      expect(await filtered({ marital_status: ['Married'] })).toEqual([max, zoe]);
      expect(await filtered({ first_name: 'ADA' })).toEqual([ada]);
      expect(await filtered({ city: 'BERN' })).toEqual([ada, max]);
      expect(await filtered({ employee_id: code.toLowerCase() })).toEqual([max]);
      expect(await filtered({ birthday: ['1985-01-31', '1990-05-01'] })).toEqual([ada, max]);
      expect(await filtered({ joined_date: '2024-02-29', gender: 'Female' })).toEqual([zoe]);
      expect(await filtered({ timezone: 'Europe/Zurich' })).toEqual([ada]);
      expect(await filtered({ id: [String(ada), zoe] })).toEqual([ada, zoe]);
      expect(await filtered({ status: 'Active', gender: 'Other' })).toEqual([]);
    });

    it('filters created_at and updated_at by the instant as read, and indirect_supervisors by an id the list holds', async () => {
      const dept = (await t.db('departments').insert({ name: unique('Instant dept ') })).map(Number)[0]!;
      const boss = await createEmployee(t, { department_id: dept });
      const listed = await createEmployee(t, { department_id: dept, indirect_supervisors: JSON.stringify([String(boss), '3']) });
      t.clock.advance(1500);
      const imported = await createEmployee(t, { department_id: dept });
      await storeAsImported(t, imported, { indirect_supervisors: `[13,${boss}]` });
      const read = (
        await request(t.app)
          .get(t.api(`/employees/${imported}`))
          .auth(admin.token, { type: 'bearer' })
      ).body;
      const filtered = async (filters: object) => ids(await list(`?filters=${inDept(dept, filters)}`));

      expect(await filtered({ created_at: read.created_at })).toEqual([imported]);
      expect(await filtered({ updated_at: [read.updated_at] })).toEqual([imported]);
      expect(await filtered({ indirect_supervisors: String(boss) })).toEqual([listed, imported]);
      expect(await filtered({ indirect_supervisors: 3 })).toEqual([listed]);
      expect(await filtered({ indirect_supervisors: 1 })).toEqual([]);
    });

    it('sorts by any scalar field, unindexed ones too, and pages through them by position', async () => {
      const dept = (await t.db('departments').insert({ name: unique('Sort dept ') })).map(Number)[0]!;
      const cities = ['Oslo', null, 'Athens', 'Lima', 'Cairo'];
      const people = [];
      for (const city of cities)
        people.push(await createEmployee(t, { department_id: dept, city, birthday: city === null ? null : '1990-01-01' }));
      const sorted = async (query: string) => {
        const seen: number[] = [];
        for (let page = 1; page <= 3; page++) seen.push(...ids(await list(`?filters=${inDept(dept)}&limit=2&page=${page}&${query}`)));
        return seen;
      };
      const [oslo, none, athens, lima, cairo] = people;

      // NULL first ascending, on both databases.
      expect(await sorted('sortField=city&sortOrder=ASC')).toEqual([none, athens, cairo, lima, oslo]);
      expect(await sorted('sortField=city&sortOrder=desc')).toEqual([oslo, lima, cairo, athens, none]);
      // Ties are broken by id, in the same direction.
      expect(await sorted('sortField=birthday')).toEqual([none, oslo, athens, lima, cairo]);
      expect(await sorted('sortField=created_at&sortOrder=descend')).toEqual([...people].reverse());
    });
  });
});
