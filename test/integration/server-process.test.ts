import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
    database = await createTestDatabase(dialect, { empty: true });
  });
  afterAll(() => database.drop());

  it('on first start creates the admin, prints its token once and how to enable the API; the token then works', async () => {
    const first = await startServerProcess({ DATABASE_URL: database.url });
    try {
      const output = first.output();
      const token = first.firstAdminToken();
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

  it('on a first start with no terminal, writes the token to a file only its user can read and keeps it out of the log', async () => {
    const own = await createTestDatabase(dialect, { empty: true });
    const server = await startServerProcess({ DATABASE_URL: own.url, LOG_LEVEL: 'info' });
    try {
      const token = server.firstAdminToken() as string;
      expect(token).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(fs.statSync(server.tokenFile).mode & 0o777).toBe(0o600);
      expect(fs.readdirSync(path.dirname(server.tokenFile))).toEqual(['first-admin-token']);
      expect(server.output()).toContain('First start: created the user "admin" (linked to employee 1) and a token for it.');
      expect(server.output()).toContain(`  ${server.tokenFile}\n`);
      expect(server.output()).not.toContain(token);
      expect(server.output()).not.toMatch(/eyJ/);

      expect(await hrm(own, ['api', 'enable'])).toBe(0);
      await waitForStatus(`${server.apiUrl}/echo`, 200);
      const me = await fetch(`${server.apiUrl}/employees/me`, { headers: { Authorization: `Bearer ${token}` } });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ employee_id: 'ADMIN' });
    } finally {
      expect(await server.stop()).toBe(0);
      await own.drop();
    }
  });

  it('when the token file cannot be written, says so and prints no token; the server serves all the same', async () => {
    const own = await createTestDatabase(dialect, { empty: true });
    const notADirectory = path.join(os.tmpdir(), `hrm-not-a-directory-${process.pid}`);
    fs.writeFileSync(notADirectory, '');
    const server = await startServerProcess({ DATABASE_URL: own.url, FIRST_ADMIN_TOKEN_FILE: path.join(notADirectory, 'token') });
    try {
      expect(server.output()).toContain(`it could not be written to ${path.join(notADirectory, 'token')} (ENOTDIR)`);
      expect(server.output()).toContain('Issue a token with: npm run -s hrm -- token issue --username admin');
      expect(server.output()).not.toMatch(/eyJ/);
      expect((await fetch(`${server.apiUrl}/echo`)).status).toBe(403);
    } finally {
      expect(await server.stop()).toBe(0);
      fs.rmSync(notADirectory, { force: true });
      await own.drop();
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

describe('the first admin token file of a SQLite installation', () => {
  it('is beside the database by default', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-data-'));
    const server = await startServerProcess({ DATABASE_URL: `sqlite:${path.join(directory, 'hrm.sqlite')}`, FIRST_ADMIN_TOKEN_FILE: '' });
    try {
      const file = path.join(directory, 'first-admin-token');
      expect(server.output()).toContain(`  ${file}\n`);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(file, 'utf8')).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+\n$/);
    } finally {
      expect(await server.stop()).toBe(0);
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('the SQLite database of a server process (it holds the token-signing secret)', () => {
  let directory: string;
  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-modes-'));
  });
  afterEach(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('is created 0600, with its -wal and -shm files, in a folder created 0700', async () => {
    const file = path.join(directory, 'data', 'hrm.sqlite');
    const server = await startServerProcess({ DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'warn' });
    try {
      expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
      for (const each of [file, `${file}-wal`, `${file}-shm`]) expect([each, fs.statSync(each).mode & 0o777]).toEqual([each, 0o600]);
      expect(server.output()).not.toMatch(/made owner-only/);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('tightens an existing 0644 file at start, with one warning naming its path and old mode', async () => {
    const file = path.join(directory, 'hrm.sqlite');
    fs.writeFileSync(file, '');
    fs.chmodSync(file, 0o644);
    fs.chmodSync(directory, 0o755);
    const server = await startServerProcess({ DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'warn' });
    try {
      const warnings = server
        .output()
        .split('\n')
        .filter((line) => line.includes('made owner-only'));

      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0] as string)).toMatchObject({
        level: 40,
        path: file,
        oldMode: '0644',
        newMode: '0600',
        msg: 'database file was readable by other users; made owner-only',
      });
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      // The folder existed and is not ./data: the admin chose it, and it may be shared.
      expect(fs.statSync(directory).mode & 0o777).toBe(0o755);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

// hrm opens the same file, and may be the first to create it (hrm db migrate before the first start).
describe('the SQLite database opened by hrm', () => {
  let directory: string;
  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-cli-modes-'));
  });
  afterEach(() => fs.rmSync(directory, { recursive: true, force: true }));

  async function hrmAt(file: string, argv: string[]): Promise<{ code: number; stderr: string }> {
    let stderr = '';
    const code = await runCli(argv, {
      stdout: { write: () => true },
      stderr: { write: (text: string) => (stderr += text) },
      env: { DATABASE_URL: `sqlite:${file}` },
      readStdin: async () => '',
      clock: systemClock,
    });
    return { code, stderr };
  }

  it('is created 0600 in a folder created 0700', async () => {
    const file = path.join(directory, 'data', 'hrm.sqlite');

    const result = await hrmAt(file, ['db', 'migrate']);

    expect(result).toEqual({ code: 0, stderr: '' });
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('tightens an existing 0644 file and warns on standard error', async () => {
    const file = path.join(directory, 'hrm.sqlite');
    fs.writeFileSync(file, '');
    fs.chmodSync(file, 0o644);

    const result = await hrmAt(file, ['api', 'status']);

    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`hrm: warning: ${file} was readable by other users (mode 0644); changed to 0600\n`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
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
