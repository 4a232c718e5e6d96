import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { createUser, type TestUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { startTestApp, type TestApp } from '../helpers/test-app';

describe.each(testDialects())('error responses on %s', (dialect) => {
  let t: TestApp;
  let user: TestUser;
  beforeAll(async () => {
    t = await startTestApp(dialect);
    user = await createUser(t, 'admin');
  });
  afterAll(() => t.close());

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

  it('gives every response an X-Request-Id equal to the problem request_id', async () => {
    const res = await request(t.app).get(t.api('/employees/me')).set('X-Request-Id', 'trace-me-1');

    expect(expectProblem(res, 401, 'unauthorized').request_id).toBe('trace-me-1');
  });
});
