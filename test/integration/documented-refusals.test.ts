import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser, unique } from '../helpers/factories';
import { checkComponent, checkRequestBody } from '../helpers/openapi-check';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// Refusals the OpenAPI document states (issue 41, item 8): what it forbids the server refuses
// with a problem body that itself stays within the document, and what it allows is taken.

describe.each(testDialects())('refusals the OpenAPI document states, on %s', (dialect) => {
  const t = useTestApp(dialect);
  const admin = useFixture(() => createUser(t, 'admin'));

  const get = (path: string) => request(t.app).get(t.api(path)).auth(admin.token, { type: 'bearer' });
  const patch = (path: string) => request(t.app).patch(t.api(path)).auth(admin.token, { type: 'bearer' });
  const employeeRow = (id: number) => t.db('employees').where({ id }).first();
  const auditCount = async (id: number) =>
    Number(((await t.db('audit_log').where({ entity_type: 'employee', entity_id: id }).count({ n: '*' }).first()) as { n: number }).n);

  describe('If-Match and If-None-Match longer than 2,000 characters', () => {
    const tooLong = `"${'a'.repeat(1999)}"`;
    const longest = `"${'a'.repeat(1998)}"`;

    it('answers a PATCH with a longer If-Match 400 invalid_header and writes nothing', async () => {
      const id = await createEmployee(t, { city: 'Oslo' });
      const stored = await employeeRow(id);
      const audits = await auditCount(id);

      const res = await patch(`/employees/${id}`).set('If-Match', tooLong).send({ city: 'Bergen' });

      const body = expectProblem(res, 400, 'invalid_header');
      expect(body.errors).toEqual([{ field: 'If-Match', message: 'must be at most 2000 characters' }]);
      expect(checkComponent('Problem', body)).toBeUndefined();
      expect(await employeeRow(id)).toEqual(stored);
      expect(await auditCount(id)).toBe(audits);
    });

    it('reads an If-Match of exactly 2,000 characters: a tag that is not the current one is 412, nothing written', async () => {
      const id = await createEmployee(t, { city: 'Oslo' });
      const stored = await employeeRow(id);

      const res = await patch(`/employees/${id}`).set('If-Match', longest).send({ city: 'Bergen' });

      expect(longest).toHaveLength(2000);
      expectProblem(res, 412, 'precondition_failed');
      expect(await employeeRow(id)).toEqual(stored);
    });

    it('answers a GET with a longer If-None-Match 400 invalid_header, and reads one of 2,000 characters', async () => {
      const id = await createEmployee(t);

      const refused = await get(`/employees/${id}`).set('If-None-Match', tooLong);
      const read = await get(`/employees/${id}`).set('If-None-Match', longest);

      const body = expectProblem(refused, 400, 'invalid_header');
      expect(body.errors).toEqual([{ field: 'If-None-Match', message: 'must be at most 2000 characters' }]);
      expect(checkComponent('Problem', body)).toBeUndefined();
      expect(read.status).toBe(200);
      expect(read.body.id).toBe(String(id));
    });
  });

  describe('unknown names in fields=', () => {
    it('cuts each unknown name it repeats to 60 characters and names at most ten, so the problem fits the document', async () => {
      const id = await createEmployee(t);
      const names = Array.from({ length: 11 }, (_, i) => `${String.fromCharCode(97 + i)}${'x'.repeat(169)}`);

      const res = await get(`/employees/${id}?fields=first_name,${names.join(',')}`);

      const body = expectProblem(res, 400, 'invalid_query');
      const echoed = names.slice(0, 10).map((name) => `${name.slice(0, 60)}...`);
      expect(body.errors).toEqual([{ field: 'fields', message: `names unknown fields: ${echoed.join(', ')}` }]);
      expect(checkComponent('Problem', body)).toBeUndefined();
    });

    it('repeats a name of 60 characters whole', async () => {
      const id = await createEmployee(t);
      const name = 'y'.repeat(60);

      const res = await get(`/employees/${id}?fields=${name}`);

      expect(expectProblem(res, 400, 'invalid_query').errors).toEqual([{ field: 'fields', message: `names an unknown field: ${name}` }]);
    });
  });

  describe('the create bodies of the reference tables (<Name>Create) and POST /<table>', () => {
    type Body = (name: string) => Record<string, unknown>;
    const TABLES: Record<string, string> = {
      '/departments': 'departments',
      '/job-titles': 'job_titles',
      '/pay-grades': 'pay_grades',
      '/employment-statuses': 'employment_statuses',
      '/provinces': 'provinces',
    };
    const ALLOWED: Array<[string, string, Body]> = [
      ['/departments', 'a name alone', (name) => ({ name })],
      ['/departments', '"" for no description and no parent', (name) => ({ name, description: '', parent: '' })],
      ['/departments', 'null for no parent', (name) => ({ name, parent: null })],
      ['/job-titles', 'a code', (name) => ({ name, code: 'J1', description: 'Builds things' })],
      [
        '/pay-grades',
        'amounts as numbers and text, a currency in any case',
        (name) => ({ name, currency: 'eur', min_salary: 1000, max_salary: '2500.5' }),
      ],
      ['/pay-grades', 'an amount with two decimals', (name) => ({ name, min_salary: 12.25, max_salary: '12.25' })],
      ['/pay-grades', '"" and null for no currency and no amounts', (name) => ({ name, currency: '', min_salary: '', max_salary: null })],
      ['/employment-statuses', 'a name with blanks around it', (name) => ({ name: ` ${name} ` })],
      ['/provinces', 'a country code in lower case', (name) => ({ name, country: 'de' })],
      ['/provinces', 'a country as read', (name) => ({ name, code: 'IDF', country: { type: 'Country', code: 'FR', display: 'France' } })],
    ];
    const FORBIDDEN: Array<[string, string, Body]> = [
      ['/departments', 'no name', () => ({ description: 'x' })],
      ['/departments', 'a name of blanks', () => ({ name: ' \t\n' })],
      ['/departments', 'a name of 101 characters', () => ({ name: 'n'.repeat(101) })],
      ['/departments', 'a name that is a number', () => ({ name: 5 })],
      ['/departments', 'a parent id 0', (name) => ({ name, parent: 0 })],
      ['/departments', 'a parent id with a leading zero', (name) => ({ name, parent: '01' })],
      ['/departments', 'an unknown field', (name) => ({ name, budget: 1 })],
      ['/job-titles', 'a code of 51 characters', (name) => ({ name, code: 'c'.repeat(51) })],
      ['/job-titles', 'a description of 501 characters', (name) => ({ name, description: 'd'.repeat(501) })],
      ['/pay-grades', 'a four-letter currency', (name) => ({ name, currency: 'EURO' })],
      ['/pay-grades', 'a negative amount', (name) => ({ name, min_salary: -5 })],
      ['/pay-grades', 'three decimals as text', (name) => ({ name, min_salary: '1.234' })],
      ['/pay-grades', 'three decimals as a number', (name) => ({ name, min_salary: 1.234 })],
      ['/pay-grades', 'an amount beyond ten digits', (name) => ({ name, max_salary: 1e21 })],
      ['/pay-grades', 'an amount that is true', (name) => ({ name, min_salary: true })],
      ['/employment-statuses', 'a null name', () => ({ name: null })],
      ['/provinces', 'no country', (name) => ({ name })],
      ['/provinces', 'a null country', (name) => ({ name, country: null })],
      ['/provinces', 'a blank country', (name) => ({ name, country: '' })],
      ['/provinces', 'a three-letter country', (name) => ({ name, country: 'DEU' })],
      ['/provinces', 'a country object without its code', (name) => ({ name, country: { display: 'France' } })],
    ];
    const rowCount = async (path: string) => Number((await t.db(TABLES[path]!).count({ n: '*' }).first())?.n);
    const post = (path: string, body: object) => request(t.app).post(t.api(path)).auth(admin.token, { type: 'bearer' }).send(body);

    it.each(ALLOWED)('POST %s takes what the document allows: %s', async (path, _, body) => {
      const sent = body(unique('Row '));

      const res = await post(path, sent);

      expect(checkRequestBody(path, 'post', sent)).toBeUndefined();
      expect(res.status).toBe(201);
      expect(await t.db(TABLES[path]!).where({ id: res.body.id }).first()).toBeDefined();
    });

    it.each(FORBIDDEN)('POST %s refuses what the document forbids, 422 and nothing written: %s', async (path, _, body) => {
      const sent = body(unique('Row '));
      const count = await rowCount(path);

      const res = await post(path, sent);

      expect(checkRequestBody(path, 'post', sent)).toBeDefined();
      expectProblem(res, 422, 'validation_failed');
      expect(await rowCount(path)).toBe(count);
    });

    it('refuses a well-formed country code no stored country has, as the document says it may', async () => {
      const sent = { name: unique('Row '), country: 'ZZ' };
      const count = await rowCount('/provinces');

      const res = await post('/provinces', sent);

      expect(checkRequestBody('/provinces', 'post', sent)).toBeUndefined();
      expect(expectProblem(res, 422, 'validation_failed').errors).toEqual([
        { field: 'country', message: 'is not a known ISO 3166-1 country code' },
      ]);
      expect(await rowCount('/provinces')).toBe(count);
    });
  });

  describe('time zones (the TimeZone enum)', () => {
    const ACCEPTED = ['Europe/Berlin', 'UTC', 'US/Eastern', 'Asia/Calcutta', 'Etc/GMT+5'];
    const REFUSED = ['europe/berlin', 'Mars/Base', 'Factory', 'Europe/', '+02:00', 'z'.repeat(65)];
    const devices = async () => Number((await t.db('attendance_devices').count({ n: '*' }).first())?.n);
    const addDevice = (body: object) => request(t.app).post(t.api('/attendance/devices')).auth(admin.token, { type: 'bearer' }).send(body);

    it.each(ACCEPTED)('takes %s for a device and an employee, as the document allows', async (zone) => {
      const id = await createEmployee(t);

      const device = await addDevice({ name: unique('Door '), timezone: zone });
      const employee = await patch(`/employees/${id}`).send({ timezone: zone });

      expect(checkRequestBody('/attendance/devices', 'post', { name: 'Door', timezone: zone })).toBeUndefined();
      expect(checkComponent('TimeZone', zone)).toBeUndefined();
      expect([device.status, device.body.timezone]).toEqual([201, zone]);
      expect([employee.status, employee.body.timezone]).toEqual([200, zone]);
    });

    it.each(REFUSED)('refuses %s for a device and an employee, as the document forbids, writing nothing', async (zone) => {
      const id = await createEmployee(t, { timezone: 'Asia/Tokyo' });
      const count = await devices();

      const device = await addDevice({ name: unique('Door '), timezone: zone });
      const employee = await patch(`/employees/${id}`).send({ timezone: zone });

      expect(checkComponent('TimeZone', zone)).toBeDefined();
      const message = 'must be an IANA time zone such as Europe/Berlin';
      expect(expectProblem(device, 422, 'validation_failed').errors).toEqual([{ field: 'timezone', message }]);
      expect(expectProblem(employee, 422, 'validation_failed').errors).toEqual([{ field: 'timezone', message }]);
      expect(await devices()).toBe(count);
      expect((await employeeRow(id)).timezone).toBe('Asia/Tokyo');
    });
  });

  describe('webhook bodies (WebhookCreate) and POST /webhooks', () => {
    // Public addresses written as IP literals: taken without DNS, and never sent to (no worker runs here).
    const ALLOWED: Array<[string, object]> = [
      ['"*" alone', { url: 'https://93.184.215.14/hooks', events: ['*'] }],
      [
        'event types, one twice, a port and a query',
        { url: 'https://93.184.215.14:8443/h?x=1', events: ['employee.created', 'employee.created'] },
      ],
    ];
    const FORBIDDEN: Array<[string, object]> = [
      ['"*" with an event type', { url: 'https://93.184.215.14/hooks', events: ['*', 'employee.created'] }],
      ['"*" twice', { url: 'https://93.184.215.14/hooks', events: ['*', '*'] }],
      ['no events', { url: 'https://93.184.215.14/hooks', events: [] }],
      ['an http:// URL (WEBHOOK_ALLOW_HTTP is off)', { url: 'http://93.184.215.14/hooks', events: ['*'] }],
      ['a user name', { url: 'https://user@93.184.215.14/hooks', events: ['*'] }],
      ['a #fragment', { url: 'https://93.184.215.14/hooks#top', events: ['*'] }],
      ['a host ending in a number', { url: 'https://hooks.1/x', events: ['*'] }],
      ['a port above 65535', { url: 'https://93.184.215.14:65536/x', events: ['*'] }],
      ['no URL at all', { url: 'hooks', events: ['*'] }],
    ];
    const webhooks = async () => Number((await t.db('webhooks').count({ n: '*' }).first())?.n);
    const subscribe = (body: object) => request(t.app).post(t.api('/webhooks')).auth(admin.token, { type: 'bearer' }).send(body);

    it.each(ALLOWED)('takes what the document allows: %s', async (_, body) => {
      const res = await subscribe(body);

      expect(checkRequestBody('/webhooks', 'post', body)).toBeUndefined();
      expect(res.status).toBe(201);
    });

    it.each(FORBIDDEN)('refuses what the document forbids, 422 and nothing written: %s', async (_, body) => {
      const before = await webhooks();

      const res = await subscribe(body);

      expect(checkRequestBody('/webhooks', 'post', body)).toBeDefined();
      expectProblem(res, 422, 'validation_failed');
      expect(await webhooks()).toBe(before);
    });
  });
});
