import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { deliveryBody } from '../../src/webhooks/payload';
import { sendWebhook } from '../../src/webhooks/sender';
import { newSigningSecret, signatureHeader } from '../../src/webhooks/signing';

describe('sendWebhook', () => {
  let server: http.Server;
  let port: number;
  const got: Array<{ host: string | undefined; body: string }> = [];
  let answer: (res: http.ServerResponse) => void = (res) => res.writeHead(204).end();
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        got.push({ host: req.headers.host, body });
        answer(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    got.length = 0;
    answer = (res) => res.writeHead(204).end();
  });

  const loopbackAllowed = { allowHttp: true, allowPrivate: true };
  const to = (url: string) => ({ url, headers: { 'Content-Type': 'application/json' }, body: '{"ok":true}' });

  it('connects to the address it checked, not to what a second resolution would say', async () => {
    const resolve = jest.fn(async () => [{ address: '127.0.0.1', family: 4 as const }]);

    const result = await sendWebhook(to(`http://receiver.invalid:${port}/in`), { policy: loopbackAllowed, resolve, timeoutMs: 2000 });

    expect(result).toEqual({ delivered: true, status: 204, error: null });
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(got).toEqual([{ host: `receiver.invalid:${port}`, body: '{"ok":true}' }]);
  });

  it('refuses, without connecting, a name that now resolves to loopback (DNS changed since the subscription)', async () => {
    const resolve = async () => [{ address: '127.0.0.1', family: 4 as const }];

    const result = await sendWebhook(to(`http://receiver.invalid:${port}/in`), {
      policy: { allowHttp: true, allowPrivate: false },
      resolve,
      timeoutMs: 2000,
    });

    expect(result).toEqual({
      delivered: false,
      status: null,
      error: expect.stringMatching(/^refused: host receiver\.invalid resolves to 127\.0\.0\.1, a loopback address/),
    });
    expect(got).toHaveLength(0);
  });

  it.each([`http://127.0.0.1:PORT/in`, `http://[::1]:PORT/in`, `http://localhost:PORT/in`])(
    'refuses %s without connecting',
    async (url) => {
      const result = await sendWebhook(to(url.replace('PORT', String(port))), {
        policy: { allowHttp: true, allowPrivate: false },
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
        timeoutMs: 2000,
      });

      expect(result.delivered).toBe(false);
      expect(result.error).toMatch(/^refused: .*(loopback|unspecified, loopback)/);
      expect(got).toHaveLength(0);
    },
  );

  it('counts a redirect as a failure and keeps only a short excerpt of an error answer', async () => {
    answer = (res) => res.writeHead(301, { Location: 'http://127.0.0.1:1/' }).end();
    const redirected = await sendWebhook(to(`http://127.0.0.1:${port}/in`), {
      policy: loopbackAllowed,
      resolve: async () => [],
      timeoutMs: 2000,
    });
    answer = (res) => res.writeHead(500).end(`boom ${'y'.repeat(5000)}`);
    const failed = await sendWebhook(to(`http://127.0.0.1:${port}/in`), {
      policy: loopbackAllowed,
      resolve: async () => [],
      timeoutMs: 2000,
    });

    expect(redirected).toEqual({ delivered: false, status: 301, error: 'answered 301: redirects are not followed' });
    expect(failed).toEqual({ delivered: false, status: 500, error: `answered 500: boom ${'y'.repeat(195)}` });
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    answer = () => undefined;

    const result = await sendWebhook(to(`http://127.0.0.1:${port}/in`), {
      policy: loopbackAllowed,
      resolve: async () => [],
      timeoutMs: 300,
    });

    expect(result).toEqual({ delivered: false, status: null, error: 'no answer within 0.3 s' });
  });
});

describe('signatures and bodies', () => {
  it('signs as Standard Webhooks verifies, one signature per secret', () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    const body = '{"id":"evt_1"}';
    const now = new Date();
    const header = signatureHeader([current, previous], 'evt_1', now, body);
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': header };

    expect(current).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(header.split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual({ id: 'evt_1' });
    expect(new Webhook(previous).verify(body, headers)).toEqual({ id: 'evt_1' });
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow('No matching signature found');
    expect(() => new Webhook(current).verify('{"id":"evt_2"}', headers)).toThrow('No matching signature found');
  });

  it('leaves personal fields out of employee events unless the subscription includes them', () => {
    const event = {
      eventId: 'evt_1',
      type: 'employee.updated',
      occurredAt: '2026-11-24 10:00:00.000',
      payload: JSON.stringify({ data: { id: '5', first_name: 'A', birthday: '1990-01-01', city: 'Berlin' }, changed_fields: ['city'] }),
    };

    const plain = JSON.parse(deliveryBody(event, { instance: 'acme', includePersonal: false }));
    const personal = JSON.parse(deliveryBody(event, { instance: null, includePersonal: true }));

    expect(Object.keys(plain)).toEqual(['id', 'type', 'occurred_at', 'instance', 'changed_fields', 'data']);
    expect(plain).toMatchObject({ id: 'evt_1', occurred_at: '2026-11-24T10:00:00.000Z', instance: 'acme', changed_fields: ['city'] });
    expect(plain.data).toEqual({
      id: '5',
      first_name: 'A',
      restricted_fields: expect.arrayContaining(['birthday', 'city', 'private_email']),
    });
    expect(personal.data).toEqual({ id: '5', first_name: 'A', birthday: '1990-01-01', city: 'Berlin' });
  });
});
