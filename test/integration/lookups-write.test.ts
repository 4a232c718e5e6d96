import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser, type TestUser, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

describe.each(testDialects())('changing reference tables on %s', (dialect) => {
  const t = useTestApp(dialect);
  const admin = useFixture(() => createUser(t, 'admin'));
  const manager = useFixture(() => createUser(t, 'manager'));

  const as = (user: TestUser) => ({
    post: (path: string, body: object) => request(t.app).post(t.api(path)).auth(user.token, { type: 'bearer' }).send(body),
    put: (path: string, body: object) => request(t.app).put(t.api(path)).auth(user.token, { type: 'bearer' }).send(body),
    delete: (path: string) => request(t.app).delete(t.api(path)).auth(user.token, { type: 'bearer' }),
    get: (path: string) => request(t.app).get(t.api(path)).auth(user.token, { type: 'bearer' }),
  });

  it.each([
    ['/departments', { name: 'Research', description: 'R&D' }, { name: 'Research', description: 'R&D', parent: null }],
    ['/job-titles', { name: 'Data Engineer', code: 'DE1' }, { name: 'Data Engineer', code: 'DE1', description: null }],
    [
      '/pay-grades',
      { name: 'Grade X', currency: 'eur', min_salary: 1000, max_salary: '2500.50' },
      { name: 'Grade X', currency: 'EUR', min_salary: '1000.00', max_salary: '2500.50' },
    ],
    ['/employment-statuses', { name: 'Freelance' }, { name: 'Freelance', description: null }],
    [
      '/provinces',
      { name: 'Bavaria', code: 'BY', country: 'de' },
      { name: 'Bavaria', code: 'BY', country: { type: 'Country', code: 'DE', display: 'Germany' } },
    ],
  ])('lets an admin create, rename and delete %s', async (path, body, shape) => {
    const suffix = unique(' ');
    const created = await as(admin).post(path, { ...body, name: body.name + suffix });

    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^\d+$/), ...shape, name: shape.name + suffix });
    expect(created.headers.location).toBe(`${t.api(path)}/${created.body.id}`);

    const renamed = await as(admin).put(`${path}/${created.body.id}`, { name: `Renamed${suffix}` });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...created.body, name: `Renamed${suffix}` });
    expect((await as(admin).get(`${path}/${created.body.id}`)).body.name).toBe(`Renamed${suffix}`);

    const deleted = await as(admin).delete(`${path}/${created.body.id}`);
    expect(deleted.body).toEqual({ id: created.body.id });
    expectProblem(await as(admin).get(`${path}/${created.body.id}`), 404, 'not_found');
  });

  it('shows a renamed department in the employees that use it', async () => {
    const department = await as(admin).post('/departments', { name: unique('Ops ') });
    const employee = await createEmployee(t, { department_id: Number(department.body.id) });
    await as(admin).get(`/employees/${employee}`);
    const newName = unique('Operations ');

    await as(admin).put(`/departments/${department.body.id}`, { name: newName });
    const res = await as(admin).get(`/employees/${employee}`);

    expect(res.body.department).toEqual({ type: 'Department', id: department.body.id, display: newName });
  });

  it.each([
    ['/job-titles', 'job_titles', 'job_title_id'],
    ['/departments', 'departments', 'department_id'],
    ['/pay-grades', 'pay_grades', 'pay_grade_id'],
    ['/employment-statuses', 'employment_statuses', 'employment_status_id'],
  ])('answers 409 in_use when deleting a row of %s employees still use, and deletes nothing', async (path, table, column) => {
    const row = await as(admin).post(path, { name: unique('Used ') });
    await createEmployee(t, { [column]: Number(row.body.id) });

    const res = await as(admin).delete(`${path}/${row.body.id}`);

    expectProblem(res, 409, 'in_use');
    expect(
      await t
        .db(table)
        .where({ id: Number(row.body.id) })
        .first('id'),
    ).toBeDefined();
  });

  it.each(['/employment-statuses', '/departments', '/job-titles'])(
    'answers 409 duplicate for a name of %s already in use, in any case, and writes nothing',
    async (path) => {
      const name = unique('Same ');
      await as(admin).post(path, { name });

      const res = await as(admin).post(path, { name: name.toUpperCase() });

      expect(expectProblem(res, 409, 'duplicate').errors).toEqual([{ field: 'name', message: 'is already in use' }]);
      const list = await as(admin).get(`${path}?limit=100&page=1`);
      expect(list.body.data.filter((row: { name: string }) => row.name.toLowerCase() === name.toLowerCase())).toHaveLength(1);
    },
  );

  it("answers 409 duplicate when a department is renamed to another one's name", async () => {
    const taken = await as(admin).post('/departments', { name: unique('Taken ') });
    const other = await as(admin).post('/departments', { name: unique('Other ') });

    const res = await as(admin).put(`/departments/${other.body.id}`, { name: taken.body.name.toLowerCase() });

    expectProblem(res, 409, 'duplicate');
    expect((await as(admin).get(`/departments/${other.body.id}`)).body.name).toBe(other.body.name);
  });

  it('answers 422 for invalid rows, listing every field, and writes nothing', async () => {
    const count = Number((await t.db('pay_grades').count({ n: '*' }).first())?.n);

    const res = await as(admin).post('/pay-grades', { currency: 'euro', min_salary: -5, max_salary: 'lots', bonus: 1 });

    expect(expectProblem(res, 422, 'validation_failed').errors).toEqual([
      { field: 'currency', message: 'must be a three-letter ISO 4217 currency code' },
      { field: 'min_salary', message: 'must be an amount such as 45000 or "45000.00"' },
      { field: 'max_salary', message: 'must be an amount such as 45000 or "45000.00"' },
      { field: 'bonus', message: 'is not a known field' },
      { field: 'name', message: 'is required' },
    ]);
    expect(Number((await t.db('pay_grades').count({ n: '*' }).first())?.n)).toBe(count);
  });

  it('refuses a salary range upside down, also against the stored bound', async () => {
    const grade = await as(admin).post('/pay-grades', { name: unique('Range '), min_salary: 5000 });

    const res = await as(admin).put(`/pay-grades/${grade.body.id}`, { max_salary: 4000 });

    expect(expectProblem(res, 422, 'validation_failed').errors).toEqual([{ field: 'max_salary', message: 'must not be below min_salary' }]);
  });

  it('refuses a department as its own ancestor', async () => {
    const parent = await as(admin).post('/departments', { name: unique('Parent ') });
    const child = await as(admin).post('/departments', { name: unique('Child '), parent: parent.body.id });

    const self = await as(admin).put(`/departments/${parent.body.id}`, { parent: parent.body.id });
    const cycle = await as(admin).put(`/departments/${parent.body.id}`, { parent: { id: child.body.id } });
    const missing = await as(admin).post('/departments', { name: unique('Orphan '), parent: '999999' });

    const message = 'must not be the department itself or one of its sub-departments';
    expect(expectProblem(self, 422, 'validation_failed').errors).toEqual([{ field: 'parent', message }]);
    expect(expectProblem(cycle, 422, 'validation_failed').errors).toEqual([{ field: 'parent', message }]);
    expect(expectProblem(missing, 422, 'validation_failed').errors).toEqual([{ field: 'parent', message: 'does not exist' }]);
  });

  it('refuses a province without a country, on create and on update', async () => {
    const province = await as(admin).post('/provinces', { name: unique('Prov '), country: 'FR' });
    const before = await t.db('provinces').count({ n: '*' }).first();

    const created = await as(admin).post('/provinces', { name: unique('Prov '), country: null });
    const cleared = await as(admin).put(`/provinces/${province.body.id}`, { country: '' });

    expect(expectProblem(created, 422, 'validation_failed').errors).toEqual([
      { field: 'country', message: 'must be a two-letter ISO 3166-1 country code' },
    ]);
    expect(expectProblem(cleared, 422, 'validation_failed').errors).toEqual([
      { field: 'country', message: 'must be a two-letter ISO 3166-1 country code' },
    ]);
    expect(await t.db('provinces').count({ n: '*' }).first()).toEqual(before);
    expect((await as(admin).get(`/provinces/${province.body.id}`)).body.country.code).toBe('FR');
  });

  it('refuses an unknown country for a province, and moving a province employees live in', async () => {
    const province = await as(admin).post('/provinces', { name: unique('Prov '), country: 'FR' });
    await createEmployee(t, { country_code: 'FR', province_id: Number(province.body.id) });

    const unknown = await as(admin).post('/provinces', { name: unique('Prov '), country: 'ZZ' });
    const moved = await as(admin).put(`/provinces/${province.body.id}`, { country: 'ES' });

    expect(expectProblem(unknown, 422, 'validation_failed').errors).toEqual([
      { field: 'country', message: 'is not a known ISO 3166-1 country code' },
    ]);
    expect(expectProblem(moved, 422, 'validation_failed').errors).toEqual([
      { field: 'country', message: 'cannot change while employees live in this province' },
    ]);
  });

  it('answers 403 to anyone but an admin, and writes nothing', async () => {
    const department = await as(admin).post('/departments', { name: unique('Mine ') });

    expectProblem(await as(manager).post('/departments', { name: unique('Theirs ') }), 403, 'forbidden');
    expectProblem(await as(manager).put(`/departments/${department.body.id}`, { name: 'Hijacked' }), 403, 'forbidden');
    expectProblem(await as(manager).delete(`/departments/${department.body.id}`), 403, 'forbidden');
    expect((await as(admin).get(`/departments/${department.body.id}`)).body.name).toBe(department.body.name);
  });

  it('answers 404 for a missing row', async () => {
    expectProblem(await as(admin).put('/job-titles/999999', { name: 'X' }), 404, 'not_found');
    expectProblem(await as(admin).delete('/job-titles/999999'), 404, 'not_found');
  });

  it.each(['/countries', '/nationalities'])('keeps the seeded %s read-only: 405 with Allow', async (path) => {
    const created = await as(admin).post(path, { name: 'Atlantis' });
    const changed = await as(admin).put(`${path}/1`, { name: 'Atlantis' });

    expectProblem(created, 405, 'method_not_allowed');
    expect(created.headers.allow).toBe('GET, HEAD');
    expectProblem(changed, 405, 'method_not_allowed');
  });
});
