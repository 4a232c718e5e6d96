import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { MAX_SEGMENT_LENGTH } from '../../src/http/paths';
import { openApiDocumentFor } from '../../src/openapi';
import { type CloudTestApp, startCloudTestApp } from '../helpers/cloud-app';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser } from '../helpers/factories';
import { checkParameter, checkRequestBody, documentedResponse } from '../helpers/openapi-check';
import { expectProblem } from '../helpers/problem';
import { startTestApp, type TestApp, useTestApp } from '../helpers/test-app';

/**
 * The document the code builds for the default configuration: the one the apps of this file serve
 * (built once per process and frozen), so building it once serves every test here.
 */
const document = openApiDocumentFor(loadConfig({}));

describe('docs/openapi.json', () => {
  it('is up to date with the code (run "npm run openapi" after changing an endpoint)', () => {
    const committed = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8'));

    expect(committed).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it('describes every path the server serves, with exactly the methods it allows', async () => {
    const paths = new Set<string>();
    const t = await startTestApp('sqlite', {
      onRoute: (route) => {
        if (route.method !== 'OPTIONS') paths.add(route.url.replace('/app/api', '').replace(/:(\w+)/g, '{$1}'));
      },
    });
    try {
      for (const path of paths) {
        const documented = Object.keys(document.paths?.[path] ?? {}).filter((key) => key !== 'servers');
        // OPTIONS on a path under the base lists what it serves; the health checks serve GET.
        const allow =
          path.startsWith('/healthz') || path.startsWith('/readyz')
            ? 'GET'
            : (await request(t.app).options(t.api(path.replace(/\{\w+\}/g, '1')))).headers.allow;
        const served = String(allow)
          .split(', ')
          .filter((method) => method !== 'HEAD' && method !== 'OPTIONS')
          .map((method) => method.toLowerCase());
        expect({ path, methods: documented.sort() }).toEqual({ path, methods: served.sort() });
      }
    } finally {
      await t.close();
    }
    expect(paths.size).toBeGreaterThan(20);
  });

  it('has every path under its server, where Prism and Postman look for it: no servers of its own, and served under the base path', async () => {
    const served = new Set<string>();
    const t = await startTestApp('sqlite', {
      onRoute: (route) => {
        if (route.url.startsWith('/app/api/')) served.add(route.url.replace('/app/api', '').replace(/:(\w+)/g, '{$1}'));
      },
    });
    await t.close();
    const items = Object.entries(document.paths ?? {});

    // Both tools resolve every path under the document's server and ignore `servers` elsewhere.
    expect(
      items.filter(
        ([, item]) => 'servers' in item || Object.values(item).some((operation) => typeof operation === 'object' && 'servers' in operation),
      ),
    ).toEqual([]);
    expect(items.map(([path]) => path).filter((path) => !served.has(path))).toEqual([]);
    // The health checks are served at the root, outside the document, and documented beside it.
    const api = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'api.md'), 'utf8');
    expect(api).toMatch(/## Health checks[\s\S]*`GET \/healthz`[\s\S]*`GET \/readyz`/);
  });
});

describe('what docs/openapi.json promises generated clients', () => {
  const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => method !== 'servers' && method !== 'parameters')
      .map(([method, operation]) => ({ path, method, operation: operation as Record<string, any> })),
  );

  it('names every operation with a unique operationId', () => {
    const ids = operations.map(({ operation }) => operation.operationId);

    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(operations.length);
    expect(operations.find(({ path, method }) => path === '/employees/{id}' && method === 'patch')?.operation.operationId).toBe(
      'patchEmployee',
    );
  });

  it('has bearer as the root security, and says security: [] exactly on the public operations', () => {
    const publicOperations = operations
      .filter(({ operation }) => operation.security.length === 0)
      .map(({ path, method }) => `${method} ${path}`);

    expect(document.security).toEqual([{ bearer: [] }]);
    expect(publicOperations.sort()).toEqual(
      ['get /calendar/{file}', 'get /docs', 'get /docs/{file}', 'get /echo', 'get /openapi.json', 'post /oauth/token'].sort(),
    );
    expect(operations.every(({ operation }) => Array.isArray(operation.security))).toBe(true);
  });

  it(`bounds every path parameter to ${MAX_SEGMENT_LENGTH} characters that need no escaping, so no request it allows meets the 414 of a longer segment`, () => {
    const parameters = operations.flatMap(({ path, method, operation }) =>
      ((operation.parameters ?? []) as Array<{ in: string; name: string; schema: { example?: string; enum?: string[] } }>)
        .map((parameter, index) => ({ path, method, index, parameter }))
        .filter(({ parameter }) => parameter.in === 'path'),
    );
    const refusedValues = ({ path, method, index, parameter }: (typeof parameters)[number]) => {
      const valid = parameter.schema.example ?? parameter.schema.enum?.[0] ?? '';
      const tooLong = [valid, 'a', '7', '-'].map((character) => character.slice(0, 1).repeat(MAX_SEGMENT_LENGTH + 1));
      const escaped = ['%41', 'é', ' ', '?', '#', '/'].map((character) => `${valid}${character}`);
      return {
        parameter: `${method} ${path} ${parameter.name}`,
        valid: checkParameter(path, method, index, valid) === undefined,
        allowed: [...tooLong, ...escaped].filter((value) => checkParameter(path, method, index, value) === undefined),
      };
    };

    expect(parameters.length).toBeGreaterThan(40);
    for (const parameter of parameters) {
      const verdict = refusedValues(parameter);
      expect(verdict).toEqual({ parameter: verdict.parameter, valid: true, allowed: [] });
    }
  });

  it('documents POST /tokens without a body, as the server answers it', () => {
    const rotate = operations.find(({ path, method }) => path === '/tokens' && method === 'post')?.operation;

    expect(rotate?.requestBody.required).toBe(false);
  });
});

