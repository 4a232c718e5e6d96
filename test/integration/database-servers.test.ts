import mysql from 'mysql2/promise';
import request from 'supertest';
import { runCli } from '../../src/cli/program';
import { systemClock } from '../../src/clock';
import { type Db, openDatabase } from '../../src/db/connect';
import { REGISTRY_CHECK_MS } from '../../src/instances/directory';
import { listRegisteredInstances, markInstanceMoving } from '../../src/instances/registry';
import type { CliResult } from '../helpers/cli';
import { startCloudTestApp, type CloudTestApp } from '../helpers/cloud-app';
import { testDialects } from '../helpers/databases';
import { expectProblem } from '../helpers/problem';
import { startServerProcess } from '../helpers/server-process';
import { mariadbMissing, startMariadbServer, type MariadbServer } from '../../support/mariadb-server';

// Cloud instances over two MariaDB servers: the suite's server (the control database's, named
// `default`) and a second mariadbd started here on a loopback port, named eu2, reached as a user
// with a password, which must never reach the registry.

const TOKEN_LINE = /^\s+(eyJ[\w-]+\.[\w-]+\.[\w-]+)$/m;
const PASSWORD = 'eu2-s3cret-Pw';

jest.setTimeout(180_000);

function whenSecondServerAvailable(body: () => void): void {
  const missing = mariadbMissing();
  if (!testDialects().includes('mysql')) {
    it.skip('runs on MariaDB (the MySQL half of the suite is skipped)', () => undefined);
    return;
  }
  if (!missing) {
    body();
    return;
  }
  if (process.env.CI === 'true') {
    it('runs on two MariaDB servers', () => {
      throw new Error(`${missing}; CI=true requires the database-server tests, so the run fails`);
    });
    return;
  }
  process.stderr.write(`\n*** Database-server tests SKIPPED: ${missing}. ***\n`);
  it.skip(`runs on two MariaDB servers (${missing})`, () => undefined);
}

