import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { MISS_CACHE_MS } from '../../src/instances/directory';
import { startCloudTestApp, type CloudTestApp } from '../helpers/cloud-app';
import { testDialects } from '../helpers/databases';
import { expectProblem } from '../helpers/problem';

describe.each(testDialects())('cloud mode on %s', (dialect) => {
  let c: CloudTestApp;
  // alpha and beta have the API enabled, gamma does not.
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    c = await startCloudTestApp(dialect);
    tokens.alpha = await c.createInstance('alpha');
    tokens.beta = await c.createInstance('beta');
    tokens.gamma = await c.createInstance('gamma', { apiEnabled: false });
  });
  afterAll(() => c.close());

  const get = (instance: string, path: string, token?: string) => {
    const req = request(c.app).get(c.api(instance, path));
    return token === undefined ? req : req.auth(token, { type: 'bearer' });
  };
  const postEmployee = (instance: string, token: string, body: Record<string, unknown>) =>
    request(c.app).post(c.api(instance, '/employees')).auth(token, { type: 'bearer' }).send(body);

  it("serves each instance's own admin at /api/<instance>/employees/me", async () => {
    const alpha = await get('alpha', '/employees/me', tokens.alpha);
    const beta = await get('beta', '/employees/me', tokens.beta);

    expect(alpha.status).toBe(200);
    expect(alpha.headers['cache-control']).toBe('no-store');
    expect(alpha.body).toMatchObject({ employee_id: 'ADMIN', first_name: 'Admin', status: 'Active' });
    expect(beta.status).toBe(200);
    expect(beta.body).toMatchObject({ employee_id: 'ADMIN' });
  });

  it("keeps each instance's data apart: the same employee_id in two instances, a duplicate within one", async () => {
    const body = { employee_id: 'CLOUD1', first_name: 'Ada', last_name: 'Alpha' };

    const inAlpha = await postEmployee('alpha', tokens.alpha as string, body);
    const inBeta = await postEmployee('beta', tokens.beta as string, { ...body, last_name: 'Beta' });
    const againInAlpha = await postEmployee('alpha', tokens.alpha as string, body);

    expect(inAlpha.status).toBe(201);
    expect(inAlpha.headers.location).toBe(`/api/alpha/employees/${inAlpha.body.id}`);
    expect(inBeta.status).toBe(201);
    expectProblem(againInAlpha, 409, 'duplicate');
    const alphaDb = await c.control.openInstanceDb('alpha');
    const betaDb = await c.control.openInstanceDb('beta');
    const gammaDb = await c.control.openInstanceDb('gamma');
    expect(await alphaDb('employees').where({ employee_id: 'CLOUD1' }).select('last_name')).toEqual([{ last_name: 'Alpha' }]);
    expect(await betaDb('employees').where({ employee_id: 'CLOUD1' }).select('last_name')).toEqual([{ last_name: 'Beta' }]);
    expect(await gammaDb('employees').where({ employee_id: 'CLOUD1' }).select('last_name')).toEqual([]);
  });

  it('requires a token of the instance for /echo, and answers it with one', async () => {
    const withoutToken = await get('alpha', '/echo');
    const withToken = await get('alpha', '/echo', tokens.alpha);

    expectProblem(withoutToken, 401, 'unauthorized');
    expect(withoutToken.headers['www-authenticate']).toBe('Bearer realm="alpha"');
    expect(withToken.status).toBe(200);
    expect(withToken.text).toMatch(/^Echo \d+$/);
  });

  it("answers 401 to a token of another instance, naming this instance's realm", async () => {
    for (const path of ['/employees/me', '/echo']) {
      const res = await get('beta', path, tokens.alpha);

      expectProblem(res, 401, 'invalid_token');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="beta", error="invalid_token"');
    }
  });

  it('keeps the "Enable REST Api" setting per instance: gamma is disabled while alpha is enabled', async () => {
    const gamma = await get('gamma', '/echo', tokens.gamma);
    const alpha = await get('alpha', '/echo', tokens.alpha);

    const body = expectProblem(gamma, 403, 'api_disabled');
    expect(body.detail).toContain('hrm --instance gamma api enable');
    expect(alpha.status).toBe(200);
  });

  it('writes nothing on a disabled instance', async () => {
    const gammaDb = await c.control.openInstanceDb('gamma');
    const before = await gammaDb('employees').count({ n: '*' }).first();

    const res = await postEmployee('gamma', tokens.gamma as string, { employee_id: 'G1', first_name: 'G', last_name: 'H' });

    expectProblem(res, 403, 'api_disabled');
    expect(await gammaDb('employees').count({ n: '*' }).first()).toEqual(before);
  });

  it.each([
    ['an unregistered name', 'nobody'],
    ['upper case', 'ALPHA'],
    ['a single character', 'a'],
    ['a leading dash', '-alpha'],
    ['an underscore', 'al_pha'],
    ['64 characters', 'a'.repeat(64)],
  ])('answers 404 instance_not_found for %s, with or without a token, revealing nothing else', async (_case, name) => {
    const anonymous = await get(name, '/echo');
    const withToken = await get(name, '/employees/me', tokens.alpha);

    for (const res of [anonymous, withToken]) {
      const body = expectProblem(res, 404, 'instance_not_found');
      expect(body.detail).toBe('There is no instance by this name');
      expect(res.headers['www-authenticate']).toBeUndefined();
    }
  });

  it('answers 404 not_found for an unknown path inside an instance only after authentication', async () => {
    const anonymous = await get('alpha', '/no-such-route');
    const authenticated = await get('alpha', '/no-such-route', tokens.alpha);

    expectProblem(anonymous, 401, 'unauthorized');
    expectProblem(authenticated, 404, 'not_found');
  });

  it('does not serve the self-hosted base path', async () => {
    expectProblem(await request(c.app).get('/app/api/echo'), 404, 'not_found');
  });

  it('keeps the health checks outside the instances; readiness is the control database', async () => {
    expect((await request(c.app).get('/healthz')).status).toBe(200);
    const ready = await request(c.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });
});