describe.each(testDialects())('the response headers docs/openapi.json declares, on %s', (dialect) => {
  const t = useTestApp(dialect, { env: { RATE_LIMIT_PER_TOKEN: '600', RATE_LIMIT_PER_IP: '60' } });

  /** The headers the document declares for this answer, all of which the answer must carry. */
  function expectDeclaredHeaders(res: request.Response, path: string, method: string, optional: string[] = []) {
    const answer = documentedResponse(document, '', (document.paths as any)[path][method].responses[String(res.status)]);
    const declared = Object.keys((answer?.response as { headers?: object } | undefined)?.headers ?? {});
    expect(declared.length).toBeGreaterThan(0);
    for (const name of declared.filter((header) => !optional.includes(header))) {
      expect({ status: res.status, header: name, sent: res.headers[name.toLowerCase()] !== undefined }).toEqual({
        status: res.status,
        header: name,
        sent: true,
      });
    }
    return declared;
  }

  it('sends them where it declares them: 401, 405, 201 with Location, a replayed write, POST /tokens without a body', async () => {
    const admin = await createUser(t, 'admin');
    const unauthenticated = await request(t.app).get(t.api('/employees/me'));
    const wrongMethod = await request(t.app).delete(t.api('/employees')).auth(admin.token, { type: 'bearer' });
    const create = () =>
      request(t.app)
        .post(t.api('/departments'))
        .auth(admin.token, { type: 'bearer' })
        .set('Idempotency-Key', 'headers-1')
        .send({ name: 'Header checks' });
    const created = await create();
    const replayed = await create();

    expect(expectDeclaredHeaders(unauthenticated, '/employees/me', 'get')).toEqual([
      'X-Request-Id',
      'RateLimit',
      'RateLimit-Policy',
      'WWW-Authenticate',
    ]);
    // DELETE is no operation of /employees: its 405 is the one every operation there declares.
    expect(wrongMethod.status).toBe(405);
    expect(expectDeclaredHeaders(wrongMethod, '/employees', 'get')).toContain('Allow');
    expect(expectDeclaredHeaders(created, '/departments', 'post', ['Idempotent-Replayed'])).toContain('Location');
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expectDeclaredHeaders(replayed, '/departments', 'post');

    const user = await createUser(t, 'employee');
    const rotated = await request(t.app).post(t.api('/tokens')).auth(user.token, { type: 'bearer' });
    expect(rotated.status).toBe(201);
    expectDeclaredHeaders(rotated, '/tokens', 'post', ['Idempotent-Replayed']);
  });
});

