import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { runCli } from '../../src/cli/program';
import { instancesDirectoryOf, listRegisteredInstances } from '../../src/instances/registry';
import type { CliResult } from '../helpers/cli';
import { startCloudTestApp, type CloudTestApp } from '../helpers/cloud-app';
import { testDialects } from '../helpers/databases';
import { expectProblem } from '../helpers/problem';

const TOKEN_LINE = /^\s+(eyJ[\w-]+\.[\w-]+\.[\w-]+)$/m;

describe.each(testDialects())('the hrm CLI in cloud mode on %s', (dialect) => {
  let c: CloudTestApp;
  beforeAll(async () => {
    c = await startCloudTestApp(dialect);
  });
  afterAll(() => c.close());

  async function hrm(argv: string[], env: Record<string, string> = {}): Promise<CliResult> {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: { DATABASE_URL: c.control.url, DEPLOYMENT: 'cloud', LOG_LEVEL: 'silent', ...env },
      readStdin: async () => '',
      clock: c.clock,
    });
    return { code, stdout, stderr };
  }

  const registeredNames = async () => (await listRegisteredInstances(c.control.db)).map((row) => row.name);
  const instanceDatabases = async () =>
    dialect === 'mysql'
      ? c.control.instanceSchemas()
      : fs.readdirSync(instancesDirectoryOf((c.control.config as { filename: string }).filename));

  describe('instance create', () => {
    it('creates the database, prints the admin token once and how to enable the API, which then works', async () => {
      const created = await hrm(['instance', 'create', 'acme-hr']);
      const token = TOKEN_LINE.exec(created.stdout)?.[1] as string;

      expect(created.code).toBe(0);
      expect(created.stderr).toBe('');
      expect(created.stdout).toMatch(
        /^Created instance acme-hr \(database \S+ on server default\) and its user "admin" \(linked to employee 1\)\.\n/,
      );
      expect(created.stdout).toContain('The REST API is disabled on acme-hr. Enable it with:\n\n  hrm --instance acme-hr api enable\n');
      expect(token).toBeDefined();
      expect(await registeredNames()).toContain('acme-hr');
      expect(await instanceDatabases()).toContainEqual(dialect === 'mysql' ? expect.stringMatching(/_acme_hr$/) : 'acme-hr.sqlite');

      expectProblem(await request(c.app).get(c.api('acme-hr', '/echo')).auth(token, { type: 'bearer' }), 403, 'api_disabled');
      expect(await hrm(['--instance', 'acme-hr', 'api', 'enable'])).toMatchObject({ code: 0, stdout: expect.stringContaining('enabled') });
      c.clock.advance(1001);
      const me = await request(c.app).get(c.api('acme-hr', '/employees/me')).auth(token, { type: 'bearer' });
      expect(me.status).toBe(200);
      expect(me.body.employee_id).toBe('ADMIN');
    });

    it.each([
      ['upper case', 'Acme'],
      ['an underscore', 'ac_me'],
      ['one character', 'a'],
      ['a leading dash', '-acme'],
      ['64 characters', 'a'.repeat(64)],
      ['a path', '../etc'],
    ])('refuses a name with %s and creates nothing', async (_case, name) => {
      const before = await instanceDatabases();

      const result = await hrm(['instance', 'create', '--', name]);

      expect(result).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(/^hrm: An instance name is 2 to 63 characters/) });
      expect(await registeredNames()).not.toContain(name);
      expect(await instanceDatabases()).toEqual(before);
    });

    it('refuses a name already taken and leaves the first instance alone', async () => {
      const first = await hrm(['instance', 'create', 'taken']);
      const token = TOKEN_LINE.exec(first.stdout)?.[1] as string;

      const again = await hrm(['instance', 'create', 'taken']);

      expect(again).toEqual({ code: 1, stdout: '', stderr: 'hrm: An instance named taken already exists\n' });
      await hrm(['--instance', 'taken', 'api', 'enable']);
      c.clock.advance(1001);
      expect((await request(c.app).get(c.api('taken', '/employees/me')).auth(token, { type: 'bearer' })).status).toBe(200);
    });

    it('refuses to take over a database that already exists, and does not drop it', async () => {
      const before = await instanceDatabases();
      let existing: string;
      if (dialect === 'mysql') {
        existing = `${new URL(c.control.url).pathname.slice(1)}_squatted`;
        await c.control.db.raw('CREATE DATABASE ??', [existing]);
      } else {
        existing = path.join(instancesDirectoryOf((c.control.config as { filename: string }).filename), 'squatted.sqlite');
        fs.writeFileSync(existing, '');
      }

      const result = await hrm(['instance', 'create', 'squatted']);

      expect(result).toMatchObject({ code: 1, stdout: '', stderr: expect.stringMatching(/already exists; (drop|move) it/) });
      expect(await registeredNames()).not.toContain('squatted');
      expect((await instanceDatabases()).length).toBe(before.length + 1);
    });
  });

  it('lists the instances with their databases', async () => {
    await hrm(['instance', 'create', 'listed']);

    const result = await hrm(['instance', 'list']);

    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SERVER\s+DATABASE\s+CREATED$/);
    expect(lines.find((line) => line.startsWith('listed '))).toMatch(/^listed\s+default\s+\S+\s+\d{4}-\d\d-\d\dT[\d:.]+Z$/);
  });

  it('issues tokens on the named instance only', async () => {
    await hrm(['instance', 'create', 'left']);
    await hrm(['instance', 'create', 'right']);
    await hrm(['--instance', 'left', 'api', 'enable']);
    await hrm(['--instance', 'right', 'api', 'enable']);
    c.clock.advance(1001);
    expect((await hrm(['--instance', 'left', 'user', 'create', '--username', 'lena', '--role', 'employee', '--employee', '1'])).code).toBe(
      1,
    );
    expect((await hrm(['--instance', 'left', 'user', 'create', '--username', 'lena', '--role', 'admin'])).code).toBe(0);

    const issued = await hrm(['--instance', 'left', 'token', 'issue', '--username', 'lena']);
    const onRight = await hrm(['--instance', 'right', 'token', 'issue', '--username', 'lena']);
    const token = issued.stdout.trim();

    expect(issued.code).toBe(0);
    expect(onRight).toMatchObject({ code: 1, stderr: 'hrm: There is no user named lena\n' });
    expect((await request(c.app).get(c.api('left', '/echo')).auth(token, { type: 'bearer' })).status).toBe(200);
    expectProblem(await request(c.app).get(c.api('right', '/echo')).auth(token, { type: 'bearer' }), 401, 'invalid_token');
  });

  it.each([
    [['api', 'status'], 'hrm: In cloud mode, name the instance: hrm --instance <name> ... (hrm instance list shows them)\n'],
    [['--instance', 'nobody', 'api', 'status'], 'hrm: There is no instance named nobody (hrm instance list shows them)\n'],
    [['--instance', 'NOT_A_NAME', 'db', 'migrate'], 'hrm: There is no instance named NOT_A_NAME (hrm instance list shows them)\n'],
    [['--instance', 'listed', 'instance', 'list'], 'hrm: hrm instance commands do not take --instance\n'],
  ])('refuses %j with one line and exit code 1', async (argv, message) => {
    expect(await hrm(argv)).toEqual({ code: 1, stdout: '', stderr: message });
  });

  it('takes --instance after the command too', async () => {
    expect(await hrm(['api', 'status', '--instance', 'listed'])).toEqual({ code: 0, stdout: 'disabled\n', stderr: '' });
  });

  it('refuses --instance and instance commands when self-hosted', async () => {
    const selfHosted = { DEPLOYMENT: 'self-hosted' };

    expect(await hrm(['--instance', 'listed', 'api', 'status'], selfHosted)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'hrm: --instance is only for cloud mode (DEPLOYMENT=cloud)\n',
    });
    expect(await hrm(['instance', 'create', 'solo'], selfHosted)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'hrm: Instances exist only in cloud mode (DEPLOYMENT=cloud)\n',
    });
    expect(await registeredNames()).not.toContain('solo');
  });
});