describe('cloud instances over several database servers', () => {
  whenSecondServerAvailable(() => {
    let second: MariadbServer;
    let servers: string;
    beforeAll(async () => {
      second = await startMariadbServer();
      const connection = await mysql.createConnection({ uri: second.url });
      await connection.query(`CREATE USER 'hrm'@'127.0.0.1' IDENTIFIED BY '${PASSWORD}'`);
      await connection.query(`GRANT ALL ON *.* TO 'hrm'@'127.0.0.1'`);
      await connection.end();
      servers = `eu2=mysql://hrm:${PASSWORD}@127.0.0.1:${second.port}`;
    });
    afterAll(() => second?.stop());

    let c: CloudTestApp;
    beforeEach(async () => {
      c = await startCloudTestApp('mysql', { env: { DATABASE_SERVERS: servers } });
    });
    afterEach(() => c.close());

    async function hrm(argv: string[], clock: { now(): Date } = c.clock): Promise<CliResult> {
      let stdout = '';
      let stderr = '';
      const code = await runCli(argv, {
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: (text: string) => (stderr += text) },
        env: { DATABASE_URL: c.control.url, DEPLOYMENT: 'cloud', LOG_LEVEL: 'silent', DATABASE_SERVERS: servers },
        readStdin: async () => '',
        clock,
      });
      return { code, stdout, stderr };
    }

    const placement = async () => Object.fromEntries((await listRegisteredInstances(c.control.db)).map((row) => [row.name, row.server]));
    const schemasOnSecond = async () => {
      const connection = await mysql.createConnection({ uri: second.url });
      const control = new URL(c.control.url).pathname.slice(1);
      const [rows] = await connection.query('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ?', [
        `${control}\\_%`,
      ]);
      await connection.end();
      return (rows as Array<{ name: string }>).map((row) => row.name);
    };
    /** The instance's database on a server, opened directly. */
    const openOn = (server: 'default' | 'eu2', databaseName: string): Db => {
      const url = server === 'default' ? c.control.url.replace(/\/[^/]*$/, `/${databaseName}`) : `${second.url}/${databaseName}`;
      return openDatabase({ client: 'mysql', url }, { poolMax: 1 });
    };

    async function createAndEnable(name: string, extra: string[] = []): Promise<string> {
      const created = await hrm(['instance', 'create', name, ...extra]);
      expect(created).toMatchObject({ code: 0, stderr: '' });
      expect((await hrm(['--instance', name, 'api', 'enable'])).code).toBe(0);
      c.clock.advance(1001);
      return TOKEN_LINE.exec(created.stdout)?.[1] as string;
    }

    it('places an instance on the server --server names, and serves it from there', async () => {
      const token = await createAndEnable('placed', ['--server', 'eu2']);

      expect(await placement()).toEqual({ placed: 'eu2' });
      expect(await schemasOnSecond()).toEqual([expect.stringMatching(/_placed$/)]);
      expect(await c.control.instanceSchemas()).toEqual([]);
      const created = await request(c.app)
        .post(c.api('placed', '/employees'))
        .auth(token, { type: 'bearer' })
        .send({ employee_id: 'E1', first_name: 'Ana', last_name: 'Lima', country: 'PT', work_email: 'ana@example.com' });
      expect(created.status).toBe(201);
      const onSecond = openOn('eu2', (await schemasOnSecond())[0] as string);
      try {
        expect(await onSecond('employees').where({ employee_id: 'E1' }).first('first_name')).toEqual({ first_name: 'Ana' });
      } finally {
        await onSecond.destroy();
      }
    });

    it('puts an instance created without --server on the server holding the fewest instances, default first on a tie', async () => {
      await hrm(['instance', 'create', 'first', '--server', 'default']);
      await hrm(['instance', 'create', 'second']);
      await hrm(['instance', 'create', 'third']);
      await hrm(['instance', 'create', 'fourth', '--server', 'eu2']);
      await hrm(['instance', 'create', 'fifth']);

      expect(await placement()).toEqual({ first: 'default', second: 'eu2', third: 'default', fourth: 'eu2', fifth: 'default' });
      const list = await hrm(['instance', 'list']);
      expect(list.stdout).toMatch(/^NAME\s+SERVER\s+DATABASE\s+CREATED\n/);
      expect(list.stdout).toMatch(/^fourth\s+eu2\s+\S+_fourth\s/m);
    });

    it('refuses an unknown server with exit status 2 and creates or moves nothing', async () => {
      await createAndEnable('stays');
      const message = 'hrm: There is no database server named nowhere (configured: default, eu2; DATABASE_SERVERS names them)\n';

      expect(await hrm(['instance', 'create', 'lost', '--server', 'nowhere'])).toEqual({ code: 2, stdout: '', stderr: message });
      expect(await hrm(['instance', 'move', 'stays', '--to', 'nowhere'])).toEqual({ code: 2, stdout: '', stderr: message });
      expect(await hrm(['instance', 'move', 'stays', '--to', 'default'])).toEqual({
        code: 2,
        stdout: '',
        stderr: 'hrm: The instance stays is already on default\n',
      });
      expect(await hrm(['instance', 'move', 'nobody', '--to', 'eu2'])).toEqual({
        code: 2,
        stdout: '',
        stderr: 'hrm: There is no instance named nobody (hrm instance list shows them)\n',
      });
      expect(await placement()).toEqual({ stays: 'default' });
      expect(await schemasOnSecond()).toEqual([]);
      expect((await c.control.instanceSchemas()).length).toBe(1);
    });

    it('moves an instance served by a running server with two worker processes, which pick up its new server', async () => {
      const created = await hrm(['instance', 'create', 'across'], systemClock);
      const token = TOKEN_LINE.exec(created.stdout)?.[1] as string;
      await hrm(['--instance', 'across', 'api', 'enable'], systemClock);
      const databaseName = (await listRegisteredInstances(c.control.db))[0]?.databaseName as string;
      const server = await startServerProcess({
        DEPLOYMENT: 'cloud',
        DATABASE_URL: c.control.url,
        DATABASE_SERVERS: servers,
        WORKERS: '2',
        RATE_LIMIT_PER_TOKEN: '0',
        RATE_LIMIT_PER_IP: '0',
      });
      try {
        const base = `${new URL(server.apiUrl).origin}/api/across`;
        const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
        let next = 0;
        const answers: Array<{ status: number; retryAfter: string | null }> = [];
        const createdIds: string[] = [];
        const post = async () => {
          next += 1;
          const body = {
            employee_id: `W${next}`,
            first_name: 'Worker',
            last_name: `No${next}`,
            country: 'US',
            work_email: `w${next}@example.com`,
          };
          const response = await fetch(`${base}/employees`, { method: 'POST', headers, body: JSON.stringify(body) });
          const json = (await response.json()) as { id?: string };
          answers.push({ status: response.status, retryAfter: response.headers.get('retry-after') });
          if (response.status === 201) createdIds.push(String(json.id));
          return response.status;
        };
        // The API was enabled by hrm: the server sees it within its settings cache's 2 s.
        for (let tries = 0; (await post()) !== 201 && tries < 40; tries++) await new Promise((resolve) => setTimeout(resolve, 100));
        answers.length = 0;
        let moving = true;
        const stream = async () => {
          while (moving) await post();
        };
        const streams = [stream(), stream(), stream(), stream()];
        await new Promise((resolve) => setTimeout(resolve, 500));

        const moved = await hrm(['instance', 'move', 'across', '--to', 'eu2'], systemClock);
        await new Promise((resolve) => setTimeout(resolve, 1500));
        moving = false;
        await Promise.all(streams);

        expect(moved).toMatchObject({ code: 0, stderr: '' });
        expect(answers.filter((answer) => answer.status !== 201 && (answer.status !== 503 || answer.retryAfter === null))).toEqual([]);
        expect(answers.some((answer) => answer.status === 503)).toBe(true);
        // A write sent once the move is done is taken, by whichever worker gets it.
        for (let i = 0; i < 4; i++) expect(await post()).toBe(201);
        const oldDb = openOn('default', databaseName);
        const newDb = openOn('eu2', databaseName);
        try {
          const newIds = (await newDb('employees').pluck('id')).map(String);
          const oldIds = (await oldDb('employees').pluck('id')).map(String);
          expect(newIds).toEqual(expect.arrayContaining(createdIds));
          expect(newIds).toEqual(expect.arrayContaining(oldIds));
          // Every write answered 201 after the switch went to eu2 only.
          expect(createdIds.filter((id) => !oldIds.includes(id)).length).toBeGreaterThan(0);
        } finally {
          await Promise.all([oldDb.destroy(), newDb.destroy()]);
        }
      } finally {
        await server.stop();
      }
    });

    it('refuses to move onto a database that already exists on the target, leaves it and the instance as they were', async () => {
      const token = await createAndEnable('blocked');
      const databaseName = (await listRegisteredInstances(c.control.db))[0]?.databaseName as string;
      const connection = await mysql.createConnection({ uri: second.url });
      await connection.query(`CREATE DATABASE \`${databaseName}\``);
      await connection.query(`CREATE TABLE \`${databaseName}\`.keep (id INT PRIMARY KEY)`);
      await connection.end();

      const result = await hrm(['instance', 'move', 'blocked', '--to', 'eu2']);

      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `hrm: The database ${databaseName} already exists on eu2 (left by a move that did not finish?); drop it there (DROP DATABASE \`${databaseName}\`) and move again\n`,
      });
      expect(await listRegisteredInstances(c.control.db)).toEqual([
        expect.objectContaining({ name: 'blocked', server: 'default', movingSince: null }),
      ]);
      const target = openOn('eu2', databaseName);
      try {
        expect(await target('keep').select('*')).toEqual([]);
      } finally {
        await target.destroy();
      }
      const write = await request(c.app)
        .post(c.api('blocked', '/employees'))
        .auth(token, { type: 'bearer' })
        .send({ employee_id: 'B1', first_name: 'Bo', last_name: 'Ck', country: 'US', work_email: 'bo@example.com' });
      expect(write.status).toBe(201);
    });

    it('keeps credentials out of the registry: it holds the server names only', async () => {
      await createAndEnable('secretive', ['--server', 'eu2']);
      await createAndEnable('plain', ['--server', 'default']);

      const [rows] = await c.control.db.raw('SELECT * FROM instances');
      const registry = JSON.stringify(rows);

      expect(registry).toContain('"server":"eu2"');
      expect(registry).not.toContain(PASSWORD);
      expect(registry).not.toMatch(/mysql:|127\.0\.0\.1|hrm@|root@/);
      expect(registry).not.toContain(String(second.port));
    });

    it('moves an instance under a stream of requests: only 503s with Retry-After, nothing lost, data identical after', async () => {
      const token = await createAndEnable('moving');
      const databaseName = (await listRegisteredInstances(c.control.db))[0]?.databaseName as string;
      const api = (path: string) => c.api('moving', path);
      let next = 0;
      const newEmployee = () => {
        next += 1;
        return { employee_id: `S${next}`, first_name: 'Stream', last_name: `No${next}`, country: 'US', work_email: `s${next}@example.com` };
      };
      for (let i = 0; i < 20; i++)
        await request(c.app).post(api('/employees')).auth(token, { type: 'bearer' }).send(newEmployee()).expect(201);

      const answers: Array<{ method: string; status: number; retryAfter?: string }> = [];
      const createdIds: string[] = [];
      let moving = true;
      const stream = async () => {
        while (moving) {
          const write = await request(c.app).post(api('/employees')).auth(token, { type: 'bearer' }).send(newEmployee());
          answers.push({ method: 'POST', status: write.status, retryAfter: write.headers['retry-after'] });
          if (write.status === 201) createdIds.push(String(write.body.id));
          const read = await request(c.app).get(api('/employees?limit=5')).auth(token, { type: 'bearer' });
          answers.push({ method: 'GET', status: read.status, retryAfter: read.headers['retry-after'] });
        }
      };
      const streams = [stream(), stream(), stream()];
      await new Promise((resolve) => setTimeout(resolve, 500));

      const moved = await hrm(['instance', 'move', 'moving', '--to', 'eu2']);
      // The stream goes on until every process has picked up the new server.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      moving = false;
      await Promise.all(streams);

      expect(moved.stderr).toBe('');
      expect(moved.code).toBe(0);
      expect(moved.stdout).toMatch(
        /^Moved instance moving from default to eu2: \d+ tables, \d+ rows; its writes were paused for [\d.]+ s\.\n/,
      );
      expect(moved.stdout).toContain(`DROP DATABASE \`${databaseName}\`;`);
      expect(await placement()).toEqual({ moving: 'eu2' });
      const failures = answers.filter((answer) => answer.status !== 200 && answer.status !== 201);
      expect(failures.filter((answer) => answer.status !== 503 || answer.retryAfter === undefined)).toEqual([]);
      expect(failures.length).toBeGreaterThan(0);
      expect(answers.filter((answer) => answer.method === 'GET').every((answer) => answer.status === 200)).toBe(true);

      const after = await request(c.app).post(api('/employees')).auth(token, { type: 'bearer' }).send(newEmployee());
      expect(after.status).toBe(201);
      const oldDb = openOn('default', databaseName);
      const newDb = openOn('eu2', databaseName);
      try {
        const newIds = (await newDb('employees').pluck('id')).map(String);
        expect(newIds).toEqual(expect.arrayContaining([...createdIds, String(after.body.id)]));
        expect(await oldDb('employees').where({ id: after.body.id }).first()).toBeUndefined();
        const [tableRows] = await oldDb.raw(
          "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'knex\\_migrations%'",
        );
        for (const { name } of tableRows as Array<{ name: string }>) {
          const before = await oldDb(name).select('*').orderByRaw('1, 2');
          const copied =
            name === 'employees'
              ? await newDb(name).whereNot({ id: after.body.id }).select('*').orderByRaw('1, 2')
              : await newDb(name).select('*').orderByRaw('1, 2');
          if (name === 'employees' || name === 'audit_log' || name === 'idempotency_keys' || name === 'webhook_outbox') {
            // Written again after the switch by the request above; the rows of before are identical.
            expect(copied.slice(0, before.length)).toEqual(before);
          } else {
            expect({ name, rows: copied }).toEqual({ name, rows: before });
          }
        }
      } finally {
        await Promise.all([oldDb.destroy(), newDb.destroy()]);
      }
    });
  });
});

