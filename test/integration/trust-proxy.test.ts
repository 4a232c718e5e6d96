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

  async function appTrusting(trustProxy: string | undefined, env: Record<string, string> = {}): Promise<TestApp> {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).trim().split('\n'));
        done();
      },
    });
    const t = await startTestApp(dialect, {
      env: { LOG_LEVEL: 'info', ...env, ...(trustProxy ? { TRUST_PROXY: trustProxy } : {}) },
      logDestination: sink,
    });
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

  /** Four requests through a local tunnel that passes X-Forwarded-For through: each claims another address. */
  const throughTunnel = async (t: TestApp, name: string) => {
    const statuses: number[] = [];
    // One after another: what is counted, not how concurrent requests race, is the point here.
    for (const n of [1, 2, 3, 4]) {
      const res = await request(t.app)
        .get(t.api('/echo'))
        .set('X-Forwarded-For', `203.0.113.${n}`)
        .set('X-Request-Id', `${name}-${n}-${dialect}`);
      statuses.push(res.status);
    }
    return statuses;
  };

  it('lets a client behind a tunnel on loopback choose its address under the default, escaping the per-address limit', async () => {
    const t = await appTrusting(undefined, { RATE_LIMIT_PER_IP: '3' });

    expect(await throughTunnel(t, 'tunnel-default')).toEqual([200, 200, 200, 200]);
    expect(remoteAddressOf(`tunnel-default-4-${dialect}`)).toBe('203.0.113.4');
  });

  it('believes no X-Forwarded-For with TRUST_PROXY=none (docs/deployment.md), so the per-address limit counts the tunnel', async () => {
    const t = await appTrusting('none', { RATE_LIMIT_PER_IP: '3' });

    expect((await throughTunnel(t, 'tunnel-none')).sort()).toEqual([200, 200, 200, 429]);
    expect(remoteAddressOf(`tunnel-none-1-${dialect}`)).toBe('127.0.0.1');
  });
});
