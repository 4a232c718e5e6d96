import request from 'supertest';
import { runHrm } from '../helpers/cli';
import { testDialects } from '../helpers/databases';
import { createUser, type TestUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

describe.each(testDialects())('webhook subscriptions on %s', (dialect) => {
  // Receivers on loopback are refused unless WEBHOOK_ALLOW_PRIVATE=1: see the SSRF tests below.
  const t = useTestApp(dialect, { env: { WEBHOOK_ALLOW_HTTP: '1' } });
  const admin = useFixture(() => createUser(t, 'admin'));
  const manager = useFixture(() => createUser(t, 'manager'));

  const as = (user: TestUser) => ({
    post: (path: string, body?: object) => {
      const req = request(t.app).post(t.api(path)).auth(user.token, { type: 'bearer' });
      return body === undefined ? req : req.send(body);
    },
    get: (path: string) => request(t.app).get(t.api(path)).auth(user.token, { type: 'bearer' }),
    patch: (path: string, body: object) => request(t.app).patch(t.api(path)).auth(user.token, { type: 'bearer' }).send(body),
    delete: (path: string) => request(t.app).delete(t.api(path)).auth(user.token, { type: 'bearer' }),
  });
  const count = async (table: string) => Number((await t.db(table).count({ n: '*' }).first())?.n);
  // A public address written as an IP literal: accepted without DNS, and never sent to (no worker runs here).
  const PUBLIC_URL = 'https://93.184.215.14/hooks';

  describe('POST /webhooks', () => {
    it('creates a subscription and shows its secret once, as Standard Webhooks writes it', async () => {
      const res = await as(admin).post('/webhooks', {
        url: PUBLIC_URL,
        events: ['employee.created', 'attendance.punched_in'],
        description: 'Payroll',
      });

      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(t.api(`/webhooks/${res.body.id}`));
      expect(res.body).toEqual({
        id: expect.stringMatching(/^\d+$/),
        url: PUBLIC_URL,
        events: ['employee.created', 'attendance.punched_in'],
        description: 'Payroll',
        active: true,
        include_personal: false,
        created_at: t.clock.now().toISOString(),
        failing_since: null,
        disabled_reason: null,
        secret: expect.stringMatching(SECRET),
      });
      const read = await as(admin).get(`/webhooks/${res.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ ...res.body, secret: undefined });
      expect(read.text).not.toContain(res.body.secret);
    });

    it('takes "*" for every event, active and include_personal', async () => {
      const res = await as(admin).post('/webhooks', {
        url: PUBLIC_URL,
        events: ['*'],
        active: false,
        include_personal: true,
        description: '',
      });

      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ events: ['*'], active: false, include_personal: true, description: null });
    });

    it('refuses invalid fields with 422 naming every one, and writes nothing', async () => {
      const before = await count('webhooks');

      const res = await as(admin).post('/webhooks', { url: 42, events: ['employee.fired', '*'], active: 'yes', colour: 'red' });

      const problem = expectProblem(res, 422, 'validation_failed');
      expect(problem.errors.map((error: { field: string }) => error.field).sort()).toEqual(['active', 'colour', 'events.0', 'url']);
      expect(await count('webhooks')).toBe(before);
    });

    it('refuses "*" together with other events, an empty list and a missing url', async () => {
      const star = expectProblem(
        await as(admin).post('/webhooks', { url: PUBLIC_URL, events: ['*', 'employee.created'] }),
        422,
        'validation_failed',
      );
      const empty = expectProblem(await as(admin).post('/webhooks', { url: PUBLIC_URL, events: [] }), 422, 'validation_failed');
      const missing = expectProblem(await as(admin).post('/webhooks', { events: ['*'] }), 422, 'validation_failed');

      expect(star.errors).toEqual([{ field: 'events', message: '"*" means every event and stands alone' }]);
      expect(empty.errors[0].field).toBe('events');
      expect(missing.errors).toEqual([{ field: 'url', message: 'must be an https:// URL' }]);
    });

    it('is for admins only: 403 for a manager, nothing written', async () => {
      const before = await count('webhooks');

      expectProblem(await as(manager).post('/webhooks', { url: PUBLIC_URL, events: ['*'] }), 403, 'forbidden');
      expectProblem(await as(manager).get('/webhooks'), 403, 'forbidden');
      expect(await count('webhooks')).toBe(before);
    });

    it('answers 401 without a token', async () => {
      const res = await request(t.app)
        .post(t.api('/webhooks'))
        .send({ url: PUBLIC_URL, events: ['*'] });

      expectProblem(res, 401, 'unauthorized');
    });
  });

  describe('refuses receivers inside the network (SSRF) when created and changed', () => {
    it.each([
      ['https://127.0.0.1/hooks', /127\.0\.0\.1 is a loopback address/],
      ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254 is a link-local address/],
      ['https://[::1]/hooks', /::1 is a loopback address/],
      ['https://[::ffff:127.0.0.1]/hooks', /is an IPv4-mapped address of 127\.0\.0\.1, a loopback address/],
      // The outside review's two that got through (issue 28): IPv4-translated and site-local.
      ['https://[::ffff:0:127.0.0.1]/hooks', /::ffff:0:7f00:1 is an IPv4-translated address of 127\.0\.0\.1, a loopback address/],
      ['https://[fec0::1]/hooks', /fec0::1 is a site-local \(private\) address/],
      ['https://10.1.2.3/hooks', /a private address/],
      ['https://192.168.0.10/hooks', /a private address/],
      ['https://172.20.0.1/hooks', /a private address/],
      ['https://100.100.100.200/hooks', /carrier-grade NAT/],
      ['https://0.0.0.0/hooks', /unspecified/],
      ['https://[fd00:ec2::254]/hooks', /unique local/],
      ['https://2130706433/hooks', /127\.0\.0\.1 is a loopback address/],
      ['https://localhost./hooks', /host localhost\. is a loopback name/],
      ['https://user@127.0.0.1/hooks', /must not carry a user name or password/],
      ['ftp://93.184.215.14/hooks', /must be an https:\/\/ or http:\/\/ URL/],
      ['https://user:pass@93.184.215.14/hooks', /must not carry a user name or password/],
      ['not a url', /must be an absolute URL/],
    ])('refuses %s with 422 naming url', async (url, message) => {
      const before = await count('webhooks');

      const res = await as(admin).post('/webhooks', { url, events: ['*'] });

      const problem = expectProblem(res, 422, 'validation_failed');
      expect(problem.errors).toEqual([{ field: 'url', message: expect.stringMatching(message) }]);
      expect(await count('webhooks')).toBe(before);
    });

    it('refuses such a URL in a PATCH too, leaving the subscription as it was', async () => {
      const created = await as(admin).post('/webhooks', { url: PUBLIC_URL, events: ['*'] });

      const res = await as(admin).patch(`/webhooks/${created.body.id}`, { url: 'https://169.254.169.254/' });

      expectProblem(res, 422, 'validation_failed');
      expect((await as(admin).get(`/webhooks/${created.body.id}`)).body.url).toBe(PUBLIC_URL);
    });
  });

  describe('GET /webhooks', () => {
    it('lists subscriptions in pages, never their secrets', async () => {
      await as(admin).post('/webhooks', { url: PUBLIC_URL, events: ['employee.deleted'] });
      const total = await count('webhooks');

      const res = await as(admin).get('/webhooks?limit=1&page=1');

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: [expect.objectContaining({ id: expect.any(String), url: expect.any(String) })],
        total,
        nextPage: total > 1 ? 2 : null,
      });
      expect(res.text).not.toContain('whsec_');
    });

    it('refuses unknown query parameters with 400', async () => {
      expectProblem(await as(admin).get('/webhooks?sort=url'), 400, 'invalid_query');
    });
  });

  describe('PATCH and DELETE /webhooks/{id}', () => {
    it('changes only the sent fields; turning it on again clears why it was disabled', async () => {
      const created = await as(admin).post('/webhooks', { url: PUBLIC_URL, events: ['*'] });
      await t
        .db('webhooks')
        .where({ id: created.body.id })
        .update({ active: false, disabled_reason: 'Disabled: failing', failing_since: '2026-01-01 00:00:00.000' });

      const res = await as(admin).patch(`/webhooks/${created.body.id}`, { active: true, events: ['employee.updated', 'employee.updated'] });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...created.body,
        secret: undefined,
        active: true,
        events: ['employee.updated'],
        failing_since: null,
        disabled_reason: null,
      });
    });

    it('answers 404 for an unknown id and 422 for unknown fields', async () => {
      expectProblem(await as(admin).patch('/webhooks/999999', { active: false }), 404, 'not_found');
      expectProblem(await as(admin).get('/webhooks/abc'), 404, 'not_found');
      const created = await as(admin).post('/webhooks', { url: PUBLIC_URL, events: ['*'] });
      const problem = expectProblem(
        await as(admin).patch(`/webhooks/${created.body.id}`, { secret: 'whsec_mine' }),
        422,
        'validation_failed',
      );
      expect(problem.errors).toEqual([{ field: 'secret', message: 'is not a known field' }]);
    });

    it('deletes a subscription with its deliveries and their attempts', async () => {
      const created = await as(admin).post('/webhooks', { url: PUBLIC_URL, events: ['*'] });
      await request(t.app)
        .post(t.api('/employees'))
        .auth(admin.token, { type: 'bearer' })
        .send({ employee_id: 'WH-DEL-1', first_name: 'Del', last_name: 'Eted' });
      const delivery = await t.db('webhook_deliveries').where({ webhook_id: created.body.id }).first('id');
      // An attempt as the worker records it (no worker runs here).
      await t.db('webhook_attempts').insert({
        delivery_id: delivery.id,
        number: 1,
        attempted_at: '2026-01-01 00:00:00.000',
        duration_ms: 12,
        delivered: false,
        status: 500,
        error: 'answered 500',
      });
      expect(Number((await t.db('webhook_deliveries').where({ webhook_id: created.body.id }).count({ n: '*' }).first())?.n)).toBe(1);

      const res = await as(admin).delete(`/webhooks/${created.body.id}`);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: created.body.id });
      expect(Number((await t.db('webhook_deliveries').where({ webhook_id: created.body.id }).count({ n: '*' }).first())?.n)).toBe(0);
      expect(await t.db('webhook_attempts').where({ delivery_id: delivery.id })).toEqual([]);
      expectProblem(await as(admin).get(`/webhooks/${created.body.id}`), 404, 'not_found');
      expectProblem(await as(admin).delete(`/webhooks/${created.body.id}`), 404, 'not_found');
    });
  });

  describe('POST /webhooks/{id}/rotate-secret', () => {
    it('answers a new secret and keeps the old one signing for 24 hours', async () => {
      const created = await as(admin).post('/webhooks', { url: PUBLIC_URL, events: ['*'] });

      const res = await as(admin).post(`/webhooks/${created.body.id}/rotate-secret`);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...created.body, secret: expect.stringMatching(SECRET) });
      expect(res.body.secret).not.toBe(created.body.secret);
      const row = await t.db('webhooks').where({ id: created.body.id }).first();
      expect(row.secret).toBe(res.body.secret);
      expect(row.previous_secret).toBe(created.body.secret);
      expect(new Date(`${row.previous_secret_expires_at.replace(' ', 'T')}Z`).getTime()).toBe(t.clock.now().getTime() + 24 * 3600 * 1000);
    });

    it('refuses a body with fields (422) and an unknown webhook (404)', async () => {
      const created = await as(admin).post('/webhooks', { url: PUBLIC_URL, events: ['*'] });

      expectProblem(await as(admin).post(`/webhooks/${created.body.id}/rotate-secret`, { secret: 'x' }), 422, 'validation_failed');
      expectProblem(await as(admin).post('/webhooks/999999/rotate-secret'), 404, 'not_found');
      expect((await t.db('webhooks').where({ id: created.body.id }).first()).secret).toBe(created.body.secret);
    });
  });

  describe('deliveries', () => {
    it("lists a subscription's deliveries with status and attempts, and queues one again with POST .../retry (202)", async () => {
      const created = await as(admin).post('/webhooks', { url: PUBLIC_URL, events: ['employee.created'] });
      const employee = await request(t.app)
        .post(t.api('/employees'))
        .auth(admin.token, { type: 'bearer' })
        .send({ employee_id: 'WH-LIST-1', first_name: 'Lis', last_name: 'Ted' });

      const list = await as(admin).get(`/webhooks/${created.body.id}/deliveries`);

      expect(list.status).toBe(200);
      expect(list.body).toEqual({
        data: [
          {
            id: expect.stringMatching(/^\d+$/),
            event_id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
            type: 'employee.created',
            status: 'pending',
            attempts: 0,
            next_attempt_at: t.clock.now().toISOString(),
            last_status: null,
            last_error: null,
            created_at: t.clock.now().toISOString(),
          },
        ],
        total: 1,
        nextPage: null,
      });
      const event = await t.db('webhook_events').where({ event_id: list.body.data[0].event_id }).first();
      expect(event.resource_key).toBe(`employee:${employee.body.id}`);

      const delivery = list.body.data[0];
      await t
        .db('webhook_deliveries')
        .where({ id: delivery.id })
        .update({ status: 'failed', attempts: 20, last_status: 500, last_error: 'answered 500' });
      t.clock.advance(1000);
      const retried = await as(admin).post(`/webhooks/${created.body.id}/deliveries/${delivery.id}/retry`);

      expect(retried.status).toBe(202);
      expect(retried.body).toEqual({
        ...delivery,
        status: 'pending',
        attempts: 20,
        last_status: 500,
        last_error: 'answered 500',
        next_attempt_at: t.clock.now().toISOString(),
      });
      expect((await as(admin).get(`/webhooks/${created.body.id}/deliveries?status=failed`)).body).toEqual({
        data: [],
        total: 0,
        nextPage: null,
      });
    });

    it('answers 404 for a delivery of another subscription, 409 webhook_inactive while it is off, 400 for a bad status filter', async () => {
      const one = await as(admin).post('/webhooks', { url: PUBLIC_URL, events: ['employee.created'] });
      const other = await as(admin).post('/webhooks', { url: PUBLIC_URL, events: ['employee.created'] });
      await request(t.app)
        .post(t.api('/employees'))
        .auth(admin.token, { type: 'bearer' })
        .send({ employee_id: 'WH-404-1', first_name: 'Four', last_name: 'Oh' });
      const delivery = (await as(admin).get(`/webhooks/${one.body.id}/deliveries`)).body.data[0];

      expectProblem(await as(admin).post(`/webhooks/${other.body.id}/deliveries/${delivery.id}/retry`), 404, 'not_found');
      await as(admin).patch(`/webhooks/${one.body.id}`, { active: false });
      expectProblem(await as(admin).post(`/webhooks/${one.body.id}/deliveries/${delivery.id}/retry`), 409, 'webhook_inactive');
      expectProblem(await as(admin).get(`/webhooks/${one.body.id}/deliveries?status=lost`), 400, 'invalid_query');
      expectProblem(await as(admin).get('/webhooks/999999/deliveries'), 404, 'not_found');
    });
  });

  describe('GET /webhooks/{id}/deliveries/{delivery}', () => {
    it('answers a delivery not yet attempted with an empty attempt log', async () => {
      const created = await as(admin).post('/webhooks', { url: PUBLIC_URL, events: ['employee.created'] });
      await request(t.app)
        .post(t.api('/employees'))
        .auth(admin.token, { type: 'bearer' })
        .send({ employee_id: 'WH-ONE-1', first_name: 'One', last_name: 'Delivery' });
      const [listed] = (await as(admin).get(`/webhooks/${created.body.id}/deliveries`)).body.data;

      const res = await as(admin).get(`/webhooks/${created.body.id}/deliveries/${listed.id}`);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...listed, attempt_log: [] });
    });

    it('answers 404 for an unknown delivery, one of another subscription and a malformed id; 403 for a manager; 401 without a token', async () => {
      const one = await as(admin).post('/webhooks', { url: PUBLIC_URL, events: ['employee.created'] });
      const other = await as(admin).post('/webhooks', { url: PUBLIC_URL, events: ['employee.created'] });
      await request(t.app)
        .post(t.api('/employees'))
        .auth(admin.token, { type: 'bearer' })
        .send({ employee_id: 'WH-ONE-2', first_name: 'Two', last_name: 'Delivery' });
      const [delivery] = (await as(admin).get(`/webhooks/${one.body.id}/deliveries`)).body.data;

      expect(expectProblem(await as(admin).get(`/webhooks/${other.body.id}/deliveries/${delivery.id}`), 404, 'not_found').detail).toBe(
        'No such delivery',
      );
      expectProblem(await as(admin).get(`/webhooks/${one.body.id}/deliveries/999999999`), 404, 'not_found');
      expectProblem(await as(admin).get(`/webhooks/${one.body.id}/deliveries/abc`), 404, 'not_found');
      expectProblem(await as(admin).get(`/webhooks/999999/deliveries/${delivery.id}`), 404, 'not_found');
      expectProblem(await as(manager).get(`/webhooks/${one.body.id}/deliveries/${delivery.id}`), 403, 'forbidden');
      expect((await request(t.app).get(t.api(`/webhooks/${one.body.id}/deliveries/${delivery.id}`))).status).toBe(401);
    });
  });

  describe('hrm webhook', () => {
    it('adds, lists and removes subscriptions', async () => {
      const added = await runHrm(t, [
        'webhook',
        'add',
        '--url',
        PUBLIC_URL,
        '--events',
        'employee.created,employee.deleted',
        '--description',
        'from the CLI',
      ]);

      expect(added.code).toBe(0);
      const id = /Created webhook (\d+) for employee\.created,employee\.deleted\./.exec(added.stdout)?.[1];
      expect(id).toBeDefined();
      expect(added.stdout).toMatch(/Signing secret \(shown only now\): whsec_[A-Za-z0-9+/]{43}=/);
      const listed = await runHrm(t, ['webhook', 'list']);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(
        new RegExp(`^${id}\\s+active\\s+employee\\.created,employee\\.deleted\\s+no\\s+\\S+\\s+${PUBLIC_URL.replace(/\./g, '\\.')}$`, 'm'),
      );
      expect(listed.stdout).not.toContain('whsec_');

      const removed = await runHrm(t, ['webhook', 'remove', String(id)]);

      expect(removed).toEqual({ code: 0, stdout: `Removed webhook ${id}.\n`, stderr: '' });
      expect(await t.db('webhooks').where({ id }).first()).toBeUndefined();
    });

    it('refuses a receiver inside the network, an unknown event and an unknown id, writing nothing', async () => {
      const before = await count('webhooks');

      const loopback = await runHrm(t, ['webhook', 'add', '--url', 'https://127.0.0.1/hooks']);
      const event = await runHrm(t, ['webhook', 'add', '--url', PUBLIC_URL, '--events', 'employee.hired']);
      const unknown = await runHrm(t, ['webhook', 'remove', '999999']);

      expect(loopback).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(/^hrm: --url 127\.0\.0\.1 is a loopback address/) });
      expect(event).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(/^hrm: --events must be a list of event types/) });
      expect(unknown).toEqual({ code: 1, stdout: '', stderr: 'hrm: There is no webhook with id 999999\n' });
      expect(await count('webhooks')).toBe(before);
    });
  });
});
