import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { createUser, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

describe.each(testDialects())('reference lists on %s', (dialect) => {
  const t = useTestApp(dialect);
  const user = useFixture(() => createUser(t, 'employee'));

  const get = (path: string) => request(t.app).get(t.api(path)).auth(user.token, { type: 'bearer' });

  it('lists all ISO 3166-1 countries with their codes', async () => {
    const res = await get('/countries');

    expect(res.status).toBe(200);
    expect(res.body.total).toBe(249);
    expect(res.body.nextPage).toBeNull();
    expect(res.body.data).toHaveLength(249);
    expect(res.body.data).toContainEqual({ code: 'DE', name: 'Germany', iso3: 'DEU', numeric_code: '276' });
  });

  it('pages with limit and page, nextPage null on the last page', async () => {
    const first = await get('/countries?limit=100');
    const last = await get('/countries?limit=100&page=3');

    expect(first.body).toMatchObject({ total: 249, nextPage: 2 });
    expect(first.body.data).toHaveLength(100);
    expect(last.body).toMatchObject({ total: 249, nextPage: null });
    expect(last.body.data).toHaveLength(49);
  });

  it('lists the seeded nationalities and employment statuses', async () => {
    const nationalities = await get('/nationalities');
    const statuses = await get('/employment-statuses');

    expect(nationalities.body.total).toBeGreaterThan(150);
    expect(nationalities.body.data).toContainEqual({ id: expect.stringMatching(/^\d+$/), name: 'Canadian' });
    expect(statuses.body.data.map((s: { name: string }) => s.name)).toEqual(
      expect.arrayContaining(['Full Time Permanent', 'Part Time Contract']),
    );
  });

  it('filters provinces by country, answering each with its country reference', async () => {
    const res = await get('/provinces?country=ca');

    expect(res.body.total).toBe(13);
    expect(res.body.data).toContainEqual({
      id: expect.stringMatching(/^\d+$/),
      code: 'ON',
      name: 'Ontario',
      country: { type: 'Country', code: 'CA', display: 'Canada' },
    });
  });

  it('answers departments, job titles and pay grades with their own fields', async () => {
    const name = unique('Dept ');
    const [parent] = await t.db('departments').insert({ name: `${name} parent` });
    const [child] = await t.db('departments').insert({ name, parent_id: Number(parent) });
    await t.db('pay_grades').insert({ name: unique('Grade '), currency: 'EUR', min_salary: 1000.5, max_salary: 2000 });
    await t.db('job_titles').insert({ name: unique('Title '), code: 'T1' });

    const departments = await get('/departments');
    const payGrades = await get('/pay-grades');
    const jobTitles = await get('/job-titles');

    expect(departments.body.data).toContainEqual({
      id: String(child),
      name,
      description: null,
      parent: { type: 'Department', id: String(parent), display: `${name} parent` },
    });
    expect(payGrades.body.data).toContainEqual(expect.objectContaining({ currency: 'EUR', min_salary: '1000.50', max_salary: '2000.00' }));
    expect(jobTitles.body.data).toContainEqual(expect.objectContaining({ code: 'T1', description: null }));
  });

  it('reads one row by id, or a country by code', async () => {
    const canadian = await t.db('nationalities').where({ name: 'Canadian' }).first('id');

    expect((await get(`/nationalities/${canadian.id}`)).body).toEqual({ id: String(canadian.id), name: 'Canadian' });
    expect((await get('/countries/fr')).body).toEqual({ code: 'FR', name: 'France', iso3: 'FRA', numeric_code: '250' });
  });

  it.each(['/nationalities/999999', '/nationalities/abc', '/countries/ZZ', '/countries/usa'])('answers 404 for %s', async (path) => {
    expectProblem(await get(path), 404, 'not_found');
  });

  it.each([
    ['/countries?limit=0', 'limit'],
    ['/countries?limit=501', 'limit'],
    ['/countries?page=0', 'page'],
    ['/countries?page=x', 'page'],
    ['/countries?sort=name', 'sort'],
    ['/countries?limit=1&limit=2', 'limit'],
    ['/nationalities?country=US', 'country'],
  ])('answers 400 naming the parameter for %s', async (path, parameter) => {
    const body = expectProblem(await get(path), 400, 'invalid_query');

    expect(body.errors.map((error: { field: string }) => error.field)).toEqual([parameter]);
  });

  it('answers 405 for writes to the seeded countries', async () => {
    const res = await request(t.app).post(t.api('/countries')).auth(user.token, { type: 'bearer' }).send({ code: 'XK' });

    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, HEAD');
  });
});
