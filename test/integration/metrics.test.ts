import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import request from 'supertest';
import { Metrics, startMetricsServer } from '../../src/metrics/metrics';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser } from '../helpers/factories';
import { type TestApp, useTestApp } from '../helpers/test-app';

describe.each(testDialects())('metrics on %s', (dialect) => {
  let appDb: TestApp['db'] | undefined;
  const metrics = new Metrics(new Registry(), () => (appDb ? [{ name: 'main', db: appDb }] : []));
  const t = useTestApp(dialect, { metrics });
  let server: Server;
  let metricsUrl: string;
  beforeAll(async () => {
    appDb = t.db;
    server = await startMetricsServer(metrics.registry, { host: '127.0.0.1', port: 0 });
    metricsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  });
  afterAll(() => server.close());

  it('counts requests by route pattern and status, times them, and shows the database pool', async () => {
    const admin = await createUser(t, 'admin');
    const id = await createEmployee(t);
    await request(t.app)
      .get(t.api(`/employees/${id}`))
      .auth(admin.token, { type: 'bearer' });
    await request(t.app)
      .get(t.api(`/employees/${id}`))
      .auth(admin.token, { type: 'bearer' });
    await request(t.app).get(t.api('/employees/999999')).auth(admin.token, { type: 'bearer' });

    const text = await (await fetch(metricsUrl)).text();

    expect(text).toContain('hrm_http_requests_total{method="GET",route="/app/api/employees/:id",status="200"} 2');
    expect(text).toContain('hrm_http_requests_total{method="GET",route="/app/api/employees/:id",status="404"} 1');
    expect(text).toContain('hrm_http_request_duration_seconds_count{method="GET",route="/app/api/employees/:id",status="200"} 2');
    expect(text).toContain(
      'hrm_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/app/api/employees/:id",status="200"} 2',
    );
    expect(text).toMatch(/hrm_db_pool_used\{database="main"\} \d+/);
    expect(text).toMatch(/hrm_process_cpu_user_seconds_total \d/);
    expect(text).not.toMatch(/route="[^"]*\/\d+"/);
  });

  it('are not served on the API port', async () => {
    expect((await request(t.app).get('/metrics')).status).toBe(404);
    expect((await request(t.app).get(t.api('/metrics'))).status).toBe(401);
  });

  it('answer 404 for anything but GET /metrics on their own port', async () => {
    expect((await fetch(metricsUrl.replace('/metrics', '/'))).status).toBe(404);
  });
});
