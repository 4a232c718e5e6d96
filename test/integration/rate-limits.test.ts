import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import request from 'supertest';
import { startCloudTestApp } from '../helpers/cloud-app';
import { testDialects } from '../helpers/databases';
import { runHrm } from '../helpers/cli';
import { createUser, type TestUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { connectTestRedis } from '../helpers/redis';
import { TcpProxy } from '../helpers/tcp-proxy';
import { startTestApp, type TestApp, useFixture, useTestApp } from '../helpers/test-app';

describe.each(testDialects())('rate limits on %s', (dialect) => {
  describe('in one process', () => {
    const t = useTestApp(dialect, { env: { RATE_LIMIT_PER_TOKEN: '3', RATE_LIMIT_PER_IP: '2' } });
    const user = useFixture(() => createUser(t, 'employee'));

    const me = (token?: string) => {
      const req = request(t.app).get(t.api('/employees/me'));
      return token ? req.set('Authorization', `Bearer ${token}`) : req;
    };

    it('counts per token, with RateLimit-Policy and RateLimit on every answer, then 429 with Retry-After', async () => {
      const answers = [await me(user.token), await me(user.token), await me(user.token)];
      const refused = await me(user.token);

      expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
      expect(answers.map((res) => res.headers['ratelimit-policy'])).toEqual(Array(3).fill('"per-token";q=3;w=60'));
      expect(answers.map((res) => res.headers.ratelimit)).toEqual([
        expect.stringMatching(/^"per-token";r=2;t=\d+$/),
        expect.stringMatching(/^"per-token";r=1;t=\d+$/),
        expect.stringMatching(/^"per-token";r=0;t=\d+$/),
      ]);
      expectProblem(refused, 429, 'rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(refused.headers['ratelimit-policy']).toBe('"per-token";q=3;w=60');
    });

    it('gives every user its own budget', async () => {
      const other = await createUser(t, 'employee');

      expect((await me(other.token)).status).toBe(200);
    });

    it('counts per user: a rotated token or a second token of the same user does not start a new count', async () => {
      const rotating = await createUser(t, 'employee');
      const rotated = await request(t.app).post(t.api('/tokens')).auth(rotating.token, { type: 'bearer' });
      const second = await runHrm(t, ['token', 'issue', '--username', rotating.username]);

      const answers = [await me(rotated.body.access_token), await me(rotated.body.access_token)];
      const refused = await me(second.stdout.trim());

      expect(rotated.status).toBe(201);
      expect(answers.map((res) => res.status)).toEqual([200, 200]);
      expect(answers[1]?.headers.ratelimit).toMatch(/^"per-token";r=0;t=\d+$/);
      expectProblem(refused, 429, 'rate_limited');
    });

    it('counts requests without a valid token per client address, garbage tokens included', async () => {
      const answers = [await me(), await me('not.a.token')];
      const refused = await me();

      expect(answers.map((res) => res.status)).toEqual([401, 401]);
      expect(answers[0]?.headers['ratelimit-policy']).toBe('"per-ip";q=2;w=60');
      expectProblem(refused, 429, 'rate_limited');
    });
  });

  describe('switched off', () => {
    const t = useTestApp(dialect, { env: { RATE_LIMIT_PER_TOKEN: '0', RATE_LIMIT_PER_IP: '0' } });

    it('never refuses and sends no rate-limit fields when a limit is 0', async () => {
      const answers = await Promise.all(Array.from({ length: 5 }, () => request(t.app).get(t.api('/echo'))));

      expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
      expect(answers[0]?.headers['ratelimit-policy']).toBeUndefined();
    });
  });

  describe('in cloud mode with RATE_LIMIT_STORE=database', () => {
    it("counts in the control database (its migration 0003 holds the table) across the instances' names", async () => {
      const c = await startCloudTestApp(dialect, {
        env: { RATE_LIMIT_PER_IP: '2', RATE_LIMIT_STORE: 'database' },
        rateLimitsInControl: true,
      });
      try {
        await c.createInstance('north');
        // Without a token (cloud mode's echo needs one): counted per client address.
        const echo = () => request(c.app).get(c.api('north', '/echo'));

        const statuses = [(await echo()).status, (await echo()).status];
        const refused = await echo();

        expect(statuses).toEqual([401, 401]);
        expectProblem(refused, 429, 'rate_limited');
        expect(Number((await c.control.db('rate_limits').count({ n: '*' }).first())?.n)).toBeGreaterThan(0);
      } finally {
        await c.close();
      }
    });
  });

  describe('across processes sharing the database (RATE_LIMIT_STORE=database)', () => {
    let first: TestApp;
    let second: TestApp;
    let user: TestUser;
    beforeAll(async () => {
      first = await startTestApp(dialect, { env: { RATE_LIMIT_PER_TOKEN: '4', RATE_LIMIT_STORE: 'database' } });
      // A second server on the same database: its own app, pool and memory.
      second = await startTestApp(dialect, { env: { RATE_LIMIT_PER_TOKEN: '4', RATE_LIMIT_STORE: 'database' }, database: first.database });
      user = await createUser(first, 'admin');
    });
    afterAll(async () => {
      await second.close({ keepDatabase: true });
      await first.close();
    });

    it('holds the limit over both servers together', async () => {
      const me = (t: TestApp) => request(t.app).get(t.api('/employees/me')).auth(user.token, { type: 'bearer' });

      const statuses = [(await me(first)).status, (await me(second)).status, (await me(first)).status, (await me(second)).status];
      const refused = await me(first);

      expect(statuses).toEqual([200, 200, 200, 200]);
      expectProblem(refused, 429, 'rate_limited');
    });
  });
});

describe('rate limits across processes sharing Redis (RATE_LIMIT_STORE=redis)', () => {
  let redisAvailable: Redis | undefined;
  let first: TestApp;
  let second: TestApp;
  const clients: Redis[] = [];
  beforeAll(async () => {
    redisAvailable = await connectTestRedis();
    if (!redisAvailable) return;
    const newClient = () => {
      const client = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', { enableOfflineQueue: true });
      clients.push(client);
      return client;
    };
    // A fresh realm per run (the JWT secret differs), so counts of earlier runs do not matter.
    const env = { RATE_LIMIT_PER_TOKEN: '3', JWT_SECRET: randomBytes(24).toString('hex') };
    first = await startTestApp('sqlite', { env, rateLimitStore: { kind: 'redis', client: newClient() } });
    second = await startTestApp('sqlite', { env, database: first.database, rateLimitStore: { kind: 'redis', client: newClient() } });
  });
  afterAll(async () => {
    if (!redisAvailable) return;
    await second.close({ keepDatabase: true });
    await first.close();
    for (const client of [...clients, redisAvailable]) await client.quit();
  });

  it('holds the limit over both servers together', async () => {
    if (!redisAvailable) return;
    const user = await createUser(first, 'admin');
    const me = (t: TestApp) => request(t.app).get(t.api('/employees/me')).auth(user.token, { type: 'bearer' });

    const statuses = [(await me(first)).status, (await me(second)).status, (await me(first)).status];
    const refused = await me(second);

    expect(statuses).toEqual([200, 200, 200]);
    expectProblem(refused, 429, 'rate_limited');
  });

  it('limits again once Redis, down when the server started, is back', async () => {
    if (!redisAvailable) return;
    const target = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    const proxy = await TcpProxy.create({ host: target.hostname, port: Number(target.port || 6379) });
    const client = new Redis(`redis://127.0.0.1:${proxy.port}`, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 500,
      retryStrategy: () => 100,
    });
    const t = await startTestApp('sqlite', {
      env: { RATE_LIMIT_PER_TOKEN: '2', JWT_SECRET: randomBytes(24).toString('hex') },
      rateLimitStore: { kind: 'redis', client },
    });
    try {
      const user = await createUser(t, 'employee');
      const me = async () => (await request(t.app).get(t.api('/employees/me')).auth(user.token, { type: 'bearer' })).status;
      const whileDown = [await me(), await me(), await me()];
      await proxy.up();
      for (let waited = 0; client.status !== 'ready' && waited < 5000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));

      const afterwards = [await me(), await me(), await me()];

      expect(whileDown).toEqual([200, 200, 200]);
      expect(afterwards).toEqual([200, 200, 429]);
    } finally {
      client.disconnect();
      await t.close();
      await proxy.down();
    }
  });

  it('lets requests through, unlimited, while Redis is unreachable', async () => {
    if (!redisAvailable) return;
    const unreachable = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    const t = await startTestApp('sqlite', { env: { RATE_LIMIT_PER_TOKEN: '1' }, rateLimitStore: { kind: 'redis', client: unreachable } });
    try {
      const user = await createUser(t, 'employee');
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await request(t.app).get(t.api('/employees/me')).auth(user.token, { type: 'bearer' })).status);

      expect(statuses).toEqual([200, 200, 200]);
    } finally {
      unreachable.disconnect();
      await t.close();
    }
  });
});
