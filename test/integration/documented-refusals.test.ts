import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser } from '../helpers/factories';
import { checkComponent } from '../helpers/openapi-check';
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
});
