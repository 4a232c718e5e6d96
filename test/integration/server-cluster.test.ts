import fs from 'node:fs';
import { runCli } from '../../src/cli/program';
import { SERVER_NODE_FLAGS } from '../../src/node-flags';
import { systemClock } from '../../src/clock';
import { createTestControlDatabase, type TestControlDatabase } from '../helpers/cloud-app';
import { createTestDatabase, type TestDatabase, testDialects } from '../helpers/databases';
import { send } from '../helpers/http-client';
import { startServerProcess } from '../helpers/server-process';

/** The child processes of `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const text = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text === '' ? [] : text.split(/\s+/).map(Number);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

async function hrm(env: Record<string, string>, argv: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: () => true },
    env,
    readStdin: async () => '',
    clock: systemClock,
  });
  return { code, stdout };
}

/** The pids in the access-log lines printed so far (pino writes each process's pid). */
function pidsInAccessLog(output: string): Set<number> {
  const pids = output
    .split('\n')
    .filter((line) => line.includes('"msg":"request completed"'))
    .map((line) => (JSON.parse(line) as { pid: number }).pid);
  return new Set(pids);
}

describe.each(testDialects())('the server with WORKERS=2 on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect, { empty: true });
  });
  afterAll(() => database.drop());

  it('prepares once, serves from two worker processes on one port, and stops them all on SIGTERM', async () => {
    const server = await startServerProcess({ DATABASE_URL: database.url, WORKERS: '2', LOG_LEVEL: 'info' });
    const primary = server.child.pid as number;
    // eslint-disable-next-line no-useless-assignment -- the finally block reads it when the start fails
    let workers: number[] = [];
    try {
      const output = server.output();
      expect(output.match(/First start: created the user "admin"/g)).toHaveLength(1);
      expect(output.match(/HRM API listening on/g)).toHaveLength(1);
      const token = server.firstAdminToken() as string;
      workers = childrenOf(primary);
      expect(workers).toHaveLength(2);
      for (const worker of workers)
        expect(fs.readFileSync(`/proc/${worker}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining([...SERVER_NODE_FLAGS]));

      expect(await hrm({ DATABASE_URL: database.url }, ['api', 'enable'])).toMatchObject({ code: 0 });
      const { origin, pathname } = new URL(server.apiUrl);
      expect(await until(async () => (await send(origin, `${pathname}/echo`)).status === 200)).toBe(true);
      // A new connection per request: the primary hands connections to the workers in turn.
      const statuses = [];
      for (let i = 0; i < 20; i++)
        statuses.push((await send(origin, `${pathname}/employees/me`, { headers: { Authorization: `Bearer ${token}` } })).status);

      expect(statuses).toEqual(Array(20).fill(200));
      expect(await until(() => pidsInAccessLog(server.output()).size === 2)).toBe(true);
      expect([...pidsInAccessLog(server.output())].sort()).toEqual([...workers].sort());
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(workers.filter(isRunning)).toEqual([]);
    expect(server.output().match(/"msg":"stopped"/g)?.length).toBe(3);
  });

  it('replaces a worker that dies', async () => {
    const server = await startServerProcess({ DATABASE_URL: database.url, WORKERS: '2' });
    const primary = server.child.pid as number;
    try {
      const [victim] = childrenOf(primary);
      process.kill(victim as number, 'SIGKILL');

      expect(await until(() => childrenOf(primary).length === 2 && !childrenOf(primary).includes(victim as number))).toBe(true);
      const { origin } = new URL(server.apiUrl);
      expect((await send(origin, '/healthz')).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

describe.each(testDialects())('the server in cloud mode on %s', (dialect) => {
  let control: TestControlDatabase;
  beforeAll(async () => {
    control = await createTestControlDatabase(dialect);
  });
  afterAll(() => control.drop());

  it('starts without instances, says how to create one, then serves one created meanwhile', async () => {
    const env = { DATABASE_URL: control.url, DEPLOYMENT: 'cloud' };
    const server = await startServerProcess({ ...env, WORKERS: '2' });
    try {
      const output = server.output();
      expect(output).toContain('HRM API (cloud mode) listening on');
      expect(output).toContain('No instance exists yet');
      expect(output).toContain('npm run -s hrm -- instance create <name>');
      expect(output).not.toMatch(/eyJ/);
      const { origin } = new URL(server.apiUrl);
      expect((await send(origin, '/readyz')).status).toBe(200);
      expect((await send(origin, '/api/nobody/echo')).status).toBe(404);

      const created = await hrm(env, ['instance', 'create', 'proc-test']);
      const token = /^\s+(eyJ[\w-]+\.[\w-]+\.[\w-]+)$/m.exec(created.stdout)?.[1] as string;
      expect((await send(origin, '/api/proc-test/echo', { headers: { Authorization: `Bearer ${token}` } })).status).toBe(403);
      await hrm(env, ['--instance', 'proc-test', 'api', 'enable']);

      // Each worker notices the setting within 2 seconds (docs/api.md, "The first five requests").
      const echo = (headers: Record<string, string>) => send(origin, '/api/proc-test/echo', { headers });
      expect(await until(async () => (await echo({ Authorization: `Bearer ${token}` })).status === 200)).toBe(true);
      expect(await until(async () => (await echo({})).status === 401)).toBe(true);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

describe('the server with invalid WORKERS', () => {
  it.each(['0', '65', 'two'])('stops at once naming WORKERS for %s', async (workers) => {
    const server = await startServerProcess({ WORKERS: workers });

    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/^hrm: Invalid configuration: WORKERS /);
  });
});
