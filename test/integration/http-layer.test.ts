import net from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { insertAttendanceRow } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createUser, type TestUser } from '../helpers/factories';
import { send } from '../helpers/http-client';
import { expectProblem } from '../helpers/problem';
import { useTestApp } from '../helpers/test-app';

/** What the HTTP server and Express must give every route: HEAD, trailing slashes, slow and broken clients. */
describe.each(testDialects())('the HTTP layer on %s', (dialect) => {
  const routes: Array<{ methods: string[]; url: string }> = [];
  const t = useTestApp(dialect, { onRoute: (route) => routes.push({ methods: [route.method].flat(), url: route.url }) });
  let admin: TestUser;
  let served: Array<{ methods: string[]; path: string }>;
  let origin: string;
  /** A path of the API with its parameters filled in with rows that exist. */
  let fill: (path: string) => string;

  beforeAll(async () => {
    served = routes.map((route) => ({ methods: route.methods, path: route.url.replace(t.config.basePath, '') }));
    admin = await createUser(t, 'admin');
    const employee = String(admin.employeeId);
    const attendance = String(await insertAttendanceRow(t, admin.employeeId, { in: '2026-01-05T08:00:00Z', out: '2026-01-05T16:00:00Z' }));
    fill = (path) =>
      path
        .replace(/^\/attendance\/:id/, `/attendance/${attendance}`)
        .replace(':id', employee)
        .replace(':date', 'today')
        .replace(':file', 'swagger-ui.css')
        .replace(/^\/countries\/:key/, '/countries/US')
        .replace(':key', '1');
    await new Promise<void>((resolve) => t.app.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(t.app.address() as AddressInfo).port}`;
  });

  const get = (path: string, method: 'get' | 'head' = 'get') => request(t.app)[method](t.api(path)).auth(admin.token, { type: 'bearer' });

  it("answers HEAD on every path that serves GET, with the GET answer's status and headers and no body", async () => {
    const paths = served.filter((route) => route.methods.includes('GET')).map((route) => fill(route.path));
    expect(paths.length).toBeGreaterThan(20);

    for (const path of paths) {
      const [full, head] = [await get(path), await get(path, 'head')];
      // Echo's number differs from one answer to the next, and so may its length.
      const lengthOf = (res: typeof full) => (path === '/echo' ? 'random' : res.headers['content-length']);

      expect({ path, status: head.status, type: head.headers['content-type'], length: lengthOf(head) }).toEqual({
        path,
        status: full.status,
        type: full.headers['content-type'],
        length: lengthOf(full),
      });
      expect(head.text ?? '').toBe('');
    }
  });

  it('answers every path with a trailing slash as without it', async () => {
    const paths = served.filter((route) => route.methods.includes('GET') && route.path !== '/docs').map((route) => fill(route.path));

    for (const path of paths) {
      const [plain, slashed] = [await get(path), await get(`${path}/`)];

      expect({ path, status: slashed.status }).toEqual({ path, status: plain.status });
    }
  });

  it('answers headers sent too slowly with a 408 problem and closes the connection', async () => {
    t.app.headersTimeout = 500;
    t.app.requestTimeout = 1000;
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(new URL(origin).port), '127.0.0.1', () =>
          socket.write(`GET ${t.api('/echo')} HTTP/1.1\r\nHost: x\r\n`),
        );
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString('utf8')));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      const [head = '', body = ''] = answer.split('\r\n\r\n');

      expect(head).toMatch(/^HTTP\/1\.1 408 /);
      expect(head).toMatch(/\r\nX-Request-Id: [\w-]+\r\n/);
      expect(JSON.parse(body)).toMatchObject({ status: 408, code: 'request_timeout' });
    } finally {
      t.app.headersTimeout = 10_000;
      t.app.requestTimeout = 30_000;
    }
  });

  it('answers a malformed request line with a 400 problem', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(new URL(origin).port), '127.0.0.1', () => socket.write('GET /app/api/echo HTTP/9.9 junk\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });

    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.split('\r\n\r\n')[1] ?? '')).toMatchObject({ status: 400, code: 'bad_request' });
  });

  it('answers an unknown path outside the base path with a 404 problem, and a known one with its method refused by 405', async () => {
    expectProblem(await send(origin, '/nowhere'), 404, 'not_found');
    const refused = await send(origin, t.api('/employees/me'), { method: 'PUT', headers: { Authorization: `Bearer ${admin.token}` } });

    expect(expectProblem(refused, 405, 'method_not_allowed').detail).toBe('Allowed methods: GET, HEAD');
    expect(refused.headers.allow).toBe('GET, HEAD');
  });
});