describe.each(testDialects())('hrm instance create --server without DATABASE_SERVERS on %s', (dialect) => {
  it('refuses a server other than default with exit status 2', async () => {
    const c = await startCloudTestApp(dialect);
    try {
      let stderr = '';
      const code = await runCli(['instance', 'create', 'acme', '--server', 'eu1'], {
        stdout: { write: () => true },
        stderr: { write: (text: string) => (stderr += text) },
        env: { DATABASE_URL: c.control.url, DEPLOYMENT: 'cloud', LOG_LEVEL: 'silent' },
        readStdin: async () => '',
        clock: c.clock,
      });

      expect(code).toBe(2);
      expect(stderr).toMatch(
        dialect === 'mysql'
          ? /^hrm: There is no database server named eu1 \(configured: default;/
          : /^hrm: Database servers are for cloud mode on MySQL/,
      );
      expect(await listRegisteredInstances(c.control.db)).toEqual([]);
    } finally {
      await c.close();
    }
  });
});

describe.each(testDialects())('the registry as running servers re-read it, on %s', (dialect) => {
  let c: CloudTestApp;
  beforeEach(async () => {
    c = await startCloudTestApp(dialect);
  });
  afterEach(() => c.close());

  const pastRegistryCheck = () => new Promise((resolve) => setTimeout(resolve, REGISTRY_CHECK_MS + 100));
  const employee = { employee_id: 'M1', first_name: 'Mo', last_name: 'Ving', country: 'US', work_email: 'mo@example.com' };

  it('answers its writes 503 with Retry-After and writes nothing, serves its reads, and takes writes again once unmarked', async () => {
    const token = await c.createInstance('acme');
    const api = (path: string) => c.api('acme', path);
    expect((await request(c.app).get(api('/employees/me')).auth(token, { type: 'bearer' })).status).toBe(200);
    const db = await c.control.openInstanceDb('acme');
    const employeesBefore = await db('employees').count({ n: '*' });

    await markInstanceMoving(c.control.db, 'acme', c.clock.now());
    await pastRegistryCheck();
    const refused = await request(c.app).post(api('/employees')).auth(token, { type: 'bearer' }).send(employee);
    const read = await request(c.app).get(api('/employees/me')).auth(token, { type: 'bearer' });

    expect(expectProblem(refused, 503, 'service_unavailable').detail).toBe(
      'This instance is moving to another database server; try again in a few seconds',
    );
    expect(refused.headers['retry-after']).toBe('5');
    expect(await db('employees').count({ n: '*' })).toEqual(employeesBefore);
    expect(read.status).toBe(200);

    await markInstanceMoving(c.control.db, 'acme', null);
    await pastRegistryCheck();
    const created = await request(c.app).post(api('/employees')).auth(token, { type: 'bearer' }).send(employee);
    expect(created.status).toBe(201);
    expect(await db('employees').where({ employee_id: 'M1' }).first('first_name')).toEqual({ first_name: 'Mo' });
  });

  it('goes on serving an open instance when the control database stops answering', async () => {
    const token = await c.createInstance('acme');
    expect((await request(c.app).get(c.api('acme', '/employees/me')).auth(token, { type: 'bearer' })).status).toBe(200);

    await c.control.db.destroy();
    await pastRegistryCheck();
    const read = await request(c.app).get(c.api('acme', '/employees/me')).auth(token, { type: 'bearer' });

    expect(read.status).toBe(200);
  });

  it('refuses hrm --instance while it moves', async () => {
    await c.createInstance('acme');
    await markInstanceMoving(c.control.db, 'acme', c.clock.now());
    let stderr = '';
    const code = await runCli(['--instance', 'acme', 'user', 'create', '--username', 'late', '--role', 'admin'], {
      stdout: { write: () => true },
      stderr: { write: (text: string) => (stderr += text) },
      env: { DATABASE_URL: c.control.url, DEPLOYMENT: 'cloud', LOG_LEVEL: 'silent' },
      readStdin: async () => '',
      clock: c.clock,
    });

    expect({ code, stderr }).toEqual({
      code: 1,
      stderr: 'hrm: The instance acme is moving to another database server; try again when hrm instance move is done\n',
    });
    let listed = '';
    await runCli(['instance', 'list'], {
      stdout: { write: (text: string) => (listed += text) },
      stderr: { write: () => true },
      env: { DATABASE_URL: c.control.url, DEPLOYMENT: 'cloud', LOG_LEVEL: 'silent' },
      readStdin: async () => '',
      clock: c.clock,
    });
    expect(listed).toMatch(/^acme\s+default \(moving\)\s+\S+\s+\d{4}-/m);
    const db = await c.control.openInstanceDb('acme');
    expect(await db('users').where({ username: 'late' }).first()).toBeUndefined();
  });
});
