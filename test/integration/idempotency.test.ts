import request from 'supertest';
import { toSqlDateTime } from '../../src/db/sql-time';
import { requestHashOf, sha256 } from '../../src/idempotency/idempotent';
import { testDialects } from '../helpers/databases';
import { createUser, type TestUser, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

describe.each(testDialects())('Idempotency-Key on %s', (dialect) => {
  const t = useTestApp(dialect);
  const admin = useFixture(() => createUser(t, 'admin'));

  const create = (key: string, body: object, user: TestUser = admin) =>
    request(t.app).post(t.api('/employees')).auth(user.token, { type: 'bearer' }).set('Idempotency-Key', key).send(body);
  const employeeCount = async () => Number((await t.db('employees').count({ n: '*' }).first())?.n);
  const newBody = () => ({ employee_id: unique('IK'), first_name: 'Idem', last_name: 'Potent' });

  it('answers a retry with the first response and creates nothing more', async () => {
    const key = unique('key-');
    const body = newBody();
    const first = await create(key, body);
    const count = await employeeCount();

    const retry = await create(key, { last_name: 'Potent', first_name: 'Idem', employee_id: body.employee_id });

    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers.location).toBe(first.headers.location);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await employeeCount()).toBe(count);
  });

  it('answers 422 for the same key with another body, creating nothing', async () => {
    const key = unique('key-');
    await create(key, newBody());
    const count = await employeeCount();

    const res = await create(key, newBody());

    expect(expectProblem(res, 422, 'validation_failed').errors).toEqual([
      { field: 'Idempotency-Key', message: 'was already used with another request body' },
    ]);
    expect(await employeeCount()).toBe(count);
  });

  it('answers 409 while the first request with the key is still running', async () => {
    const key = unique('key-');
    const body = newBody();
    const count = await employeeCount();
    await t.db('idempotency_keys').insert({
      user_id: admin.userId,
      key_hash: sha256(key),
      request_hash: requestHashOf('POST', t.api('/employees'), body),
      state: 'in_progress',
      locked_until: toSqlDateTime(new Date(t.clock.now().getTime() + 30_000)),
      created_at: toSqlDateTime(t.clock.now()),
    });

    expectProblem(await create(key, body), 409, 'idempotency_key_in_use');
    expect(await employeeCount()).toBe(count);
  });

  it('lets concurrent duplicates create exactly one employee: one 201, the others 409 or the replayed 201', async () => {
    const key = unique('key-');
    const body = newBody();

    const responses = await Promise.all(Array.from({ length: 8 }, () => create(key, body)));

    const statuses = responses.map((res) => res.status);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    const created = responses.filter((res) => res.status === 201 && res.headers['idempotent-replayed'] === undefined);
    expect(created).toHaveLength(1);
    for (const res of responses.filter((r) => r.status === 409)) expectProblem(res, 409, 'idempotency_key_in_use');
    expect(await t.db('employees').where({ employee_id: body.employee_id }).count({ n: '*' }).first()).toEqual({ n: 1 });
  });

  it('lets a retry take over a key whose first request died', async () => {
    const key = unique('key-');
    const body = newBody();
    const first = await create(key, body);
    // Simulate a first request that never completed: its claim is still in progress, lease over.
    await t
      .db('idempotency_keys')
      .where({ user_id: admin.userId, key_hash: sha256(key) })
      .update({ state: 'in_progress', response_status: null, response_body: null, locked_until: '2000-01-01 00:00:00.000' });
    await t
      .db('employees')
      .where({ id: Number(first.body.id) })
      .delete();

    const retry = await create(key, body);

    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('stores nothing for a request that failed, so a corrected retry with the same key runs', async () => {
    const key = unique('key-');

    const invalid = await create(key, { first_name: 'No', last_name: 'Code' });
    const corrected = await create(key, newBody());

    expectProblem(invalid, 422, 'validation_failed');
    expect(corrected.status).toBe(201);
  });

  it('keeps keys per user', async () => {
    const other = await createUser(t, 'admin');
    const key = unique('key-');

    const mine = await create(key, newBody());
    const theirs = await create(key, newBody(), other);

    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('keeps keys for 24 hours, then forgets them', async () => {
    const key = unique('key-');
    const body = newBody();
    const deletes: string[] = [];
    const onQuery = (query: { sql: string }) => {
      if (/^delete from [`"]idempotency_keys[`"]/i.test(query.sql)) deletes.push(query.sql);
    };
    t.db.on('query', onQuery);
    await create(key, body);

    t.clock.advance(23 * 3600 * 1000);
    const withinDay = await create(key, body);
    const deletesWithinDay = deletes.length;
    t.clock.advance(2 * 3600 * 1000);
    const afterDay = await create(key, newBody());
    t.db.off('query', onQuery);

    expect(withinDay.headers['idempotent-replayed']).toBe('true');
    expect(afterDay.status).toBe(201);
    expect(afterDay.headers['idempotent-replayed']).toBeUndefined();
    expect(afterDay.headers.location).not.toBe(withinDay.headers.location);
    // A write under a key deletes nothing (the purge removes old keys); only the reuse of a
    // forgotten key still stored deletes that one row.
    expect(deletesWithinDay).toBe(0);
    expect(deletes).toHaveLength(1);
  });

  it('replays PATCH and DELETE too', async () => {
    const created = await create(unique('key-'), newBody());
    const id = created.body.id as string;
    const patchKey = unique('key-');
    const deleteKey = unique('key-');
    const patch = () =>
      request(t.app)
        .patch(t.api(`/employees/${id}`))
        .auth(admin.token, { type: 'bearer' })
        .set('Idempotency-Key', patchKey)
        .send({ city: 'Kyiv' });
    const remove = () =>
      request(t.app)
        .delete(t.api(`/employees/${id}`))
        .auth(admin.token, { type: 'bearer' })
        .set('Idempotency-Key', deleteKey);

    expect((await patch()).status).toBe(200);
    expect((await patch()).headers['idempotent-replayed']).toBe('true');
    expect((await t.db('audit_log').where({ entity_id: Number(id), action: 'update' })).length).toBe(1);
    expect((await remove()).body).toEqual({ id });
    const again = await remove();
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ id });
  });

  it.each([['x'.repeat(256)], ['has space'], ['tab\there']])('answers 400 for the key %j and writes nothing', async (key) => {
    const count = await employeeCount();

    expectProblem(await create(key, newBody()), 400, 'invalid_idempotency_key');
    expect(await employeeCount()).toBe(count);
  });

  describe('answers that hold a secret are never stored', () => {
    const storedRow = (user: TestUser, key: string) =>
      t
        .db('idempotency_keys')
        .where({ user_id: user.userId, key_hash: sha256(key) })
        .first();

    it('POST /tokens: the row keeps no token, and a retry answers without one', async () => {
      const user = await createUser(t, 'employee');
      const key = unique('key-');

      const first = await request(t.app)
        .post(t.api('/tokens'))
        .auth(user.token, { type: 'bearer' })
        .set('Idempotency-Key', key)
        .send({ name: 'laptop' });
      const row = await storedRow(user, key);
      const retry = await request(t.app)
        .post(t.api('/tokens'))
        .auth(user.token, { type: 'bearer' })
        .set('Idempotency-Key', key)
        .send({ name: 'laptop' });
      const retryWithNewToken = await request(t.app)
        .post(t.api('/tokens'))
        .auth(first.body.access_token, { type: 'bearer' })
        .set('Idempotency-Key', key)
        .send({ name: 'laptop' });

      expect(first.status).toBe(201);
      expect(row).toMatchObject({ state: 'withheld', response_body: null, response_headers: null });
      expect(JSON.stringify(await t.db('idempotency_keys').select())).not.toContain(first.body.access_token);
      // The rotated token is revoked: the retry cannot even authenticate.
      expectProblem(retry, 401, 'invalid_token');
      // The same user's key, under the new token: 409 without a token, and nothing issued.
      const refused = expectProblem(retryWithNewToken, 409, 'idempotency_answer_not_stored');
      expect(refused.detail).toMatch(/never stored/);
      expect(retryWithNewToken.text).not.toContain('access_token');
      expect(await t.db('api_tokens').where({ user_id: user.userId }).count({ n: '*' }).first()).toEqual({ n: 2 });
    });

    it.each(['create', 'rotate-secret'])('webhooks %s: the signing secret is not stored, and a retry is 409 without it', async (action) => {
      const key = unique('key-');
      const send = (path: string, body?: object) => {
        const req = request(t.app).post(t.api(path)).auth(admin.token, { type: 'bearer' }).set('Idempotency-Key', key);
        return body ? req.send(body) : req;
      };
      const create = { url: 'https://93.184.215.14/hooks', events: ['employee.created'] };
      const path =
        action === 'create'
          ? '/webhooks'
          : `/webhooks/${(await request(t.app).post(t.api('/webhooks')).auth(admin.token, { type: 'bearer' }).send(create)).body.id}/rotate-secret`;
      const body = action === 'create' ? create : undefined;

      const first = await send(path, body);
      const secretAfterFirst = (await t.db('webhooks').orderBy('id', 'desc').first('secret')).secret;
      const retry = await send(path, body);

      expect(first.status).toBe(action === 'create' ? 201 : 200);
      expect(first.body.secret).toBe(secretAfterFirst);
      expect(await storedRow(admin, key)).toMatchObject({ state: 'withheld', response_body: null });
      expect(JSON.stringify(await t.db('idempotency_keys').select())).not.toContain(first.body.secret);
      expectProblem(retry, 409, 'idempotency_answer_not_stored');
      expect(retry.text).not.toContain('whsec_');
      expect((await t.db('webhooks').orderBy('id', 'desc').first('secret')).secret).toBe(secretAfterFirst);
    });

    it('POST /attendance/devices: the device token is not stored, and a retry is 409 without it', async () => {
      const key = unique('key-');
      const name = unique('door-');
      const send = () =>
        request(t.app).post(t.api('/attendance/devices')).auth(admin.token, { type: 'bearer' }).set('Idempotency-Key', key).send({ name });

      const first = await send();
      const devices = await t.db('attendance_devices').count({ n: '*' }).first();
      const retry = await send();

      expect(first.status).toBe(201);
      expect(typeof first.body.token).toBe('string');
      expect(await storedRow(admin, key)).toMatchObject({ state: 'withheld', response_body: null });
      expect(JSON.stringify(await t.db('idempotency_keys').select())).not.toContain(first.body.token);
      expectProblem(retry, 409, 'idempotency_answer_not_stored');
      expect(retry.text).not.toContain(first.body.token);
      expect(await t.db('attendance_devices').count({ n: '*' }).first()).toEqual(devices);
    });
  });
});
