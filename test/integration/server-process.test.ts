import { runCli } from '../../src/cli/program';
import { systemClock } from '../../src/clock';
import { createTestDatabase, type TestDatabase, testDialects } from '../helpers/databases';
import { startServerProcess } from '../helpers/server-process';

async function hrm(database: TestDatabase, argv: string[]): Promise<number> {
  const sink = { write: () => true };
  return runCli(argv, { stdout: sink, stderr: sink, env: { DATABASE_URL: database.url }, readStdin: async () => '', clock: systemClock });
}

async function waitForStatus(url: string, status: number, headers: Record<string, string> = {}): Promise<Response> {
  const started = Date.now();
  for (;;) {
    const res = await fetch(url, { headers });
    if (res.status === status || Date.now() - started > 3000) return res;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(testDialects())('the server process on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(() => database.drop());

  it('on first start creates the admin, prints its token once and how to enable the API; the token then works', async () => {
    const first = await startServerProcess({ DATABASE_URL: database.url });
    try {
      const output = first.output();
      const token = /^\s+(eyJ[\w-]+\.[\w-]+\.[\w-]+)$/m.exec(output)?.[1];
      expect(output).toContain('First start: created the user "admin"');
      expect(output).toContain('The REST API is disabled');
      expect(output).toContain('npm run -s hrm -- api enable');
      expect(token).toBeDefined();

      expect((await fetch(`${first.apiUrl}/echo`)).status).toBe(403);
      expect(await hrm(database, ['api', 'enable'])).toBe(0);
      const echo = await waitForStatus(`${first.apiUrl}/echo`, 200);
      const me = await fetch(`${first.apiUrl}/employees/me`, { headers: { Authorization: `Bearer ${token}` } });

      expect(echo.status).toBe(200);
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ employee_id: 'ADMIN', first_name: 'Admin', status: 'Active' });
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const second = await startServerProcess({ DATABASE_URL: database.url });
    try {
      expect(second.output()).not.toContain('First start');
      expect(second.output()).not.toMatch(/eyJ/);
      expect(second.output()).not.toContain('disabled');
    } finally {
      await second.stop();
    }
  });

  it('stops on SIGTERM with exit code 0', async () => {
    const server = await startServerProcess({ DATABASE_URL: database.url, LOG_LEVEL: 'info' });

    const code = await server.stop();

    expect(code).toBe(0);
    expect(server.output()).toMatch(/"msg":"stopped"/);
  });

  it('refuses a database migrated by a newer release', async () => {
    const db = database.open();
    await db('knex_migrations').insert({ name: '9999_from_the_future', batch: 99, migration_time: new Date() });
    await db.destroy();
    try {
      const server = await startServerProcess({ DATABASE_URL: database.url });

      expect(await server.exited).toBe(1);
      expect(server.output()).toMatch(/schema is newer than this release knows \(unknown migrations: 9999_from_the_future\)/);
    } finally {
      const cleanup = database.open();
      await cleanup('knex_migrations').where({ name: '9999_from_the_future' }).delete();
      await cleanup.destroy();
    }
  });
});

describe('the server process with invalid configuration', () => {
  it.each([
    [{ PORT: 'http' }, /^hrm: Invalid configuration: PORT /],
    [{ BASE_PATH: 'app/api/' }, /^hrm: Invalid configuration: BASE_PATH must be a path/],
    [{ DATABASE_URL: 'postgres://x' }, /^hrm: Invalid configuration: DATABASE_URL must be/],
    [{ JWT_SECRET: 'short' }, /^hrm: Invalid configuration: JWT_SECRET must be at least 32 characters/],
    [{ TRUST_PROXY: 'true' }, /^hrm: Invalid configuration: TRUST_PROXY must list the proxies/],
  ])('stops at once with a message naming the variable for %j', async (env, message) => {
    const server = await startServerProcess(env);

    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(message);
  });
});
