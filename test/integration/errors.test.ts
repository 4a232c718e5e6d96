import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { createUser } from '../helpers/factories';
import { send } from '../helpers/http-client';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

describe.each(testDialects())('error responses on %s', (dialect) => {
  const t = useTestApp(dialect);
  const user = useFixture(() => createUser(t, 'admin'));

  it('answers 404 problem+json for an unknown path under the base', async () => {
    const res = await request(t.app).get(t.api('/no-such-thing')).auth(user.token, { type: 'bearer' });

    expectProblem(res, 404, 'not_found');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers 404 problem+json outside the base path, without needing a token', async () => {
    expectProblem(await request(t.app).get('/'), 404, 'not_found');
    expectProblem(await request(t.app).get('/app/apix/echo'), 404, 'not_found');
  });

  it('answers 405 with Allow for a known path and another method', async () => {
    const res = await request(t.app).delete(t.api('/employees/me')).auth(user.token, { type: 'bearer' });

    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, HEAD');
  });

  it('answers 500 with a generic message and no SQL, driver text or stack when a query fails', async () => {
    await t.db.schema.alterTable('job_titles', (table) => table.renameColumn('description', 'renamed_description'));
    try {
      const res = await request(t.app).get(t.api('/job-titles')).auth(user.token, { type: 'bearer' });

      const body = expectProblem(res, 500, 'internal_error');
      expect(body.detail).toMatch(/request id/);
      expect(res.text).not.toMatch(/description|column|job_titles/i);
    } finally {
      await t.db.schema.alterTable('job_titles', (table) => table.renameColumn('renamed_description', 'description'));
    }
  });

  describe('requests refused before routing', () => {
    let origin: string;
    beforeAll(async () => {
      await new Promise<void>((resolve) => t.app.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(t.app.address() as AddressInfo).port}`;
    });

    it('answers a path with broken percent-encoding with a 400 problem', async () => {
      const res = await send(origin, t.api('/employees/%E0%A4%A'), { headers: { Authorization: `Bearer ${user.token}` } });

      expectProblem(res, 400, 'bad_request');
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('answers a path segment longer than any id with a 414 problem', async () => {
      const res = await send(origin, t.api(`/employees/${'1'.repeat(200)}`), { headers: { Authorization: `Bearer ${user.token}` } });

      expectProblem(res, 414, 'uri_too_long');
    });

    it("answers request headers over Node's 16 kB limit with a 431 problem", async () => {
      const res = await send(origin, t.api('/employees'), {
        headers: { Authorization: `Bearer ${user.token}`, 'X-Padding': 'a'.repeat(20_000) },
      });

      expectProblem(res, 431, 'headers_too_large');
    });

    it('answers a method HTTP does not know with a 400 problem', async () => {
      const res = await send(origin, t.api('/employees'), { method: 'FOO', headers: { Authorization: `Bearer ${user.token}` } });

      expectProblem(res, 400, 'bad_request');
    });
  });

  it('refuses a JSON body nested deeper than 32 levels with 400, and writes nothing', async () => {
    const before = await t.db('departments').count({ n: '*' }).first();
    const deep = `{"name":"Deep","description":${'['.repeat(40)}${']'.repeat(40)}}`;

    const res = await request(t.app).post(t.api('/departments')).auth(user.token, { type: 'bearer' }).type('application/json').send(deep);

    expect(expectProblem(res, 400, 'malformed_json').detail).toBe('The request body nests deeper than 32 levels');
    expect(await t.db('departments').count({ n: '*' }).first()).toEqual(before);
  });

  it('reads brackets inside JSON strings as text, not as nesting', async () => {
    const name = `Brackets ${'['.repeat(40)}${process.pid}`;

    const res = await request(t.app).post(t.api('/departments')).auth(user.token, { type: 'bearer' }).send({ name });

    expect(res.status).toBe(201);
    expect(res.body.name).toBe(name);
  });

  it('gives every response an X-Request-Id equal to the problem request_id', async () => {
    const res = await request(t.app).get(t.api('/employees/me')).set('X-Request-Id', 'trace-me-1');

    expect(expectProblem(res, 401, 'unauthorized').request_id).toBe('trace-me-1');
  });
});
