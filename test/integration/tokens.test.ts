import jwt from 'jsonwebtoken';
import request from 'supertest';
import { hashPassword } from '../../src/users/passwords';
import { testDialects } from '../helpers/databases';
import { runHrm } from '../helpers/cli';
import { createUser, type TestUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useTestApp } from '../helpers/test-app';

const PASSWORD = 'correct horse battery staple';

describe.each(testDialects())('tokens for users themselves on %s', (dialect) => {
  const t = useTestApp(dialect);
  let hash: string;
  beforeAll(async () => {
    hash = await hashPassword(PASSWORD);
  });

  const withPassword = async (role: 'admin' | 'employee' = 'employee', employee?: object) => {
    const user = await createUser(t, role, employee ? { employee } : {});
    await t.db('users').where({ id: user.userId }).update({ password_hash: hash });
    return user;
  };
  const grant = (body: Record<string, string>, as: 'json' | 'form' = 'json') => {
    const req = request(t.app).post(t.api('/oauth/token'));
    return as === 'json' ? req.send(body) : req.type('form').send(new URLSearchParams(body).toString());
  };
  const me = (token: string) => request(t.app).get(t.api('/employees/me')).auth(token, { type: 'bearer' });

  describe('POST /oauth/token', () => {
    it.each(['json', 'form'] as const)('issues a working token for the right password (%s body)', async (as) => {
      const user = await withPassword();

      const res = await grant({ grant_type: 'password', username: user.username, password: PASSWORD, client_id: 'payroll' }, as);

      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.pragma).toBe('no-cache');
      expect(res.body).toEqual({
        access_token: expect.any(String),
        token_type: 'bearer',
        expires_in: 180 * 86400,
        scope: 'employee',
        id: expect.any(String),
      });
      expect(jwt.decode(res.body.access_token)).toMatchObject({ sub: String(user.userId), jti: res.body.id });
      expect((await me(res.body.access_token)).body.id).toBe(String(user.employeeId));
    });

    it('takes the username in any case', async () => {
      const user = await withPassword();

      expect((await grant({ grant_type: 'password', username: user.username.toUpperCase(), password: PASSWORD })).status).toBe(200);
    });

    it('answers the same 400 invalid_grant for a wrong password, an unknown user, a disabled user, a terminated employee and a user without a password', async () => {
      const wrong = await withPassword();
      const disabled = await withPassword();
      await t.db('users').where({ id: disabled.userId }).update({ disabled: true });
      const terminated = await withPassword('employee', { status: 'Terminated', termination_date: '2026-01-01' });
      const noPassword = await createUser(t, 'employee');
      const tokensBefore = Number((await t.db('api_tokens').count({ n: '*' }).first())?.n);

      const answers = [
        await grant({ grant_type: 'password', username: wrong.username, password: 'wrong password!' }),
        await grant({ grant_type: 'password', username: 'nobody-at-all', password: PASSWORD }),
        await grant({ grant_type: 'password', username: disabled.username, password: PASSWORD }),
        await grant({ grant_type: 'password', username: terminated.username, password: PASSWORD }),
        await grant({ grant_type: 'password', username: noPassword.username, password: PASSWORD }),
      ];

      for (const res of answers) expect(expectProblem(res, 400, 'invalid_grant').detail).toBe('The username or password is wrong');
      expect(Number((await t.db('api_tokens').count({ n: '*' }).first())?.n)).toBe(tokensBefore);
    });

    it('answers a form of more than 20 fields 400 invalid_body, as the document says, and takes one of 20', async () => {
      const user = await withPassword();
      const fields = (count: number) => {
        const body: Record<string, string> = { grant_type: 'password', username: user.username, password: PASSWORD };
        for (let extra = 1; Object.keys(body).length < count; extra++) body[`f${extra}`] = '1';
        return body;
      };

      expect((await grant(fields(20), 'form')).status).toBe(200);
      const refused = expectProblem(await grant(fields(21), 'form'), 400, 'invalid_body');
      expect(refused.detail).toBe('A form body holds at most 20 fields');
    });

    it('answers 400 unsupported_grant_type and invalid_request naming the missing fields', async () => {
      expectProblem(await grant({ grant_type: 'client_credentials', username: 'a', password: 'b' }), 400, 'unsupported_grant_type');
      const missing = expectProblem(await grant({ grant_type: 'password' }), 400, 'invalid_request');
      expect(missing.errors.map((error: { field: string }) => error.field)).toEqual(['username', 'password']);
    });

    it('refuses other body types with 415', async () => {
      const res = await request(t.app).post(t.api('/oauth/token')).set('Content-Type', 'text/plain').send('grant_type=password');

      expectProblem(res, 415, 'unsupported_media_type');
    });

    it('limits failures per username and client: the sixth try in 15 minutes is 429, even with the right password', async () => {
      const user = await withPassword();
      for (let attempt = 0; attempt < 5; attempt++) {
        expect((await grant({ grant_type: 'password', username: user.username, password: `wrong ${attempt}` })).status).toBe(400);
      }

      const blocked = await grant({ grant_type: 'password', username: user.username, password: PASSWORD });

      expectProblem(blocked, 429, 'rate_limited');
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(900);
    });

    it('refuses usernames outside the username pattern (a trailing space is "carol" on MariaDB) with 400, issuing nothing', async () => {
      const user = await withPassword();
      const tokensBefore = Number((await t.db('api_tokens').count({ n: '*' }).first())?.n);

      for (const variant of [
        `${user.username} `,
        ` ${user.username}`,
        `${user.username}\u00a0`,
        `${user.username}\t`,
        `${user.username}%`,
      ]) {
        const res = await grant({ grant_type: 'password', username: variant, password: PASSWORD });

        const body = expectProblem(res, 400, 'invalid_request');
        expect(body.errors).toEqual([{ field: 'username', message: 'may hold letters, digits and . _ @ - (at most 100 characters)' }]);
      }
      expect(Number((await t.db('api_tokens').count({ n: '*' }).first())?.n)).toBe(tokensBefore);
    });

    it('keys the per-user lock on the user found: another spelling of a locked name is 429 too', async () => {
      const user = await withPassword();
      for (let attempt = 0; attempt < 5; attempt++) {
        expect((await grant({ grant_type: 'password', username: user.username, password: `wrong ${attempt}` })).status).toBe(400);
      }

      const variants = [user.username.toUpperCase(), `${user.username} `];
      const answers = await Promise.all(variants.map((username) => grant({ grant_type: 'password', username, password: PASSWORD })));

      expectProblem(answers[0] as request.Response, 429, 'rate_limited');
      expect((answers[1] as request.Response).status).toBe(400);
      expect(await t.db('api_tokens').where({ user_id: user.userId }).count({ n: '*' }).first()).toEqual({ n: 1 });
    });

    it('does not count successful sign-ins as failures', async () => {
      const user = await withPassword();

      for (let attempt = 0; attempt < 7; attempt++) {
        expect((await grant({ grant_type: 'password', username: user.username, password: PASSWORD })).status).toBe(200);
      }
    });
  });

  describe('POST /tokens (rotation)', () => {
    it('issues a new token and revokes the one that asked', async () => {
      const user = await createUser(t, 'employee');

      const res = await request(t.app)
        .post(t.api('/tokens'))
        .auth(user.token, { type: 'bearer' })
        .send({ name: 'laptop', expires_in: 3600 });

      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(t.api(`/tokens/${res.body.id}`));
      expect(res.body).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'employee' });
      expect((await me(res.body.access_token)).status).toBe(200);
      expectProblem(await me(user.token), 401, 'invalid_token');
      expect(await t.db('api_tokens').where({ id: res.body.id }).first('name')).toEqual({ name: 'laptop' });
    });

    it('works without a body and rejects bad values with 422, issuing nothing', async () => {
      const user = await createUser(t, 'employee');
      const bad = await request(t.app).post(t.api('/tokens')).auth(user.token, { type: 'bearer' }).send({ expires_in: 5, colour: 'red' });
      const count = Number((await t.db('api_tokens').where({ user_id: user.userId }).count({ n: '*' }).first())?.n);

      expect(expectProblem(bad, 422, 'validation_failed').errors.map((error: { field: string }) => error.field)).toEqual([
        'expires_in',
        'colour',
      ]);
      expect(count).toBe(1);
      expect((await request(t.app).post(t.api('/tokens')).auth(user.token, { type: 'bearer' })).status).toBe(201);
    });
  });

  describe('GET /tokens/{id}', () => {
    it("answers what POST /tokens's Location names: the new token's metadata, never the token string", async () => {
      const user = await createUser(t, 'employee');
      const rotated = await request(t.app)
        .post(t.api('/tokens'))
        .auth(user.token, { type: 'bearer' })
        .send({ name: 'laptop', expires_in: 3600 });

      const res = await request(t.app)
        .get(rotated.headers.location as string)
        .auth(rotated.body.access_token, { type: 'bearer' });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: rotated.body.id,
        name: 'laptop',
        created_at: t.clock.now().toISOString(),
        expires_at: new Date(t.clock.now().getTime() + 3600_000).toISOString(),
        revoked_at: null,
        last_used_at: expect.any(String),
        state: 'active',
        current: true,
      });
      expect(res.text).not.toContain(rotated.body.access_token);
    });

    it("answers a revoked token of the caller's as revoked, and 404 for an unknown or malformed id", async () => {
      const user = await createUser(t, 'employee');
      const get = (id: string) =>
        request(t.app)
          .get(t.api(`/tokens/${id}`))
          .auth(user.token, { type: 'bearer' });
      const mine = (await runHrm(t, ['token', 'issue', '--username', user.username])).stdout.trim();
      const mineId = (jwt.decode(mine) as { jti: string }).jti;
      await request(t.app)
        .delete(t.api(`/tokens/${mineId}`))
        .auth(user.token, { type: 'bearer' });

      expect((await get(mineId)).body).toMatchObject({
        id: mineId,
        state: 'revoked',
        current: false,
        revoked_at: t.clock.now().toISOString(),
      });
      expectProblem(await get('00000000-0000-4000-8000-000000000000'), 404, 'not_found');
      expectProblem(await get('not-a-token'), 404, 'not_found');
    });

    it("answers 404 for someone else's token to non-admins, exactly as for an unknown one, and the token to admins", async () => {
      const user = await createUser(t, 'employee');
      const manager = await createUser(t, 'manager');
      const admin = await createUser(t, 'admin');
      const get = (as: TestUser) =>
        request(t.app)
          .get(t.api(`/tokens/${user.tokenId}`))
          .auth(as.token, { type: 'bearer' });

      const unknown = await request(t.app)
        .get(t.api('/tokens/00000000-0000-4000-8000-000000000000'))
        .auth(manager.token, { type: 'bearer' });
      const asManager = await get(manager);
      const asAdmin = await get(admin);

      expect(expectProblem(asManager, 404, 'not_found').detail).toBe(expectProblem(unknown, 404, 'not_found').detail);
      expect(asAdmin.status).toBe(200);
      expect(asAdmin.body).toMatchObject({ id: user.tokenId, state: 'active', current: false });
    });
  });

  describe('GET /tokens and DELETE /tokens/{id}', () => {
    it('pages in SQL, newest first: page 2 of 2 per page is the third and fourth newest, with the total', async () => {
      const user = await createUser(t, 'employee');
      for (const name of ['t1', 't2', 't3', 't4']) {
        t.clock.advance(1000);
        await runHrm(t, ['token', 'issue', '--username', user.username, '--name', name]);
      }
      const selects: string[] = [];
      const onQuery = (query: { sql: string }) => {
        if (/from [`"]api_tokens[`"]/i.test(query.sql) && /^select [`"]id[`"]/i.test(query.sql)) selects.push(query.sql);
      };
      t.db.on('query', onQuery);

      const res = await request(t.app).get(t.api('/tokens?limit=2&page=2')).auth(user.token, { type: 'bearer' });
      t.db.off('query', onQuery);

      expect(res.status).toBe(200);
      expect(res.body.total).toBe(5);
      expect(res.body.nextPage).toBe(3);
      expect(res.body.data.map((token: { name: string }) => token.name)).toEqual(['t2', 't1']);
      expect(selects).toHaveLength(1);
      expect(selects[0]).toMatch(/limit \?/i);
      expectProblem(await request(t.app).get(t.api('/tokens?limit=201')).auth(user.token, { type: 'bearer' }), 400, 'invalid_query');
    });

    it("lists the caller's tokens without the token strings, marking the current one", async () => {
      const user = await createUser(t, 'employee');
      const second = await runHrm(t, ['token', 'issue', '--username', user.username, '--name', 'cli']);

      const res = await request(t.app).get(t.api('/tokens')).auth(user.token, { type: 'bearer' });

      expect(res.status).toBe(200);
      expect(res.body.total).toBe(2);
      expect(res.body.data).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ id: user.tokenId, current: true, state: 'active' }),
          expect.objectContaining({ name: 'cli', current: false, state: 'active' }),
        ]),
      );
      expect(JSON.stringify(res.body)).not.toContain(second.stdout.trim());
      expect(JSON.stringify(res.body)).not.toContain(user.token);
    });

    it('lets a user revoke their own token, at once', async () => {
      const user = await createUser(t, 'employee');
      const other = (await runHrm(t, ['token', 'issue', '--username', user.username])).stdout.trim();
      const otherId = (jwt.decode(other) as { jti: string }).jti;

      const res = await request(t.app)
        .delete(t.api(`/tokens/${otherId}`))
        .auth(user.token, { type: 'bearer' });

      expect(res.body).toEqual({ id: otherId });
      expectProblem(await me(other), 401, 'invalid_token');
    });

    it("answers 404 for someone else's token, and 403 for listing someone else's, to non-admins", async () => {
      const user = await createUser(t, 'employee');
      const victim = await createUser(t, 'employee');

      expectProblem(
        await request(t.app)
          .delete(t.api(`/tokens/${victim.tokenId}`))
          .auth(user.token, { type: 'bearer' }),
        404,
        'not_found',
      );
      expectProblem(
        await request(t.app)
          .get(t.api(`/tokens?username=${victim.username}`))
          .auth(user.token, { type: 'bearer' }),
        403,
        'forbidden',
      );
      expect((await me(victim.token)).status).toBe(200);
    });

    it("lets an admin list and revoke anyone's tokens", async () => {
      const admin = await createUser(t, 'admin');
      const user = await createUser(t, 'employee');

      const list = await request(t.app)
        .get(t.api(`/tokens?username=${user.username}`))
        .auth(admin.token, { type: 'bearer' });
      const revoked = await request(t.app)
        .delete(t.api(`/tokens/${user.tokenId}`))
        .auth(admin.token, { type: 'bearer' });

      expect(list.body.data.map((token: { id: string }) => token.id)).toEqual([user.tokenId]);
      expect(revoked.body).toEqual({ id: user.tokenId });
      expectProblem(await me(user.token), 401, 'invalid_token');
    });
  });

  describe('last_used_at', () => {
    it('is set on use and updated at most once a minute', async () => {
      const user = await createUser(t, 'employee');
      const lastUsed = async () => (await t.db('api_tokens').where({ id: user.tokenId }).first('last_used_at')).last_used_at;

      await me(user.token);
      const first = await lastUsed();
      t.clock.advance(30_000);
      await me(user.token);
      const withinMinute = await lastUsed();
      t.clock.advance(31_000);
      await me(user.token);
      const afterMinute = await lastUsed();

      expect(first).not.toBeNull();
      expect(withinMinute).toBe(first);
      expect(afterMinute).not.toBe(first);
    });

    it('is written once for requests of one token that arrive together', async () => {
      const user = await createUser(t, 'employee');
      const writes: string[] = [];
      const onQuery = (query: { sql: string }) => {
        if (/^update [`"]api_tokens[`"] set [`"]last_used_at[`"]/i.test(query.sql)) writes.push(query.sql);
      };
      t.db.on('query', onQuery);

      const answers = await Promise.all(Array.from({ length: 8 }, () => me(user.token)));
      t.db.off('query', onQuery);

      expect(answers.map((res) => res.status)).toEqual(Array(8).fill(200));
      expect(writes).toHaveLength(1);
      expect((await t.db('api_tokens').where({ id: user.tokenId }).first('last_used_at')).last_used_at).not.toBeNull();
    });
  });

  describe('last_used_at, in waves', () => {
    it("is written once for a token's requests in overlapping waves (some read the row before the write committed)", async () => {
      const user = await createUser(t, 'employee');
      const writes: string[] = [];
      const onQuery = (query: { sql: string }) => {
        if (/^update [`"]api_tokens[`"] set [`"]last_used_at[`"]/i.test(query.sql)) writes.push(query.sql);
      };
      t.db.on('query', onQuery);
      const waves: Array<Promise<request.Response[]>> = [];
      for (let wave = 0; wave < 6; wave++) {
        waves.push(Promise.all(Array.from({ length: 6 }, () => me(user.token))));
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
      const answers = (await Promise.all(waves)).flat();
      t.db.off('query', onQuery);

      expect(answers.map((res) => res.status)).toEqual(Array(36).fill(200));
      expect(writes).toHaveLength(1);
    });
  });

  describe('hrm user set-password', () => {
    it('sets a password the user can then sign in with', async () => {
      const user = await createUser(t, 'employee');

      const result = await runHrm(t, ['user', 'set-password', '--username', user.username], { stdin: 'a brand new passphrase\n' });

      expect(result).toEqual({ code: 0, stdout: `Password set for ${user.username}.\n`, stderr: '' });
      expect((await grant({ grant_type: 'password', username: user.username, password: 'a brand new passphrase' })).status).toBe(200);
    });

    it('refuses an unknown user and a short password', async () => {
      const user = await createUser(t, 'employee');

      expect(await runHrm(t, ['user', 'set-password', '--username', 'nobody-here'], { stdin: 'long enough password\n' })).toMatchObject({
        code: 1,
      });
      expect(await runHrm(t, ['user', 'set-password', '--username', user.username], { stdin: 'short\n' })).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/at least 12/),
      });
    });
  });
});

// An app of its own: the burst's failures count against 127.0.0.1, which the other tests sign in from.
describe.each(testDialects())('POST /oauth/token under a burst of attempts on %s', (dialect) => {
  const t = useTestApp(dialect);

  it('lets no more attempts than the limit reach the password check, however many arrive at once', async () => {
    const user = await createUser(t, 'employee');
    await t
      .db('users')
      .where({ id: user.userId })
      .update({ password_hash: await hashPassword(PASSWORD) });
    const attempts = Array.from({ length: 40 }, (_, index) =>
      request(t.app)
        .post(t.api('/oauth/token'))
        .send({ grant_type: 'password', username: user.username, password: index === 39 ? PASSWORD : `wrong ${index}` }),
    );

    const statuses = (await Promise.all(attempts)).map((res) => res.status);

    // 5 attempts per username and address: the others are refused before their password is looked at.
    expect(statuses.filter((status) => status !== 429).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(35);
  });
});
