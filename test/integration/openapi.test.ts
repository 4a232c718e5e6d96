import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { buildOpenApiDocument } from '../../src/openapi';
import { type CloudTestApp, startCloudTestApp } from '../helpers/cloud-app';
import { testDialects } from '../helpers/databases';
import { createUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { startTestApp, useTestApp } from '../helpers/test-app';

describe('docs/openapi.json', () => {
  it('is up to date with the code (run "npm run openapi" after changing an endpoint)', () => {
    const committed = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8'));

    expect(committed).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(loadConfig({})))));
  });

  it('describes every path the server serves, with exactly the methods it allows', async () => {
    const document = buildOpenApiDocument(loadConfig({}));
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
        const allow = path.startsWith('/healthz') || path.startsWith('/readyz') ? 'GET' : (await request(t.app).options(t.api(path.replace(/\{\w+\}/g, '1')))).headers.allow;
        const served = String(allow).split(', ').filter((method) => method !== 'HEAD' && method !== 'OPTIONS').map((method) => method.toLowerCase());
        expect({ path, methods: documented.sort() }).toEqual({ path, methods: served.sort() });
      }
    } finally {
      await t.close();
    }
    expect(paths.size).toBeGreaterThan(20);
  });
});

describe('what docs/openapi.json promises generated clients', () => {
  const document = buildOpenApiDocument(loadConfig({}));
  const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => method !== 'servers' && method !== 'parameters')
      .map(([method, operation]) => ({ path, method, operation: operation as Record<string, any> })),
  );

  it('names every operation with a unique operationId', () => {
    const ids = operations.map(({ operation }) => operation.operationId);

    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(operations.length);
    expect(operations.find(({ path, method }) => path === '/employees/{id}' && method === 'patch')?.operation.operationId).toBe('patchEmployee');
  });

  it('has bearer as the root security, and says security: [] exactly on the public operations', () => {
    const publicOperations = operations.filter(({ operation }) => operation.security.length === 0).map(({ path, method }) => `${method} ${path}`);

    expect(document.security).toEqual([{ bearer: [] }]);
    expect(publicOperations.sort()).toEqual(
      ['get /docs', 'get /docs/{file}', 'get /echo', 'get /healthz', 'get /openapi.json', 'get /readyz', 'post /oauth/token'].sort(),
    );
    expect(operations.every(({ operation }) => Array.isArray(operation.security))).toBe(true);
  });

  it('documents POST /tokens without a body, as the server answers it', () => {
    const rotate = operations.find(({ path, method }) => path === '/tokens' && method === 'post')?.operation;

    expect(rotate?.requestBody.required).toBe(false);
  });
});

describe.each(testDialects())('the response headers docs/openapi.json declares, on %s', (dialect) => {
  const t = useTestApp(dialect, { env: { RATE_LIMIT_PER_TOKEN: '600', RATE_LIMIT_PER_IP: '60' } });
  const document = buildOpenApiDocument(loadConfig({}));

  /** The headers the document declares for this answer, all of which the answer must carry. */
  function expectDeclaredHeaders(res: request.Response, path: string, method: string, optional: string[] = []) {
    const declared = Object.keys((document.paths as any)[path][method].responses[String(res.status)].headers ?? {});
    expect(declared.length).toBeGreaterThan(0);
    for (const name of declared.filter((header) => !optional.includes(header))) {
      expect({ status: res.status, header: name, sent: res.headers[name.toLowerCase()] !== undefined }).toEqual({ status: res.status, header: name, sent: true });
    }
    return declared;
  }

  it('sends them where it declares them: 401, 405, 201 with Location, a replayed write, POST /tokens without a body', async () => {
    const admin = await createUser(t, 'admin');
    const unauthenticated = await request(t.app).get(t.api('/employees/me'));
    const wrongMethod = await request(t.app).delete(t.api('/employees')).auth(admin.token, { type: 'bearer' });
    const create = () =>
      request(t.app).post(t.api('/departments')).auth(admin.token, { type: 'bearer' }).set('Idempotency-Key', 'headers-1').send({ name: 'Header checks' });
    const created = await create();
    const replayed = await create();

    expect(expectDeclaredHeaders(unauthenticated, '/employees/me', 'get')).toEqual(['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'WWW-Authenticate']);
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

  it('sends /docs/ to /docs, where the page\'s relative URLs resolve', async () => {
    const res = await request(t.app).get(t.api('/docs/'));

    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('../docs');
    expect(new URL(res.headers.location as string, `http://example.test${t.api('/docs/')}`).pathname).toBe(t.api('/docs'));
    expect(res.text).toBe('');
  });

  it('answers 404 for files that are not the page\'s', async () => {
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
      { url: '/api/{instance}', variables: { instance: { default: 'alpha', description: 'The instance (customer) name' } }, 'x-internal': false },
    ]);
    expect(beta.status).toBe(200);
    expect(beta.body.servers[0].variables.instance.default).toBe('beta');
    expect(beta.body.paths).toEqual(alpha.body.paths);
  });
});
