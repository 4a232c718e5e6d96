import { Writable } from 'node:stream';
import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { createUser } from '../helpers/factories';
import { useFixture, useTestApp } from '../helpers/test-app';

describe.each(testDialects())('the access log on %s', (dialect) => {
  const lines: string[] = [];
  const entriesFor = (requestId: string) =>
    lines.map((line) => JSON.parse(line) as Record<string, any>).filter((entry) => entry.requestId === requestId);
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).trim().split('\n'));
      done();
    },
  });
  const t = useTestApp(dialect, { env: { LOG_LEVEL: 'info' }, logDestination: sink });
  const admin = useFixture(() => createUser(t, 'admin'));

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

  describe('a failed write with personal values', () => {
    const personal = { ssn_num: '987-65-4321', private_email: 'jane.private@example.org', nic_num: 'NIC-5551234' };
    const create = (requestId: string, employeeId: string) =>
      request(t.app)
        .post(t.api('/employees'))
        .set('X-Request-Id', requestId)
        .auth(admin.token, { type: 'bearer' })
        .send({ employee_id: employeeId, first_name: 'Jane', last_name: 'Doe', ...personal });
    const expectNoPersonalValues = () => {
      const all = lines.join('\n');
      for (const value of Object.values(personal)) expect(all).not.toContain(value);
    };

    it("logs the error without the SQL values (the driver's query text and Knex's message)", async () => {
      await t.db.schema.alterTable('employees', (table) => table.renameColumn('work_phone', 'renamed_work_phone'));
      let res;
      try {
        res = await create('log-test-3', 'LOG3');
      } finally {
        await t.db.schema.alterTable('employees', (table) => table.renameColumn('renamed_work_phone', 'work_phone'));
      }

      expect(res.status).toBe(500);
      const [logged] = entriesFor('log-test-3');
      expect(logged?.msg).toBe('unexpected error');
      expect(logged?.err.message).toMatch(/work_phone/);
      expect(logged?.err.message).toContain('?');
      expect(logged?.err.sql).toBeUndefined();
      expectNoPersonalValues();
      expect(await t.db('employees').where({ employee_id: 'LOG3' }).first()).toBeUndefined();
    });

    it('logs a duplicate the driver quotes the value of without the value', async () => {
      await t.db.schema.alterTable('employees', (table) => table.unique(['ssn_num'], { indexName: 'employees_ssn_test_unique' }));
      let res;
      try {
        expect((await create('log-test-4', 'LOG4')).status).toBe(201);
        res = await create('log-test-5', 'LOG5');
      } finally {
        await t.db.schema.alterTable('employees', (table) => table.dropUnique(['ssn_num'], 'employees_ssn_test_unique'));
      }

      expect(res.status).toBe(500);
      const [logged] = entriesFor('log-test-5');
      expect(logged?.msg).toBe('unexpected error');
      expect(logged?.err.message).toMatch(/ssn/);
      expectNoPersonalValues();
      expect(await t.db('employees').where({ employee_id: 'LOG5' }).first()).toBeUndefined();
    });
  });
});
