import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { send } from '../helpers/http-client';
import { WEB_SERVER_VARIANTS, whenInstalled } from '../helpers/web-server-suite';
import { freePort, startWebServer, type WebServer } from '../../support/web-servers';

// What exactly each shipped web-server configuration sends upstream, byte for byte, seen by a
// bare recording server in place of the API. No database is involved, so these run once, not per
// dialect; web-servers.test.ts runs the real API behind the same configurations on both.

interface Received {
  url: string;
  headers: http.IncomingHttpHeaders;
}

describe.each(WEB_SERVER_VARIANTS)('the shipped $kind $config config, application at "$prefix/"', ({ kind, config, prefix }) => {
  whenInstalled(kind, () => {
    let upstream: http.Server;
    let web: WebServer;
    const received: Received[] = [];

    beforeAll(async () => {
      upstream = http.createServer((req, res) => {
        received.push({ url: req.url ?? '', headers: req.headers });
        res.setHeader('X-Request-Id', String(req.headers['x-request-id']));
        res.end('recorded');
      });
      await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
      web = await startWebServer(kind, { config, prefix, upstreamPort: (upstream.address() as AddressInfo).port });
    });
    afterAll(async () => {
      await web?.stop();
      await new Promise((resolve) => upstream?.close(resolve));
    });

    it('sends the path and query string exactly as received, with Authorization unchanged and the forwarding headers', async () => {
      const path = `${prefix}/app/api/employees/a%20b/%C3%A9?search=Zo%C3%AB+%26+co&filters=%7B%22status%22%3A%22Active%22%7D&empty=`;

      const res = await send(web.origin, path, {
        localAddress: '127.0.0.2',
        headers: { Authorization: 'Bearer eyJ.abc-_.xyz', 'X-Forwarded-For': '203.0.113.7' },
      });

      expect(res.status).toBe(200);
      const [seen] = received.splice(0);
      expect(seen?.url).toBe(path);
      expect(seen?.headers.authorization).toBe('Bearer eyJ.abc-_.xyz');
      // Appended, never replaced: the API's TRUST_PROXY decides how much of it to believe.
      expect(seen?.headers['x-forwarded-for']).toBe('203.0.113.7, 127.0.0.2');
      expect(seen?.headers['x-forwarded-proto']).toBe('http');
      expect(seen?.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
      expect(res.headers['x-request-id']).toBe(seen?.headers['x-request-id']);
    });

    it('sends nothing upstream for a path outside the API', async () => {
      const res = await send(web.origin, `${prefix}/app/other`);

      // nginx answers 403 or 404 from its own (empty) document root; Apache 404.
      expect([403, 404]).toContain(res.status);
      expect(received.splice(0)).toEqual([]);
    });
  });
});

describe('the shipped nginx server config with the API down', () => {
  whenInstalled('nginx', () => {
    let web: WebServer;
    beforeAll(async () => {
      web = await startWebServer('nginx', { config: 'server', prefix: '', upstreamPort: await freePort() });
    });
    afterAll(() => web?.stop());

    it('answers 503 service_unavailable as problem+json with Retry-After and the request id', async () => {
      const res = await send(web.origin, '/app/api/echo', { headers: { 'X-Request-Id': 'down-1' } });

      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['x-request-id']).toBe('down-1');
      expect(JSON.parse(res.text)).toMatchObject({ status: 503, code: 'service_unavailable', request_id: 'down-1' });
    });
  });
});