describe.each(testDialects())('the served documentation on %s', (dialect) => {
  const t = useTestApp(dialect);

  it('serves the OpenAPI document without a token, for this base path', async () => {
    const res = await request(t.app).get(t.api('/openapi.json'));

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.servers).toEqual([{ url: '/app/api', 'x-internal': false }]);
    expect(res.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('keeps it behind the settings gate', async () => {
    await t.setApiEnabled(false);
    try {
      expectProblem(await request(t.app).get(t.api('/openapi.json')), 403, 'api_disabled');
    } finally {
      await t.setApiEnabled(true);
    }
  });

  it('serves the docs page and its files from the package, with a CSP that lets only them run', async () => {
    const page = await request(t.app).get(t.api('/docs'));
    const bundle = await request(t.app).get(t.api('/docs/swagger-ui-bundle.js'));
    const init = await request(t.app).get(t.api('/docs/init.js'));

    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.text).toContain('<script src="docs/swagger-ui-bundle.js"></script>');
    expect(page.text).not.toMatch(/https?:\/\//);
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(bundle.text.length).toBeGreaterThan(100_000);
    expect(init.text).toContain("url: 'openapi.json'");
    expect(init.text).toContain('validatorUrl: null');
  });

  it("sends /docs/ to /docs, where the page's relative URLs resolve", async () => {
    const res = await request(t.app).get(t.api('/docs/'));

    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('../docs');
    expect(new URL(res.headers.location as string, `http://example.test${t.api('/docs/')}`).pathname).toBe(t.api('/docs'));
    expect(res.text).toBe('');
  });

  it("answers 404 for files that are not the page's", async () => {
    expectProblem(await request(t.app).get(t.api('/docs/package.json')), 404, 'not_found');
    expectProblem(await request(t.app).get(t.api('/docs/..%2F..%2Fpackage.json')), 404, 'not_found');
    // Names of Object.prototype's members are files like any other: not found.
    expectProblem(await request(t.app).get(t.api('/docs/constructor')), 404, 'not_found');
    expectProblem(await request(t.app).get(t.api('/docs/__proto__')), 404, 'not_found');
  });
});

describe.each(testDialects())('the served documentation in cloud mode on %s', (dialect) => {
  let c: CloudTestApp;
  beforeAll(async () => {
    c = await startCloudTestApp(dialect);
    await c.createInstance('alpha');
    await c.createInstance('beta');
  });
  afterAll(() => c.close());

  it("gives each instance a document whose server defaults to that instance, so the docs page's try-it calls it", async () => {
    const alpha = await request(c.app).get(c.api('alpha', '/openapi.json'));
    const beta = await request(c.app).get(c.api('beta', '/openapi.json'));

    expect(alpha.status).toBe(200);
    expect(alpha.body.servers).toEqual([
      {
        url: '/api/{instance}',
        variables: { instance: { default: 'alpha', description: 'The instance (customer) name' } },
        'x-internal': false,
      },
    ]);
    expect(beta.status).toBe(200);
    expect(beta.body.servers[0].variables.instance.default).toBe('beta');
    expect(beta.body.paths).toEqual(alpha.body.paths);
  });
});

describe.each(testDialects())('punch-log entries docs/openapi.json accepts, and the server, on %s', (dialect) => {
  let t: TestApp;
  let device: string;
  let employee: number;
  const badge = 4_200_000 + (process.pid % 100_000);
  beforeAll(async () => {
    t = await startTestApp(dialect);
    const admin = await createUser(t, 'admin');
    const res = await request(t.app).post(t.api('/attendance/devices')).auth(admin.token, { type: 'bearer' }).send({ name: 'Schema door' });
    device = res.body.token;
    employee = await createEmployee(t, { attendance_device_id: String(badge) });
  });
  afterAll(() => t.close());

  let sequence = 0;
  const time = () => `2026-03-02 08:${String(sequence++).padStart(2, '0')}:00`;
  const cases: Array<[string, () => Record<string, unknown>, boolean]> = [
    ['employee as a number, log_id as a number', () => ({ log_id: 9001 + sequence, employee, time: time() }), true],
    ['employee as text, log_id as text', () => ({ log_id: `t-${sequence}`, employee: String(employee), time: time() }), true],
    ['attendance_device_id as a number', () => ({ log_id: 9101 + sequence, attendance_device_id: badge, time: time() }), true],
    [
      'attendance_device_id as text',
      () => ({ log_id: `b-${sequence}`, attendance_device_id: String(badge), time: time(), direction: 'in' }),
      true,
    ],
    [
      'both employee and attendance_device_id',
      () => ({ log_id: `x-${sequence}`, employee, attendance_device_id: String(badge), time: time() }),
      false,
    ],
    ['neither employee nor attendance_device_id', () => ({ log_id: `y-${sequence}`, time: time() }), false],
    ['employee 0', () => ({ log_id: `z-${sequence}`, employee: 0, time: time() }), false],
    ['employee 2.5', () => ({ log_id: `z-${sequence}`, employee: 2.5, time: time() }), false],
    ['employee as a reference object', () => ({ log_id: `z-${sequence}`, employee: { id: String(employee) }, time: time() }), false],
    ['a negative log_id', () => ({ log_id: -1, employee, time: time() }), false],
    ['a fractional log_id', () => ({ log_id: 1.5, employee, time: time() }), false],
    ['an empty attendance_device_id', () => ({ log_id: `e-${sequence}`, attendance_device_id: '', time: time() }), false],
  ];

  it.each(cases)('gives one verdict on %s', async (_name, entry, accepted) => {
    const body = { entries: [entry()] };

    const res = await request(t.app).post(t.api('/attendance/punch-logs')).auth(device, { type: 'bearer' }).send(body);
    const verdict = checkRequestBody('/attendance/punch-logs', 'post', body);

    expect({ server: res.status, document: verdict === undefined }).toEqual({ server: accepted ? 200 : 422, document: accepted });
  });
});
