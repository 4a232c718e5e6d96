import request from 'supertest';
import { verifyPassword } from '../../src/users/passwords';
import { testDialects } from '../helpers/databases';
import { runHrm } from '../helpers/cli';
import { createEmployee, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useTestApp } from '../helpers/test-app';

describe.each(testDialects())('the hrm CLI on %s', (dialect) => {
  const t = useTestApp(dialect, { apiEnabled: false });

  const meWith = (token: string) => request(t.app).get(t.api('/employees/me')).auth(token, { type: 'bearer' });

  async function createUserWithToken(role = 'employee'): Promise<{ username: string; employeeId: number; token: string }> {
    const employeeId = await createEmployee(t);
    const username = unique('cli');
    expect((await runHrm(t, ['user', 'create', '--username', username, '--role', role, '--employee', String(employeeId)])).code).toBe(0);
    const issued = await runHrm(t, ['token', 'issue', '--username', username]);
    return { username, employeeId, token: issued.stdout.trim() };
  }

  describe('db migrate', () => {
    it('reports an up-to-date schema', async () => {
      expect(await runHrm(t, ['db', 'migrate'])).toEqual({ code: 0, stdout: 'The database schema is up to date.\n', stderr: '' });
    });
  });

  describe('api enable | disable | status', () => {
    afterAll(() => t.setApiEnabled(true));

    it('turns the API on and off, and the running app follows', async () => {
      expect((await runHrm(t, ['api', 'status'])).stdout).toBe('disabled\n');

      const enabled = await runHrm(t, ['api', 'enable']);
      t.instance.settings.invalidate();
      const statusAfterEnable = await runHrm(t, ['api', 'status']);
      const echoWhileEnabled = await request(t.app).get(t.api('/echo'));
      await runHrm(t, ['api', 'disable']);
      t.clock.advance(1001);
      const echoAfterDisable = await request(t.app).get(t.api('/echo'));

      expect(enabled).toMatchObject({ code: 0, stdout: expect.stringContaining('enabled') });
      expect(statusAfterEnable.stdout).toBe('enabled\n');
      expect(echoWhileEnabled.status).toBe(200);
      expectProblem(echoAfterDisable, 403, 'api_disabled');
    });
  });

  describe('user create', () => {
    it('creates a user linked to an employee, with a scrypt hash of a password read from stdin', async () => {
      const employeeId = await createEmployee(t);
      const username = unique('alice');

      const result = await runHrm(
        t,
        ['user', 'create', '--username', username, '--role', 'manager', '--employee', String(employeeId), '--password-stdin'],
        { stdin: 'correct horse battery\n' },
      );

      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Created user ${username} \\(id \\d+, role manager, employee ${employeeId}\\)\\.\\n$`));
      const row = await t.db('users').where({ username }).first();
      expect(row).toMatchObject({ role: 'manager', employee_id: employeeId });
      expect(row.password_hash).toMatch(/^scrypt\$/);
      expect(await verifyPassword('correct horse battery', row.password_hash)).toBe(true);
    });

    it.each([
      [['--username', 'bad name!', '--role', 'admin'], /--username may hold/],
      [['--username', 'carol', '--role', 'admin', '--employee', '999999'], /no employee with id 999999/],
      [['--username', 'dave', '--role', 'admin', '--employee', 'x1'], /--employee must be the id/],
    ])('refuses %j with exit code 1 and creates nothing', async (args, message) => {
      const before = await t.db('users').count({ n: '*' }).first();

      const result = await runHrm(t, ['user', 'create', ...args]);

      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
      expect(await t.db('users').count({ n: '*' }).first()).toEqual(before);
    });

    it.each([
      [
        ['--username', 'bob', '--role', 'boss'],
        "hrm: option '--role <role>' argument 'boss' is invalid. Allowed choices are admin, manager, employee.\n",
      ],
      [['--role', 'admin'], "hrm: required option '--username <username>' not specified\n"],
      [['--username', 'erin', '--role', 'admin', '--colour', 'blue'], "hrm: unknown option '--colour'\n"],
    ])('refuses the usage error %j in one line and a pointer to --help, with exit code 2, and creates nothing', async (args, line) => {
      const before = await t.db('users').count({ n: '*' }).first();

      const result = await runHrm(t, ['user', 'create', ...args]);

      expect(result).toEqual({ code: 2, stdout: '', stderr: `${line}see hrm user create --help\n` });
      expect(await t.db('users').count({ n: '*' }).first()).toEqual(before);
    });

    it('refuses a short password, a taken username and an employee already linked', async () => {
      const { username, employeeId } = await createUserWithToken();

      const short = await runHrm(t, ['user', 'create', '--username', unique('p'), '--role', 'admin', '--password-stdin'], {
        stdin: 'short\n',
      });
      const taken = await runHrm(t, ['user', 'create', '--username', username.toUpperCase(), '--role', 'admin']);
      const linked = await runHrm(t, ['user', 'create', '--username', unique('x'), '--role', 'admin', '--employee', String(employeeId)]);

      expect(short).toMatchObject({ code: 1, stderr: expect.stringMatching(/^hrm: The password must be at least 12 characters\n$/) });
      expect(taken).toMatchObject({ code: 1, stderr: expect.stringMatching(/already exists/) });
      expect(linked).toMatchObject({ code: 1, stderr: expect.stringMatching(/already linked/) });
    });
  });

  describe('token issue | list | revoke', () => {
    beforeAll(() => t.setApiEnabled(true));

    it('prints only a working token on stdout', async () => {
      const { token, employeeId } = await createUserWithToken();

      expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      const res = await meWith(token);
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(String(employeeId));
    });

    it('honours --expires-in and --name', async () => {
      const { username } = await createUserWithToken();

      const issued = await runHrm(t, ['token', 'issue', '--username', username, '--expires-in', '2h', '--name', 'payroll export']);
      const row = await t.db('api_tokens').orderBy('created_at', 'desc').where({ name: 'payroll export' }).first();

      expect(issued.code).toBe(0);
      const lifetime =
        new Date(`${row.expires_at.replace(' ', 'T')}Z`).getTime() - new Date(`${row.created_at.replace(' ', 'T')}Z`).getTime();
      expect(lifetime).toBe(2 * 3600 * 1000);
      t.clock.advance(2 * 3600 * 1000 + 1000);
      expectProblem(await meWith(issued.stdout.trim()), 401, 'invalid_token');
    });

    it('lists token ids and states, never the tokens', async () => {
      const { username, token } = await createUserWithToken();

      const result = await runHrm(t, ['token', 'list', '--username', username]);

      expect(result.code).toBe(0);
      const [header, line] = result.stdout.trim().split('\n');
      expect(header).toMatch(/^ID\s+STATUS\s+CREATED\s+EXPIRES\s+LAST USED\s+NAME$/);
      expect(line).toMatch(/^[0-9a-f-]{36}\s+active\s/);
      expect(result.stdout).not.toContain(token);
    });

    it('revokes a token by id, effective at once', async () => {
      const { username, token } = await createUserWithToken();
      const list = await runHrm(t, ['token', 'list', '--username', username]);
      const tokenId = list.stdout.split('\n')[1]?.split(/\s+/)[0] ?? '';

      const revoked = await runHrm(t, ['token', 'revoke', tokenId]);
      const again = await runHrm(t, ['token', 'revoke', tokenId]);

      expect(revoked).toEqual({ code: 0, stdout: `Revoked token ${tokenId}.\n`, stderr: '' });
      expectProblem(await meWith(token), 401, 'invalid_token');
      expect(again).toMatchObject({ code: 1, stderr: `hrm: There is no unrevoked token with id ${tokenId}\n` });
      expect((await runHrm(t, ['token', 'list', '--username', username])).stdout).toMatch(/revoked/);
    });

    it.each([
      [['--username', 'nobody-here'], /no user named nobody-here/],
      [['--username', 'x', '--expires-in', '10 days'], /--expires-in must be a duration/],
      [['--username', 'x', '--expires-in', '0d'], /--expires-in must be a duration/],
    ])('refuses %j', async (args, message) => {
      const result = await runHrm(t, ['token', 'issue', ...args]);

      expect(result).toMatchObject({ code: 1, stdout: '', stderr: expect.stringMatching(message) });
    });

    it('refuses to issue a token to a disabled user', async () => {
      const { username } = await createUserWithToken();
      await t.db('users').where({ username }).update({ disabled: true });

      expect(await runHrm(t, ['token', 'issue', '--username', username])).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/disabled/),
      });
    });
  });

  describe('seed', () => {
    it('adds realistic employees with a reporting hierarchy', async () => {
      const before = Number((await t.db('employees').count({ n: '*' }).first())?.n);

      const result = await runHrm(t, ['seed', '--employees', '120']);

      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Added 120 employees \(ids \d+-\d+\) in [\d.]+ s\.\n$/);
      const seeded = await t.db('employees').where('employee_id', 'like', 'EMP%').select();
      expect(seeded).toHaveLength(120);
      expect(Number((await t.db('employees').count({ n: '*' }).first())?.n)).toBe(before + 120);
      const ids = new Set(seeded.map((row) => row.id));
      const withSupervisor = seeded.filter((row) => row.supervisor_id !== null);
      expect(withSupervisor).toHaveLength(119);
      expect(withSupervisor.every((row) => ids.has(row.supervisor_id))).toBe(true);
      expect(seeded.every((row) => /^[^@\s]+@example\.com$/.test(row.work_email) && row.department_id !== null)).toBe(true);
    });

    it('refuses a count that is not a whole number', async () => {
      expect(await runHrm(t, ['seed', '--employees', 'many'])).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/--employees must be/),
      });
    });
  });

  it('names the variable when the configuration is invalid', async () => {
    const result = await runHrm(t, ['api', 'status'], { env: { PORT: 'eighty' } });

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^hrm: Invalid configuration: PORT /);
  });

  it.each([
    [['frobnicate'], "hrm: unknown command 'frobnicate'\nsee hrm --help\n"],
    [['api', 'status', 'now'], "hrm: too many arguments for 'status'. Expected 0 arguments but got 1.\nsee hrm api status --help\n"],
  ])('answers the usage error %j in one line and a pointer to --help, with exit code 2', async (argv, stderr) => {
    expect(await runHrm(t, argv)).toEqual({ code: 2, stdout: '', stderr });
  });

  it('prints help and exits 0', async () => {
    const result = await runHrm(t, ['--help']);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Usage: hrm/);
    expect(result.stdout).toMatch(/token/);
  });
});
