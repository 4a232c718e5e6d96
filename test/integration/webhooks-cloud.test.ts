import pino from 'pino';
import request from 'supertest';
import { startWebhookDelivery } from '../../src/webhooks/start';
import { DeliveryWorker } from '../../src/webhooks/worker';
import { type CloudTestApp, startCloudTestApp } from '../helpers/cloud-app';
import { testDialects } from '../helpers/databases';
import { WebhookReceiver } from '../helpers/webhook-receiver';

describe.each(testDialects())('webhooks in cloud mode on %s', (dialect) => {
  let t: CloudTestApp;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    t = await startCloudTestApp(dialect, { env: { WEBHOOK_ALLOW_HTTP: '1', WEBHOOK_ALLOW_PRIVATE: '1' } });
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it("delivers each instance's events from the worker main.ts starts, naming the instance", async () => {
    const ids: Record<string, string> = {};
    for (const name of ['acme', 'globex']) {
      const token = await t.createInstance(name);
      const subscribed = await request(t.app)
        .post(t.api(name, '/webhooks'))
        .auth(token, { type: 'bearer' })
        .send({ url: receiver.url, events: ['employee.created'] });
      expect(subscribed.status).toBe(201);
      receiver.secrets.push(subscribed.body.secret);
      const created = await request(t.app)
        .post(t.api(name, '/employees'))
        .auth(token, { type: 'bearer' })
        .send({ employee_id: `C-${name}`, first_name: 'Cloud', last_name: name });
      ids[name] = created.body.id;
    }

    const worker = startWebhookDelivery({
      config: t.config,
      logger: pino({ level: 'silent' }),
      clock: t.clock,
      instances: t.directory,
      control: t.control.db,
    });
    try {
      await receiver.waitFor(2);
    } finally {
      await worker.stop();
    }

    const byInstance = Object.fromEntries(receiver.received.map((got) => [got.event.instance, got]));
    expect(Object.keys(byInstance).sort()).toEqual(['acme', 'globex']);
    for (const name of ['acme', 'globex']) {
      expect(byInstance[name]?.event).toMatchObject({
        type: 'employee.created',
        instance: name,
        data: { id: ids[name], employee_id: `C-${name}` },
      });
      // Each instance signs with its own subscription's secret: exactly one of the two verifies.
      expect(byInstance[name]?.verifiedWith).toHaveLength(1);
    }
  });

  /** A new instance with a subscription per receiver and one employee.created for them. */
  const tenant = async (name: string, receivers: WebhookReceiver[]) => {
    const token = await t.createInstance(name);
    for (const to of receivers) {
      const subscribed = await request(t.app)
        .post(t.api(name, '/webhooks'))
        .auth(token, { type: 'bearer' })
        .send({ url: to.url, events: ['employee.created'] });
      expect(subscribed.status).toBe(201);
      to.secrets.push(subscribed.body.secret);
    }
    const created = await request(t.app)
      .post(t.api(name, '/employees'))
      .auth(token, { type: 'bearer' })
      .send({ employee_id: `E-${name}`, first_name: 'Ten', last_name: name });
    expect(created.status).toBe(201);
  };
  const hangingReceivers = async (count: number) =>
    Promise.all(
      Array.from({ length: count }, async () => {
        const started = await WebhookReceiver.start();
        started.hold();
        return started;
      }),
    );

  it("gets one tenant's healthy receiver its delivery within 2 s while another tenant's 25 receivers hang", async () => {
    // 'hangs' is walked before 'healthy' (the registry's order).
    const hanging = await hangingReceivers(25);
    const healthy = await WebhookReceiver.start();
    await tenant('hangs', hanging);
    await tenant('healthy', [healthy]);

    // The worker starts after the writes (an idle instance is looked at once a minute): the time
    // from its start is at most the time from the write.
    const worker = startWebhookDelivery({
      config: t.config,
      logger: pino({ level: 'silent' }),
      clock: t.clock,
      instances: t.directory,
      control: t.control.db,
    });
    const startedAt = Date.now();
    try {
      await healthy.waitFor(1, 15_000);
      const took = Date.now() - startedAt;
      await Promise.all(hanging.map((to) => to.waitFor(1)));

      expect(took).toBeLessThan(2000);
      expect(healthy.received[0]?.event).toMatchObject({ type: 'employee.created', instance: 'healthy' });
      expect(healthy.received[0]?.verifiedWith).toHaveLength(1);
      expect(hanging.map((to) => to.received.length)).toEqual(Array(25).fill(1));
    } finally {
      await worker.stop();
      await Promise.all([healthy, ...hanging].map((to) => to.close()));
    }
  }, 40_000);

  it('keeps a tenant to its bound of attempts in flight, and serves the next tenant meanwhile', async () => {
    const hanging = await hangingReceivers(10);
    const healthy = await WebhookReceiver.start();
    await tenant('busy', hanging);
    await tenant('calm', [healthy]);
    const worker = new DeliveryWorker({
      instances: t.directory,
      instanceNames: async () => ['busy', 'calm'],
      clock: t.clock,
      logger: pino({ level: 'silent' }),
      policy: { allowHttp: true, allowPrivate: true },
      timeoutMs: 10_000,
      concurrency: { perInstance: 4 },
    }).start();
    try {
      await healthy.waitFor(1, 15_000);
      await new Promise((resolve) => setTimeout(resolve, 1200));

      expect(healthy.received[0]?.event).toMatchObject({ type: 'employee.created', instance: 'calm' });
      expect(hanging.reduce((sum, to) => sum + to.received.length, 0)).toBe(4);
      expect(worker.attemptsInFlight).toBe(4);
    } finally {
      await worker.stop();
      await Promise.all([healthy, ...hanging].map((to) => to.close()));
    }
  }, 40_000);
});
