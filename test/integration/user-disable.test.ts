import request from 'supertest';
import { hashPassword } from '../../src/users/passwords';
import { runHrm } from '../helpers/cli';
import { testDialects } from '../helpers/databases';
import { createUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

const PASSWORD = 'correct horse battery staple';

describe.each(testDialects())('users of removed employees on %s', (dialect) => {
  const t = useTestApp(dialect);
  const admin = useFixture(() => createUser(t, 'admin'));
  let hash: string;
  beforeAll(async () => {
    hash = await hashPassword(PASSWORD);
  });

  const withPassword = async (role: 'admin' | 'employee') => {
    const user = await createUser(t, role);
    await t.db('users').where({ id: user.userId }).update({ password_hash: hash });
    return user;
  };
  const signIn = (username: string) =>
    request(t.app).post(t.api('/oauth/token')).send({ grant_type: 'password', username, password: PASSWORD });
  const disabledOf = async (userId: number) => Boolean((await t.db('users').where({ id: userId }).first('disabled')).disabled);

  it("refuses the password of a deleted employee's user, an admin's included: the delete disabled it", async () => {
    const deleted = await withPassword('admin');
    expect((await signIn(deleted.username)).status).toBe(200);

    const res = await request(t.app)
      .delete(t.api(`/employees/${deleted.employeeId}`))
      .auth(admin.token, { type: 'bearer' });

    expect(res.status).toBe(200);
    expect(expectProblem(await signIn(deleted.username), 400, 'invalid_grant').detail).toBe('The username or password is wrong');
    expect(await t.db('users').where({ id: deleted.userId }).first('employee_id', 'disabled')).toEqual({
      employee_id: null,
      disabled: expect.anything(),
    });
    expect(await disabledOf(deleted.userId)).toBe(true);
    expect(await t.db('api_tokens').where({ user_id: deleted.userId }).whereNull('revoked_at')).toEqual([]);
  });

  it('disables the user on termination and keeps it disabled on re-activation, until hrm user enable', async () => {
    const user = await withPassword('employee');
    const patch = (body: object) =>
      request(t.app)
        .patch(t.api(`/employees/${user.employeeId}`))
        .auth(admin.token, { type: 'bearer' })
        .send(body);

    expect((await patch({ status: 'Terminated' })).status).toBe(200);
    const whileTerminated = await signIn(user.username);
    expect((await patch({ status: 'Active' })).status).toBe(200);
    const afterReactivation = await signIn(user.username);
    const enabled = await runHrm(t, ['user', 'enable', '--username', user.username]);
    const afterEnable = await signIn(user.username);

    expectProblem(whileTerminated, 400, 'invalid_grant');
    expectProblem(afterReactivation, 400, 'invalid_grant');
    expect(enabled).toEqual({ code: 0, stdout: `Enabled ${user.username}.\n`, stderr: '' });
    expect(afterEnable.status).toBe(200);
    expect(await disabledOf(user.userId)).toBe(false);
  });

  it('leaves the user alone when a termination is refused', async () => {
    const user = await withPassword('employee');

    const res = await request(t.app)
      .patch(t.api(`/employees/${user.employeeId}`))
      .auth(admin.token, { type: 'bearer' })
      .send({ status: 'Terminated', termination_date: 'soon' });

    expect(res.status).toBe(422);
    expect(await disabledOf(user.userId)).toBe(false);
    expect((await request(t.app).get(t.api('/employees/me')).auth(user.token, { type: 'bearer' })).status).toBe(200);
  });

  describe('hrm user disable', () => {
    it('stops sign-ins and revokes every token of the user', async () => {
      const user = await withPassword('employee');

      const result = await runHrm(t, ['user', 'disable', '--username', user.username]);

      expect(result).toEqual({ code: 0, stdout: `Disabled ${user.username}; revoked 1 token(s).\n`, stderr: '' });
      expectProblem(await signIn(user.username), 400, 'invalid_grant');
      expectProblem(await request(t.app).get(t.api('/employees/me')).auth(user.token, { type: 'bearer' }), 401, 'invalid_token');
      expect(await disabledOf(user.userId)).toBe(true);
    });

    it.each(['disable', 'enable'])('%s names an unknown user and changes nothing', async (command) => {
      const result = await runHrm(t, ['user', command, '--username', 'nobody-at-all']);

      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('There is no user named nobody-at-all');
      expect(await t.db('users').where({ username: 'nobody-at-all' }).first()).toBeUndefined();
    });
  });
});