describe.each(testDialects())('cloud mode on %s, first requests', (dialect) => {
  let c: CloudTestApp;
  let token: string;
  beforeAll(async () => {
    c = await startCloudTestApp(dialect);
    token = await c.createInstance('fresh');
  });
  afterAll(() => c.close());

  it('opens an instance once for concurrent first requests', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => request(c.app).get(c.api('fresh', '/employees/me')).auth(token, { type: 'bearer' })),
    );

    expect(responses.map((res) => res.status)).toEqual(Array(20).fill(200));
    expect(c.directory.stats()).toMatchObject({ known: 1, open: 1, slotsInUse: 1 });
  });

  it("finds an instance created while the server runs, once its name's miss has expired", async () => {
    expectProblem(await request(c.app).get(c.api('late', '/echo')), 404, 'instance_not_found');
    const lateToken = await c.createInstance('late');

    const cached = await request(c.app).get(c.api('late', '/echo')).auth(lateToken, { type: 'bearer' });
    c.clock.advance(MISS_CACHE_MS);
    const res = await request(c.app).get(c.api('late', '/echo')).auth(lateToken, { type: 'bearer' });

    expectProblem(cached, 404, 'instance_not_found');
    expect(res.status).toBe(200);
  });
});

describe.each(testDialects())('cloud mode on %s, unknown instances', (dialect) => {
  // The per-address limit counts with the real time: each case has an app (and counts) of its own.
  const started: CloudTestApp[] = [];
  let registryQueries: string[] = [];
  const start = async (perIp: string) => {
    const c = await startCloudTestApp(dialect, { env: { RATE_LIMIT_PER_IP: perIp } });
    started.push(c);
    const token = await c.createInstance('known');
    c.control.db.on('query', (query: { sql: string }) => {
      if (/instances/.test(query.sql)) registryQueries.push(query.sql);
    });
    registryQueries = [];
    return { c, token, get: (instance: string) => request(c.app).get(c.api(instance, '/echo')) };
  };
  afterAll(async () => {
    for (const c of started) await c.close();
  });

  it('asks the registry once for a missing name, then answers 404 from memory until the miss expires', async () => {
    const { c, get } = await start('0');

    const answers = [await get('ghost-one'), await get('ghost-one'), await get('ghost-one')];

    for (const res of answers) expectProblem(res, 404, 'instance_not_found');
    expect(registryQueries).toHaveLength(1);
    c.clock.advance(MISS_CACHE_MS);
    expectProblem(await get('ghost-one'), 404, 'instance_not_found');
    expect(registryQueries).toHaveLength(2);
  });

  it('counts registry lookups against the client address before making them: 429 without a query once over the limit', async () => {
    const { c, token, get } = await start('3');

    const first = await request(c.app).get(c.api('known', '/employees/me')).auth(token, { type: 'bearer' });
    const misses = [await get('ghost-two'), await get('ghost-three')];
    const refused = await get('ghost-four');
    const cachedMiss = await get('ghost-two');
    const knownAgain = await request(c.app).get(c.api('known', '/employees/me')).auth(token, { type: 'bearer' });

    expect(first.status).toBe(200);
    for (const res of [...misses, cachedMiss]) expectProblem(res, 404, 'instance_not_found');
    expectProblem(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(registryQueries).toHaveLength(3);
    expect(knownAgain.status).toBe(200);
  });
});

describe.each(testDialects())('cloud mode on %s with one open instance at a time', (dialect) => {
  let c: CloudTestApp;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    c = await startCloudTestApp(dialect, { directory: { maxConnections: dialect === 'mysql' ? 2 : 1, slotTimeoutMs: 3000 } });
    for (const name of ['busy', 'left', 'next']) tokens[name] = await c.createInstance(name);
    await new Promise<void>((resolve) => c.app.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => c.close());

  it('frees the instance of a request whose client gave up while it waited for a slot', async () => {
    const held = await c.directory.acquire('busy');
    const { port } = c.app.address() as AddressInfo;
    const abandoned = http.get({
      port,
      host: '127.0.0.1',
      path: c.api('left', '/echo'),
      headers: { Authorization: `Bearer ${tokens.left}` },
    });
    abandoned.on('error', () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    abandoned.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    held?.release();

    const res = await request(c.app)
      .get(c.api('next', '/echo'))
      .auth(tokens.next as string, { type: 'bearer' });

    expect(res.status).toBe(200);
    expect(c.directory.stats().slotsInUse).toBe(1);
  });
});
