import { Writable } from 'node:stream';
import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { startTestApp, type TestApp } from '../helpers/test-app';

// supertest connects from 127.0.0.1. Whether that address is a trusted proxy decides whether the
// X-Forwarded-For it sends is believed (TRUST_PROXY; never "trust everyone").
describe.each(testDialects())('TRUST_PROXY on %s', (dialect) => {
  const lines: string[] = [];
  const apps: TestApp[] = [];
  const remoteAddressOf = (requestId: string) =>
    lines.map((line) => JSON.parse(line) as Record<string, any>).find((entry) => entry.requestId === requestId)?.remoteAddress;

  async function appTrusting(trustProxy: string | undefined): Promise<TestApp> {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).trim().split('\n'));
        done();
      },
    });
    const t = await startTestApp(dialect, { env: { LOG_LEVEL: 'info', ...(trustProxy ? { TRUST_PROXY: trustProxy } : {}) }, logDestination: sink });
    apps.push(t);
    return t;
  }
  afterAll(() => Promise.all(apps.map((t) => t.close())));

  it('ignores X-Forwarded-For from an address that is not a trusted proxy, logging the socket address', async () => {
    const t = await appTrusting('10.1.2.3');

    await request(t.app).get(t.api('/echo')).set('X-Forwarded-For', '203.0.113.7').set('X-Request-Id', `spoof-${dialect}`);

    expect(remoteAddressOf(`spoof-${dialect}`)).toBe('127.0.0.1');
  });

  it('believes X-Forwarded-For from a trusted proxy (loopback by default), up to the first untrusted hop', async () => {
    const t = await appTrusting(undefined);

    await request(t.app).get(t.api('/echo')).set('X-Forwarded-For', '198.51.100.1, 203.0.113.7').set('X-Request-Id', `proxied-${dialect}`);

    // 203.0.113.7 is the client the proxy saw; what that client claimed before it is not believed.
    expect(remoteAddressOf(`proxied-${dialect}`)).toBe('203.0.113.7');
  });
});
