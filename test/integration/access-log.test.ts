import { Writable } from 'node:stream';
import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { createUser, type TestUser } from '../helpers/factories';
import { startTestApp, type TestApp } from '../helpers/test-app';

describe.each(testDialects())('the access log on %s', (dialect) => {
  let t: TestApp;
  let admin: TestUser;
  const lines: string[] = [];
  const entriesFor = (requestId: string) =>
    lines.map((line) => JSON.parse(line) as Record<string, any>).filter((entry) => entry.requestId === requestId);

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).trim().split('\n'));
        done();
      },
    });
    t = await startTestApp(dialect, { env: { LOG_LEVEL: 'info' }, logDestination: sink });
    admin = await createUser(t, 'admin');
  });
  afterAll(() => t.close());

  it('writes one line per request with id, method, path, status and time, and no token, query or body', async () => {
    await request(t.app)
      .post(t.api('/employees?search=Jane%20Doe'))
      .set('X-Request-Id', 'log-test-1')
      .auth(admin.token, { type: 'bearer' })
      .send({ employee_id: 'LOG1', first_name: 'Jane', last_name: 'Doe', ssn_num: '123-45-6789' });

    const entries = entriesFor('log-test-1');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      level: 30,
      msg: 'request completed',
      requestId: 'log-test-1',
      method: 'POST',
      path: '/app/api/employees',
      remoteAddress: '127.0.0.1',
      statusCode: 201,
    });
    expect(typeof entries[0]?.responseTime).toBe('number');
    const all = lines.join('\n');
    expect(all).not.toContain(admin.token.split('.')[2]);
    expect(all).not.toContain('Jane');
    expect(all).not.toContain('123-45-6789');
    expect(all).not.toContain('search');
  });

  it('logs an unexpected error once, with its stack, under the request id', async () => {
    await t.db.schema.alterTable('pay_grades', (table) => table.renameColumn('currency', 'renamed_currency'));
    try {
      await request(t.app).get(t.api('/pay-grades')).set('X-Request-Id', 'log-test-2').auth(admin.token, { type: 'bearer' });
    } finally {
      await t.db.schema.alterTable('pay_grades', (table) => table.renameColumn('renamed_currency', 'currency'));
    }

    const entries = entriesFor('log-test-2');
    expect(entries.map((entry) => entry.msg)).toEqual(['unexpected error', 'request completed']);
    expect(entries[0]?.err.stack).toMatch(/currency/);
    expect(entries[1]).toMatchObject({ level: 50, statusCode: 500 });
  });
});
