import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { testDialects } from '../helpers/databases';
import { createUser, type TestUser } from '../helpers/factories';
import { type RawResponse, send } from '../helpers/http-client';
import { useTestApp } from '../helpers/test-app';
import { WEB_SERVER_VARIANTS, whenInstalled } from '../helpers/web-server-suite';
import { startWebServer, type WebServer } from '../../support/web-servers';

// The real server behind real nginx and Apache, run from the shipped configuration files, for an
// install at the web root and one in the /hr sub-directory. The client connects from 127.0.0.2,
// the web server reaches the API from 127.0.0.1, and the API trusts only 127.0.0.1 as a proxy.
const CLIENT_ADDRESS = '127.0.0.2';

async function until<T>(find: () => T | undefined, timeoutMs = 3000): Promise<T | undefined> {
  const started = Date.now();
  for (;;) {
    const found = find();
    if (found !== undefined || Date.now() - started > timeoutMs) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function problemOf(res: RawResponse): Record<string, any> {
  expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  return JSON.parse(res.text) as Record<string, any>;
}

describe.each(testDialects())('behind a real web server, on %s', (dialect) => {
  describe.each(WEB_SERVER_VARIANTS)('$kind with its $config config, application at "$prefix/"', ({ kind, config, prefix }) => {
    whenInstalled(kind, () => {
      const logLines: string[] = [];
      const appLog = () => logLines.map((line) => JSON.parse(line) as Record<string, any>);
      const sink = new Writable({
        write(chunk, _encoding, done) {
          logLines.push(...String(chunk).trim().split('\n'));
          done();
        },
      });
      const t = useTestApp(dialect, {
        env: { LOG_LEVEL: 'info', BASE_PATH: `${prefix}/app/api`, TRUST_PROXY: '127.0.0.1' },
        logDestination: sink,
      });
      let web: WebServer;
      let admin: TestUser;

      beforeAll(async () => {
        await new Promise<void>((resolve) => t.app.listen(0, '127.0.0.1', resolve));
        web = await startWebServer(kind, { config, prefix, upstreamPort: (t.app.address() as AddressInfo).port });
        admin = await createUser(t, 'admin');
      });
      afterAll(() => web?.stop());

      const call = (path: string, options: Parameters<typeof send>[2] = {}) =>
        send(web.origin, t.api(path), { localAddress: CLIENT_ADDRESS, ...options });
      const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

      it('answers GET /echo', async () => {
        const res = await call('/echo');

        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.text).toMatch(/^Echo \d+$/);
      });

      it('passes the Authorization header: GET /employees/me with a token', async () => {
        const res = await call('/employees/me', { headers: bearer(admin.token) });

        expect(res.status).toBe(200);
        expect(JSON.parse(res.text)).toMatchObject({ id: String(admin.employeeId), status: 'Active' });
      });

      it('passes a JSON body: POST /employees creates the employee, Location under the same prefix', async () => {
        const code = `WS${kind[0]}${config[0]}${prefix ? 'p' : 'r'}${dialect[0]}`.toUpperCase();

        const res = await call('/employees', {
          method: 'POST',
          headers: { ...bearer(admin.token), 'Content-Type': 'application/json; charset=utf-8' },
          body: JSON.stringify({ employee_id: code, first_name: 'Zoë', last_name: 'Proxy', country: 'US' }),
        });

        expect(res.status).toBe(201);
        const body = JSON.parse(res.text);
        expect(res.headers.location).toBe(`${prefix}/app/api/employees/${body.id}`);
        expect(body).toMatchObject({ employee_id: code, first_name: 'Zoë', country: { code: 'US' } });
        expect(await t.db('employees').where({ employee_id: code }).first('first_name')).toEqual({ first_name: 'Zoë' });
      });

      it('passes a query string with encoded characters', async () => {
        const provinces = await call('/provinces?country=U%53&limit=%33', { headers: bearer(admin.token) });
        const unknown = await call('/provinces?country=US&na%C3%AFve=a%26b', { headers: bearer(admin.token) });

        expect(provinces.status).toBe(200);
        const page = JSON.parse(provinces.text);
        expect(page.data).toHaveLength(3);
        expect(page.data.every((row: any) => row.country.code === 'US')).toBe(true);
        expect(page.nextPage).toBe(2);
        expect(unknown.status).toBe(400);
        expect(problemOf(unknown)).toMatchObject({ code: 'invalid_query', errors: [expect.objectContaining({ field: 'naïve' })] });
      });

      it('passes 401 with its WWW-Authenticate challenge through', async () => {
        const missing = await call('/employees/me');
        const invalid = await call('/employees/me', { headers: bearer('a.b.c') });

        expect(missing.status).toBe(401);
        expect(missing.headers['www-authenticate']).toBe('Bearer realm="hrm"');
        expect(problemOf(missing).code).toBe('unauthorized');
        expect(invalid.status).toBe(401);
        expect(invalid.headers['www-authenticate']).toBe('Bearer realm="hrm", error="invalid_token"');
      });

      it.each([
        ['a client X-Request-Id', { 'X-Request-Id': 'client-id.42' }],
        ['an unsafe client X-Request-Id', { 'X-Request-Id': 'bad id <x>' }],
        ['no X-Request-Id', {}],
      ])('logs the same request id as the API with %s', async (_case, headers: Record<string, string>) => {
        const res = await call('/echo', { headers });
        const requestId = String(res.headers['x-request-id']);

        expect(requestId).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
        // nginx's location snippet cannot keep a client's id (that needs a map in http {}).
        const keepsClientId = !(kind === 'nginx' && config === 'location');
        if (headers['X-Request-Id'] === 'client-id.42' && keepsClientId) expect(requestId).toBe('client-id.42');
        const apiLine = await until(() => appLog().find((entry) => entry.requestId === requestId && entry.msg === 'request completed'));
        const webLine = await until(() => web.accessLog().find((line) => line.endsWith(`request_id=${requestId}`)));
        expect(apiLine).toMatchObject({ path: t.api('/echo'), statusCode: 200 });
        expect(webLine).toContain(`"GET ${t.api('/echo')}" 200`);
      });

      it('logs the client address the web server saw, not a forged X-Forwarded-For', async () => {
        const res = await call('/echo', {
          headers: { 'X-Forwarded-For': '203.0.113.7', 'X-Request-Id': `xff-${kind}-${config}-${dialect}` },
        });

        const line = await until(() => appLog().find((entry) => entry.requestId === res.headers['x-request-id']));
        expect(line?.remoteAddress).toBe(CLIENT_ADDRESS);
        expect(web.accessLog().some((entry) => entry.startsWith(`${CLIENT_ADDRESS} `))).toBe(true);
      });

      it('refuses a body over the limit and writes nothing', async () => {
        const before = await t.db('employees').count({ n: '*' }).first();

        const res = await call('/employees', {
          method: 'POST',
          headers: { ...bearer(admin.token), 'Content-Type': 'application/json' },
          body: JSON.stringify({ employee_id: 'BIG', first_name: 'x'.repeat(150 * 1024), last_name: 'Big' }),
        });

        expect(res.status).toBe(413);
        // The complete nginx config answers nginx's own refusal in the API's problem format.
        if (kind === 'nginx' && config === 'server') {
          expect(problemOf(res)).toMatchObject({ code: 'payload_too_large', status: 413, request_id: res.headers['x-request-id'] });
        }
        expect(await t.db('employees').count({ n: '*' }).first()).toEqual(before);
      });
    });
  });
});
