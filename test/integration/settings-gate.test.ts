import request from 'supertest';
import { systemClock } from '../../src/clock';
import { testDialects } from '../helpers/databases';
import { createUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { type TestApp, useTestApp } from '../helpers/test-app';

describe.each(testDialects())('the "Enable REST Api" gate on %s', (dialect) => {
  const t = useTestApp(dialect, { apiEnabled: false });
  afterEach(() => t.setApiEnabled(false));

  it('answers 403 api_disabled with how to enable it, for every path under the base', async () => {
    const admin = await createUser(t, 'admin');
    for (const path of ['/echo', '/employees/me', '/no-such-route']) {
      const res = await request(t.app).get(t.api(path)).auth(admin.token, { type: 'bearer' });

      const body = expectProblem(res, 403, 'api_disabled');
      expect(body.detail).toContain('hrm api enable');
      expect(res.headers['www-authenticate']).toBeUndefined();
    }
  });

  it('refuses before looking at the token: a garbage token also gets 403, not 401', async () => {
    const res = await request(t.app).get(t.api('/employees/me')).auth('not-a-token', { type: 'bearer' });

    expectProblem(res, 403, 'api_disabled');
  });

  it('refuses writes and writes nothing', async () => {
    const admin = await createUser(t, 'admin');
    const before = await t.db('employees').count({ n: '*' }).first();

    const res = await request(t.app)
      .post(t.api('/employees'))
      .auth(admin.token, { type: 'bearer' })
      .send({ employee_id: 'GATE1', first_name: 'A', last_name: 'B' });

    expectProblem(res, 403, 'api_disabled');
    expect(await t.db('employees').count({ n: '*' }).first()).toEqual(before);
  });

  it('leaves the health checks outside the gate', async () => {
    expect((await request(t.app).get('/healthz')).status).toBe(200);
    const ready = await request(t.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  it('opens once the setting is on', async () => {
    await t.setApiEnabled(true);

    const res = await request(t.app).get(t.api('/echo'));

    expect(res.status).toBe(200);
  });

  it('re-reads the setting after the cache TTL, so a change in the database is seen without a restart', async () => {
    await request(t.app).get(t.api('/echo')); // cache "disabled"
    await t.db('settings').where({ name: 'rest_api_enabled' }).update({ value: 'true' });

    const cached = await request(t.app).get(t.api('/echo'));
    t.clock.advance(1001);
    const refreshed = await request(t.app).get(t.api('/echo'));

    expect(cached.status).toBe(403);
    expect(refreshed.status).toBe(200);
  });
});

describe.each(testDialects())('the gate on %s with the real clock', (dialect) => {
  const t = useTestApp(dialect, { apiEnabled: false, clock: systemClock });

  it('sees a hand edit of the settings row within 2 seconds, and sees it turned off again', async () => {
    expect((await request(t.app).get(t.api('/echo'))).status).toBe(403);

    await t.db('settings').where({ name: 'rest_api_enabled' }).update({ value: '1' });
    const enabledAfter = await millisecondsUntilStatus(t, 200);
    await t.db('settings').where({ name: 'rest_api_enabled' }).update({ value: '0' });
    const disabledAfter = await millisecondsUntilStatus(t, 403);

    expect(enabledAfter).toBeLessThan(2000);
    expect(disabledAfter).toBeLessThan(2000);
  });
});

async function millisecondsUntilStatus(t: TestApp, status: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 5000) {
    if ((await request(t.app).get(t.api('/echo'))).status === status) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Infinity;
}
