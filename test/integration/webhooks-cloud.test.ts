import pino from 'pino';
import request from 'supertest';
import { startWebhookDelivery } from '../../src/webhooks/start';
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
      const subscribed = await request(t.app).post(t.api(name, '/webhooks')).auth(token, { type: 'bearer' }).send({ url: receiver.url, events: ['employee.created'] });
      expect(subscribed.status).toBe(201);
      receiver.secrets.push(subscribed.body.secret);
      const created = await request(t.app).post(t.api(name, '/employees')).auth(token, { type: 'bearer' }).send({ employee_id: `C-${name}`, first_name: 'Cloud', last_name: name });
      ids[name] = created.body.id;
    }

    const worker = startWebhookDelivery({ config: t.config, logger: pino({ level: 'silent' }), clock: t.clock, instances: t.directory, control: t.control.db });
    try {
      await receiver.waitFor(2);
    } finally {
      await worker.stop();
    }

    const byInstance = Object.fromEntries(receiver.received.map((got) => [got.event.instance, got]));
    expect(Object.keys(byInstance).sort()).toEqual(['acme', 'globex']);
    for (const name of ['acme', 'globex']) {
      expect(byInstance[name]?.event).toMatchObject({ type: 'employee.created', instance: name, data: { id: ids[name], employee_id: `C-${name}` } });
      // Each instance signs with its own subscription's secret: exactly one of the two verifies.
      expect(byInstance[name]?.verifiedWith).toHaveLength(1);
    }
  });
});
