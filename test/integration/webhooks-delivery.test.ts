import pino from 'pino';
import { Registry } from 'prom-client';
import request from 'supertest';
import { singleInstance } from '../../src/instances/source';
import { Metrics } from '../../src/metrics/metrics';
import { type Concurrency, DeliveryWorker } from '../../src/webhooks/worker';
import { testDialects } from '../helpers/databases';
import { createUser } from '../helpers/factories';
import { type TestApp, useFixture, useTestApp } from '../helpers/test-app';
import { WebhookReceiver } from '../helpers/webhook-receiver';

const DAY_MS = 24 * 3600 * 1000;

describe.each(testDialects())('webhook deliveries on %s', (dialect) => {
  const t = useTestApp(dialect, { env: { WEBHOOK_ALLOW_HTTP: '1', WEBHOOK_ALLOW_PRIVATE: '1' } });
  const admin = useFixture(() => createUser(t, 'admin'));
  let registry: Registry;
  let metrics: Metrics;

  const receivers: WebhookReceiver[] = [];
  const workers: DeliveryWorker[] = [];
  beforeEach(async () => {
    // Each test has the subscriptions it makes, and no other.
    await t.db('webhook_attempts').delete();
    await t.db('webhook_deliveries').delete();
    await t.db('webhooks').delete();
    registry = new Registry();
    metrics = new Metrics(registry, () => []);
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  const api = {
    post: (path: string, body?: object) => request(t.app).post(t.api(path)).auth(admin.token, { type: 'bearer' }).send(body),
    put: (path: string, body: object) => request(t.app).put(t.api(path)).auth(admin.token, { type: 'bearer' }).send(body),
    get: (path: string) => request(t.app).get(t.api(path)).auth(admin.token, { type: 'bearer' }),
    delete: (path: string) => request(t.app).delete(t.api(path)).auth(admin.token, { type: 'bearer' }),
  };
  const receiver = async () => {
    const started = await WebhookReceiver.start();
    receivers.push(started);
    return started;
  };
  const subscribe = async (to: WebhookReceiver, body: object = {}) => {
    const res = await api.post('/webhooks', { url: to.url, events: ['*'], ...body });
    expect(res.status).toBe(201);
    to.secrets.push(res.body.secret);
    return res.body as { id: string; secret: string };
  };
  /** A worker as main.ts runs one, on the test app's instance; passes are run by the test. */
  const worker = (
    options: { policy?: { allowHttp: boolean; allowPrivate: boolean }; timeoutMs?: number; concurrency?: Partial<Concurrency> } = {},
  ) => {
    const created = new DeliveryWorker({
      instances: singleInstance(t.instance),
      instanceNames: async () => [undefined],
      clock: t.clock,
      logger: pino({ level: 'silent' }),
      policy: options.policy ?? { allowHttp: true, allowPrivate: true },
      timeoutMs: options.timeoutMs ?? 2000,
      metrics: metrics.webhooks,
      concurrency: options.concurrency,
    });
    workers.push(created);
    return created;
  };
  /** Passes until nothing is due; then the clock moves to the next retry, while one is pending (at most `jumps` times). */
  const drain = async (deliveryWorker: DeliveryWorker, jumps = 0) => {
    for (let jump = 0; ; jump++) {
      while ((await deliveryWorker.runOnce()) > 0);
      const next = await t.db('webhook_deliveries').where({ status: 'pending' }).min({ at: 'next_attempt_at' }).first();
      if (!next?.at || jump >= jumps) return;
      const at = new Date(`${String(next.at).replace(' ', 'T')}Z`).getTime();
      t.clock.advance(Math.max(0, at - t.clock.now().getTime()) + 1);
    }
  };
  const deliveries = async (webhookId: string) =>
    (await api.get(`/webhooks/${webhookId}/deliveries?limit=200`)).body.data as Array<Record<string, any>>;

  it('sends each write of a scenario as exactly its events, signed, in order per resource; personal fields only where allowed', async () => {
    const plain = await receiver();
    const personal = await receiver();
    await subscribe(plain);
    await subscribe(personal, { include_personal: true });
    const supervisor = await api.post('/employees', { employee_id: unique('SUP'), first_name: 'Sue', last_name: 'Pervisor' });
    const hired = await api.post('/employees', {
      employee_id: unique('HIRE'),
      first_name: 'Hal',
      last_name: 'Hired',
      supervisor: supervisor.body.id,
      birthday: '1990-05-01',
      country: 'DE',
    });
    const id = hired.body.id as string;
    await api.put(`/employees/${id}`, { work_phone: '+49 30 1234', city: 'Berlin' });
    const punchIn = await api.post('/attendance/punch-in', { employee: id, in_time: wallClock(t, -7200) });
    await api.post('/attendance/punch-out', { employee: id, out_time: wallClock(t, -3600) });
    await api.put(`/attendance/${punchIn.body.id}`, { note: 'corrected' });
    const added = await api.post('/attendance', { employee: id, in_time: wallClock(t, -30 * 3600), out_time: wallClock(t, -29 * 3600) });
    await api.delete(`/attendance/${added.body.id}`);
    await api.put(`/employees/${id}`, { status: 'Terminated' });
    await api.delete(`/employees/${supervisor.body.id}`);
    // Refused writes emit nothing.
    expect((await api.post('/employees', { employee_id: hired.body.employee_id, first_name: 'Dup', last_name: 'Licate' })).status).toBe(
      409,
    );
    expect((await api.put(`/employees/${id}`, { birthday: '2999-01-01' })).status).toBe(422);

    await drain(worker());

    const expected = [
      ['employee.created', `employee:${supervisor.body.id}`],
      ['employee.created', `employee:${id}`],
      ['employee.updated', `employee:${id}`],
      ['attendance.punched_in', `attendance:${punchIn.body.id}`],
      ['attendance.punched_out', `attendance:${punchIn.body.id}`],
      ['attendance.corrected', `attendance:${punchIn.body.id}`],
      ['attendance.corrected', `attendance:${added.body.id}`],
      ['attendance.deleted', `attendance:${added.body.id}`],
      ['employee.terminated', `employee:${id}`],
      ['employee.updated', `employee:${id}`],
      ['employee.deleted', `employee:${supervisor.body.id}`],
    ];
    for (const to of [plain, personal]) {
      expect(to.received.every((got) => got.verifiedWith.length === 1 && got.headers['webhook-id'] === got.event.id)).toBe(true);
      const got = to.events.map((event) => [event.type, `${event.type.split('.')[0]}:${event.data.id}`]);
      expect([...got].sort()).toEqual([...expected].sort());
      for (const resource of new Set(expected.map(([, key]) => key))) {
        expect(got.filter(([, key]) => key === resource)).toEqual(expected.filter(([, key]) => key === resource));
      }
      expect(new Set(to.events.map((event) => event.id)).size).toBe(expected.length);
    }

    const update = plain.events.find((event) => event.type === 'employee.updated' && event.data.id === id);
    expect(update).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'employee.updated',
      occurred_at: t.clock.now().toISOString(),
      instance: null,
      changed_fields: ['city', 'work_phone'],
      data: expect.objectContaining({ id, work_phone: '+49 30 1234', restricted_fields: expect.arrayContaining(['city', 'birthday']) }),
    });
    expect(update?.data).not.toHaveProperty('city');
    expect(update?.data).not.toHaveProperty('birthday');
    const personalUpdate = personal.events.find((event) => event.type === 'employee.updated' && event.data.id === id);
    expect(personalUpdate?.data).toMatchObject({
      city: 'Berlin',
      birthday: '1990-05-01',
      country: { type: 'Country', code: 'DE', display: 'Germany' },
    });
    expect(personalUpdate?.data).not.toHaveProperty('restricted_fields');
    expect(plain.events.find((event) => event.type === 'employee.terminated')).toMatchObject({
      changed_fields: ['termination_date', 'status'],
      data: { status: 'Terminated' },
    });
    expect(plain.events.find((event) => event.type === 'employee.deleted')?.data).toEqual({ id: supervisor.body.id });
    // Deleting the supervisor cleared the hire's supervisor: an update of the hire.
    expect(plain.events.filter((event) => event.type === 'employee.updated').at(-1)).toMatchObject({
      changed_fields: ['supervisor'],
      data: { id, supervisor: null },
    });
    expect(plain.events.find((event) => event.type === 'attendance.punched_out')?.data).toMatchObject({
      id: punchIn.body.id,
      employee: { type: 'Employee', id, display: 'Hal Hired' },
      out_time: wallClock(t, -3600),
      note: null,
      hours: 1,
    });
    expect(plain.events.find((event) => event.type === 'attendance.corrected' && event.data.id === punchIn.body.id)).toMatchObject({
      changed_fields: ['note'],
      data: { note: 'corrected' },
    });
    expect(await registry.getSingleMetricAsString('hrm_webhook_deliveries_delivered_total')).toMatch(/ 22$/);
  });

  it('gets every event to a receiver that fails, then recovers, never a later event of a resource before an earlier one', async () => {
    const flaky = await receiver();
    let failures = 0;
    flaky.answer = () => (failures++ < 4 ? { status: 503, body: 'down for maintenance' } : 200);
    const subscription = await subscribe(flaky, { events: ['employee.created', 'employee.updated'] });
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      const created = await api.post('/employees', { employee_id: unique('FLAKY'), first_name: 'Fla', last_name: `Ky${n}` });
      ids.push(created.body.id);
      await api.put(`/employees/${created.body.id}`, { work_phone: `${n}` });
    }

    await drain(worker(), 20);

    const accepted = flaky.received.filter((_, index) => index >= 4);
    expect(accepted.map((got) => `${got.event.type} ${got.event.data.id}`).sort()).toEqual(
      ids.flatMap((id) => [`employee.created ${id}`, `employee.updated ${id}`]).sort(),
    );
    for (const id of ids) {
      // Every request about this employee, failed ones too: the update never went out before the create was accepted.
      const sent = flaky.received
        .map((got, index) => ({ type: got.event.type, id: got.event.data.id, accepted: index >= 4 }))
        .filter((got) => got.id === id);
      const firstUpdate = sent.findIndex((got) => got.type === 'employee.updated');
      expect(sent.slice(0, firstUpdate).some((got) => got.type === 'employee.created' && got.accepted)).toBe(true);
    }
    const listed = await deliveries(subscription.id);
    expect(
      listed.every((delivery) => delivery.status === 'delivered' && delivery.next_attempt_at === null && delivery.last_status === 200),
    ).toBe(true);
    expect(listed.reduce((sum, delivery) => sum + delivery.attempts, 0)).toBe(6 + 4);
    expect((await api.get(`/webhooks/${subscription.id}`)).body).toMatchObject({ active: true, failing_since: null });
    expect(await registry.getSingleMetricAsString('hrm_webhook_attempts_failed_total')).toMatch(/ 4$/);
  });

  it('shows every attempt of a delivery: when, how long, the status and why it failed (GET .../deliveries/{delivery})', async () => {
    const flaky = await receiver();
    let answered = 0;
    flaky.answer = () => (answered++ < 2 ? { status: 503, body: 'busy, come back later' } : 204);
    const subscription = await subscribe(flaky, { events: ['employee.created'] });
    await api.post('/employees', { employee_id: unique('ATT'), first_name: 'At', last_name: 'Tempts' });
    const sender = worker();
    const times: string[] = [];
    for (let n = 0; n < 3; n++) {
      times.push(t.clock.now().toISOString());
      await drain(sender);
      const next = await t.db('webhook_deliveries').where({ status: 'pending' }).first('next_attempt_at');
      if (next) t.clock.advance(new Date(`${String(next.next_attempt_at).replace(' ', 'T')}Z`).getTime() - t.clock.now().getTime());
    }
    const [listed] = await deliveries(subscription.id);

    const res = await api.get(`/webhooks/${subscription.id}/deliveries/${listed?.id}`);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...listed,
      status: 'delivered',
      attempts: 3,
      last_status: 204,
      last_error: null,
      attempt_log: [
        {
          number: 1,
          attempted_at: times[0],
          duration_ms: expect.any(Number),
          delivered: false,
          status: 503,
          error: 'answered 503: busy, come back later',
        },
        {
          number: 2,
          attempted_at: times[1],
          duration_ms: expect.any(Number),
          delivered: false,
          status: 503,
          error: 'answered 503: busy, come back later',
        },
        { number: 3, attempted_at: times[2], duration_ms: expect.any(Number), delivered: true, status: 204, error: null },
      ],
    });
    expect(res.body.attempt_log.every((attempt: { duration_ms: number }) => attempt.duration_ms >= 0 && attempt.duration_ms < 2000)).toBe(
      true,
    );
    expect(await t.db('webhook_attempts').where({ delivery_id: listed?.id }).count({ n: '*' }).first()).toEqual({ n: 3 });
  });

  it('shows an attempt that was refused or not answered, with no status', async () => {
    const silent = await receiver();
    silent.hold();
    const refused = await receiver();
    const ssrf = await subscribe(refused, { events: ['employee.created'] });
    await api.post('/employees', { employee_id: unique('REFUSED'), first_name: 'Re', last_name: 'Fused' });
    await drain(worker({ policy: { allowHttp: true, allowPrivate: false } }));
    // The refused delivery is not due again before the clock moves: only this one is sent.
    const slow = await subscribe(silent, { events: ['employee.created'] });
    await api.post('/employees', { employee_id: unique('NOANS'), first_name: 'No', last_name: 'Answer' });
    await drain(worker({ timeoutMs: 300 }));

    // The oldest delivery of each (the refused receiver's subscription got the second event too).
    const attemptsOf = async (webhookId: string) => {
      const delivery = (await deliveries(webhookId)).at(-1);
      return (await api.get(`/webhooks/${webhookId}/deliveries/${delivery?.id}`)).body.attempt_log;
    };
    const [timedOut] = await attemptsOf(slow.id);
    expect(timedOut).toMatchObject({ number: 1, delivered: false, status: null, error: 'no answer within 0.3 s' });
    expect(timedOut.duration_ms).toBeGreaterThanOrEqual(290);
    expect(await attemptsOf(ssrf.id)).toEqual([
      {
        number: 1,
        attempted_at: t.clock.now().toISOString(),
        duration_ms: expect.any(Number),
        delivered: false,
        status: null,
        error: expect.stringMatching(/^refused: 127\.0\.0\.1 is a loopback address/),
      },
    ]);
  });

  it('purges old deliveries with their attempts, and keeps recent ones', async () => {
    const target = await receiver();
    const subscription = await subscribe(target, { events: ['employee.created'] });
    await api.post('/employees', { employee_id: unique('OLD'), first_name: 'Ol', last_name: 'D' });
    await drain(worker());
    t.clock.advance(31 * DAY_MS);
    await api.post('/employees', { employee_id: unique('NEW'), first_name: 'Ne', last_name: 'W' });
    // A new worker: its first pass purges (hourly per worker).
    await drain(worker());

    const [kept, ...rest] = await deliveries(subscription.id);
    expect(rest).toEqual([]);
    expect(kept).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(await t.db('webhook_attempts').pluck('delivery_id')).toEqual([Number(kept?.id)]);
  });

  it('records why an attempt failed, with a short excerpt of the answer, and when it is tried next', async () => {
    const failing = await receiver();
    failing.answer = () => ({ status: 500, body: `internal error ${'x'.repeat(2000)}` });
    const subscription = await subscribe(failing, { events: ['employee.created'] });
    await api.post('/employees', { employee_id: unique('FAIL'), first_name: 'Fai', last_name: 'Led' });

    await drain(worker());

    const [delivery] = await deliveries(subscription.id);
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status: 500,
      last_error: `answered 500: internal error ${'x'.repeat(185)}`,
    });
    const wait = new Date(delivery?.next_attempt_at).getTime() - t.clock.now().getTime();
    expect(wait).toBeGreaterThanOrEqual(2500);
    expect(wait).toBeLessThanOrEqual(5000);
    expect((await api.get(`/webhooks/${subscription.id}`)).body.failing_since).toBe(t.clock.now().toISOString());
  });

  it('gives a delivery up after 3 days and disables a subscription that failed that long, saying so', async () => {
    const down = await receiver();
    down.answer = () => 502;
    const subscription = await subscribe(down, { events: ['employee.created'] });
    await api.post('/employees', { employee_id: unique('DOWN'), first_name: 'Dow', last_name: 'N' });

    await drain(worker(), 40);

    const [delivery] = await deliveries(subscription.id);
    expect(delivery).toMatchObject({ status: 'failed', next_attempt_at: null, last_status: 502, last_error: 'answered 502' });
    expect(delivery?.attempts).toBeGreaterThan(10);
    const webhook = (await api.get(`/webhooks/${subscription.id}`)).body;
    expect(webhook).toMatchObject({
      active: false,
      disabled_reason: expect.stringMatching(/^Disabled at .*: every delivery failed for 3 days \(since .*\); last error: answered 502$/),
    });
    expect(await registry.getSingleMetricAsString('hrm_webhook_deliveries_failed_total')).toMatch(/ 1$/);
    // Turned off: new events are not queued for it.
    await api.post('/employees', { employee_id: unique('DOWN'), first_name: 'Dow', last_name: 'Nagain' });
    expect(await deliveries(subscription.id)).toHaveLength(1);
  }, 60_000);

  it('signs with both secrets for 24 hours after a rotation, then with the new one only', async () => {
    const rotating = await receiver();
    const subscription = await subscribe(rotating, { events: ['employee.created'] });
    const rotated = (await api.post(`/webhooks/${subscription.id}/rotate-secret`)).body.secret as string;
    rotating.secrets.push(rotated);
    await api.post('/employees', { employee_id: unique('ROT'), first_name: 'Ro', last_name: 'Tated' });
    await drain(worker());
    t.clock.advance(DAY_MS + 1000);
    await api.post('/employees', { employee_id: unique('ROT'), first_name: 'Ro', last_name: 'Tated' });
    await drain(worker());

    const [during, after] = rotating.received;
    expect(during?.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(during?.verifiedWith).toEqual([subscription.secret, rotated]);
    expect(after?.headers['webhook-signature']).toMatch(/^v1,\S+$/);
    expect(after?.verifiedWith).toEqual([rotated]);
  });

  it('checks the address again when sending: a receiver now on loopback is refused without a connection', async () => {
    const target = await receiver();
    const subscription = await subscribe(target, { events: ['employee.created'] });
    await api.post('/employees', { employee_id: unique('SSRF'), first_name: 'Ss', last_name: 'Rf' });

    await drain(worker({ policy: { allowHttp: true, allowPrivate: false } }));

    expect(target.received).toHaveLength(0);
    const [delivery] = await deliveries(subscription.id);
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status: null,
      last_error: expect.stringMatching(/^refused: 127\.0\.0\.1 is a loopback address/),
    });
  });

  it('never follows a redirect, not even to an address it could send to', async () => {
    const redirecting = await receiver();
    const elsewhere = await receiver();
    redirecting.answer = () => ({ status: 307, headers: { Location: elsewhere.url } });
    const subscription = await subscribe(redirecting, { events: ['employee.created'] });
    await api.post('/employees', { employee_id: unique('REDIR'), first_name: 'Re', last_name: 'Direct' });

    await drain(worker());

    expect(redirecting.received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);
    expect((await deliveries(subscription.id))[0]).toMatchObject({
      status: 'pending',
      last_status: 307,
      last_error: 'answered 307: redirects are not followed',
    });
  });

  it('sends a delivery again after POST .../retry, with the same webhook-id', async () => {
    const again = await receiver();
    const subscription = await subscribe(again, { events: ['employee.created'] });
    await api.post('/employees', { employee_id: unique('AGAIN'), first_name: 'Ag', last_name: 'Ain' });
    const sender = worker();
    await drain(sender);
    const [delivery] = await deliveries(subscription.id);

    expect((await api.post(`/webhooks/${subscription.id}/deliveries/${delivery?.id}/retry`)).status).toBe(202);
    await drain(sender);

    expect(again.received).toHaveLength(2);
    expect(again.received[1]?.headers['webhook-id']).toBe(again.received[0]?.headers['webhook-id']);
    expect((await deliveries(subscription.id))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('lets two workers share the work without sending any delivery twice', async () => {
    const shared = await receiver();
    await subscribe(shared, { events: ['employee.created'] });
    for (let n = 0; n < 40; n++) await api.post('/employees', { employee_id: unique('SHARE'), first_name: 'Sha', last_name: `Red${n}` });

    const [one, two] = [worker(), worker()];
    await Promise.all([drain(one), drain(two)]);

    expect(shared.received).toHaveLength(40);
    expect(new Set(shared.received.map((got) => got.event.id)).size).toBe(40);
  });

  describe('receivers that never answer (the outside review: one slow receiver delayed everyone)', () => {
    it('gets a healthy receiver its delivery within 2 s of the write while 25 others hang, as main.ts runs the worker', async () => {
      const hanging = await Promise.all(Array.from({ length: 25 }, () => receiver()));
      for (const to of hanging) {
        to.hold();
        await subscribe(to, { events: ['employee.created'] });
      }
      // Subscribed last: its delivery is the last one claimed.
      const healthy = await receiver();
      const subscription = await subscribe(healthy, { events: ['employee.created'] });
      const running = worker({ timeoutMs: 10_000 }).start();

      const writtenAt = Date.now();
      expect((await api.post('/employees', { employee_id: unique('HANG'), first_name: 'Han', last_name: 'Ging' })).status).toBe(201);
      await healthy.waitFor(1, 15_000);
      const took = Date.now() - writtenAt;

      expect(took).toBeLessThan(2000);
      // The 25 got theirs too, and are still holding them.
      await Promise.all(hanging.map((to) => to.waitFor(1)));
      expect(hanging.map((to) => to.received.length)).toEqual(Array(25).fill(1));
      expect(healthy.events).toEqual([expect.objectContaining({ type: 'employee.created' })]);
      await waitUntil(async () => (await deliveries(subscription.id))[0]?.status === 'delivered');
      // The attempt leaves the count once its own write of the result has come back to the
      // worker, which may be just after this test's read saw the row.
      await waitUntil(() => running.attemptsInFlight <= 25);
      expect(running.attemptsInFlight).toBe(25);
    }, 40_000);

    it('has at most 8 attempts of one subscription in flight, never a later event of a resource while an earlier one is', async () => {
      const slow = await receiver();
      slow.hold();
      await subscribe(slow, { events: ['employee.created', 'employee.updated'] });
      const ids: string[] = [];
      for (let n = 0; n < 12; n++)
        ids.push((await api.post('/employees', { employee_id: unique('SLOW'), first_name: 'Slo', last_name: `W${n}` })).body.id);
      await api.put(`/employees/${ids[0]}`, { work_phone: '1' });
      const running = worker({ timeoutMs: 10_000 }).start();

      await slow.waitFor(8);
      await realTime(1200);

      expect(slow.received.map((got) => `${got.event.type} ${got.event.data.id}`)).toEqual(
        ids.slice(0, 8).map((id) => `employee.created ${id}`),
      );
      expect(running.attemptsInFlight).toBe(8);
      slow.release();
      await slow.waitFor(13);
      const order = slow.received.map((got) => `${got.event.type} ${got.event.data.id}`);
      expect([...order].sort()).toEqual([...ids.map((id) => `employee.created ${id}`), `employee.updated ${ids[0]}`].sort());
      expect(order.indexOf(`employee.updated ${ids[0]}`)).toBeGreaterThan(order.indexOf(`employee.created ${ids[0]}`));
    }, 40_000);

    it('has at most the total bound of attempts in flight in all, and sends the rest as they end', async () => {
      const slow = await Promise.all(Array.from({ length: 5 }, () => receiver()));
      for (const to of slow) {
        to.hold();
        await subscribe(to, { events: ['employee.created'] });
      }
      await api.post('/employees', { employee_id: unique('TOTAL'), first_name: 'To', last_name: 'Tal' });
      const running = worker({ timeoutMs: 10_000, concurrency: { total: 3 } }).start();

      await waitUntil(async () => running.attemptsInFlight === 3);
      await realTime(1200);

      expect(slow.reduce((sum, to) => sum + to.received.length, 0)).toBe(3);
      expect(running.attemptsInFlight).toBe(3);
      for (const to of slow) to.release();
      await Promise.all(slow.map((to) => to.waitFor(1)));
      expect(slow.map((to) => to.events.length)).toEqual([1, 1, 1, 1, 1]);
    }, 40_000);
  });

  it('reports the backlog: deliveries queued and the age of the oldest', async () => {
    const slow = await receiver();
    slow.answer = () => 500;
    await subscribe(slow, { events: ['employee.created'] });
    await api.post('/employees', { employee_id: unique('BACK'), first_name: 'Back', last_name: 'Log' });
    // Queued an hour ago (the gauge reads its age on the real clock, when scraped).
    const anHourAgo = new Date(Date.now() - 3600 * 1000).toISOString().slice(0, 23).replace('T', ' ');
    await t.db('webhook_deliveries').update({ created_at: anHourAgo });

    await worker().runOnce();

    expect(await registry.getSingleMetricAsString('hrm_webhook_deliveries_queued')).toMatch(/ 1$/);
    const age = Number(/ ([\d.]+)$/.exec(await registry.getSingleMetricAsString('hrm_webhook_oldest_undelivered_seconds'))?.[1]);
    expect(age).toBeGreaterThanOrEqual(3600);
    expect(age).toBeLessThan(3600 + 600);
  });
});

let sequence = 0;
function unique(prefix: string): string {
  sequence += 1;
  return `${prefix}${process.pid}x${sequence}`;
}

/** The employee's (UTC) wall clock `seconds` from the test clock's now. */
function wallClock(t: TestApp, seconds: number): string {
  return new Date(t.clock.now().getTime() + seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

/** Real time passing, for what must not happen meanwhile (the worker's passes run every 0.5 s). */
function realTime(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` until it holds (a test failure after 10 s, not a timing assertion). */
async function waitUntil(condition: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('The condition did not come true');
    await realTime(50);
  }
}
