import jwt from 'jsonwebtoken';
import request from 'supertest';
import { signAccessToken, signingKeyFrom } from '../../src/tokens/tokens';
import { testDialects } from '../helpers/databases';
import { createUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useTestApp } from '../helpers/test-app';

const CHALLENGE = 'Bearer realm="hrm"';
const INVALID_TOKEN_CHALLENGE = 'Bearer realm="hrm", error="invalid_token"';

describe.each(testDialects())('bearer authentication on %s', (dialect) => {
  const t = useTestApp(dialect);

  const me = (authorization?: string) => {
    const req = request(t.app).get(t.api('/employees/me'));
    return authorization === undefined ? req : req.set('Authorization', authorization);
  };

  it('lets a valid token through', async () => {
    const user = await createUser(t, 'employee');

    const res = await me(`Bearer ${user.token}`);

    expect(res.status).toBe(200);
    expect(res.body.id).toBe(String(user.employeeId));
  });

  it('answers 401 with a bare challenge when no token is sent', async () => {
    const res = await me();

    expectProblem(res, 401, 'unauthorized');
    expect(res.headers['www-authenticate']).toBe(CHALLENGE);
  });

  it.each([
    ['a garbage token', 'Bearer garbage'],
    ['a non-JWT token with dots', 'Bearer a.b.c'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['the scheme without a token', 'Bearer'],
  ])('answers 401 invalid_token for %s', async (_name, header) => {
    const res = await me(header);

    expectProblem(res, 401, 'invalid_token');
    expect(res.headers['www-authenticate']).toBe(INVALID_TOKEN_CHALLENGE);
  });

  it('answers 401 for a token signed with another secret', async () => {
    const user = await createUser(t, 'admin');
    const forged = signAccessToken(signingKeyFrom('x'.repeat(64)), {
      userId: user.userId,
      tokenId: user.tokenId,
      issuedAt: t.clock.now(),
      expiresAt: new Date(t.clock.now().getTime() + 3600_000),
    });

    const res = await me(`Bearer ${forged}`);

    expectProblem(res, 401, 'invalid_token');
  });

  it('answers 401 for an unsigned ("alg": "none") token', async () => {
    const user = await createUser(t, 'admin');
    const claims = jwt.decode(user.token) as Record<string, unknown>;
    const unsigned = jwt.sign(claims, '', { algorithm: 'none' });

    const res = await me(`Bearer ${unsigned}`);

    expectProblem(res, 401, 'invalid_token');
  });

  it('answers 401 once the token has expired, and says so', async () => {
    const user = await createUser(t, 'employee', { lifetimeSeconds: 60 });
    expect((await me(`Bearer ${user.token}`)).status).toBe(200);

    t.clock.advance(61_000);
    const res = await me(`Bearer ${user.token}`);

    const body = expectProblem(res, 401, 'invalid_token');
    expect(body.detail).toMatch(/expired/);
  });

  it('answers 401 at once after the token is revoked', async () => {
    const user = await createUser(t, 'employee');
    expect((await me(`Bearer ${user.token}`)).status).toBe(200);

    await t.db('api_tokens').where({ id: user.tokenId }).update({ revoked_at: '2026-01-01 00:00:00.000' });
    const res = await me(`Bearer ${user.token}`);

    const body = expectProblem(res, 401, 'invalid_token');
    expect(body.detail).toMatch(/revoked/);
  });

  it('answers 401 when the token row no longer exists', async () => {
    const user = await createUser(t, 'employee');
    await t.db('api_tokens').where({ id: user.tokenId }).delete();

    expectProblem(await me(`Bearer ${user.token}`), 401, 'invalid_token');
  });

  it('answers 401 when the token row expires before the JWT says', async () => {
    const user = await createUser(t, 'employee');
    await t.db('api_tokens').where({ id: user.tokenId }).update({ expires_at: '2000-01-01 00:00:00.000' });

    expectProblem(await me(`Bearer ${user.token}`), 401, 'invalid_token');
  });

  it('answers 401 when the token claims another user than its row', async () => {
    const victim = await createUser(t, 'admin');
    const attacker = await createUser(t, 'employee');
    await t.db('api_tokens').where({ id: attacker.tokenId }).update({ user_id: victim.userId });

    expectProblem(await me(`Bearer ${attacker.token}`), 401, 'invalid_token');
  });

  it('answers 401 for a disabled user', async () => {
    const user = await createUser(t, 'admin');
    await t.db('users').where({ id: user.userId }).update({ disabled: true });

    const body = expectProblem(await me(`Bearer ${user.token}`), 401, 'invalid_token');
    expect(body.detail).toMatch(/disabled/);
  });

  it("answers 401 when the user's employee is terminated", async () => {
    const user = await createUser(t, 'employee', { employee: { status: 'Terminated', termination_date: '2026-01-31' } });

    const body = expectProblem(await me(`Bearer ${user.token}`), 401, 'invalid_token');
    expect(body.detail).toMatch(/terminated/);
  });

  it('does not accept a token in the query string', async () => {
    const user = await createUser(t, 'employee');

    const res = await request(t.app).get(t.api(`/employees/me?access_token=${user.token}`));

    const body = expectProblem(res, 401, 'invalid_token');
    expect(body.detail).toMatch(/query string/);
  });

  it('protects unknown paths too: 401 before 404, so routes are not probed without a token', async () => {
    expectProblem(await request(t.app).get(t.api('/no-such-route')), 401, 'unauthorized');
  });
});
