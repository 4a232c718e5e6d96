import request from 'supertest';
import { type CloudTestApp, startCloudTestApp } from '../helpers/cloud-app';
import { testDialects } from '../helpers/databases';
import { expectProblem } from '../helpers/problem';

describe.each(testDialects())('attendance terminals in cloud mode on %s', (dialect) => {
  let t: CloudTestApp;
  beforeAll(async () => {
    t = await startCloudTestApp(dialect);
  });
  afterAll(() => t.close());

  it("takes a device's uploads on its own instance only, and keeps its token off the other routes there", async () => {
    const acme = await t.createInstance('acme');
    const globex = await t.createInstance('globex');
    const employee = await request(t.app)
      .post(t.api('acme', '/employees'))
      .auth(acme, { type: 'bearer' })
      .send({ employee_id: 'T1', first_name: 'Tess', last_name: 'Terminal', attendance_device_id: '4711' });
    expect(employee.status).toBe(201);
    expect(employee.body.attendance_device_id).toBe('4711');
    const device = await request(t.app).post(t.api('acme', '/attendance/devices')).auth(acme, { type: 'bearer' }).send({ name: 'Gate' });
    const upload = (instance: string) =>
      request(t.app)
        .post(t.api(instance, '/attendance/punch-logs'))
        .auth(device.body.token, { type: 'bearer' })
        .send({ entries: [{ log_id: '1', attendance_device_id: '4711', time: '2026-01-05T08:00:00Z' }] });

    const onAcme = await upload('acme');
    const onGlobex = await upload('globex');
    const elsewhere = await request(t.app).get(t.api('acme', '/employees')).auth(device.body.token, { type: 'bearer' });

    expect(onAcme.status).toBe(200);
    expect(onAcme.body.results).toEqual([{ log_id: '1', result: 'created', attendance: expect.any(String), action: 'opened' }]);
    expect(expectProblem(onGlobex, 401, 'invalid_token').detail).toBe('The token is not valid');
    expect(onGlobex.headers['www-authenticate']).toBe('Bearer realm="globex", error="invalid_token"');
    expectProblem(elsewhere, 403, 'forbidden');
    expect(elsewhere.headers['www-authenticate']).toBe('Bearer realm="acme", error="insufficient_scope"');
    const globexLog = await request(t.app).get(t.api('globex', '/attendance/punch-logs')).auth(globex, { type: 'bearer' });
    expect(globexLog.body).toEqual({ data: [], total: 0, nextPage: null, nextBefore: null });
  });
});
