import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { createUser, unique } from '../helpers/factories';
import { useTestApp } from '../helpers/test-app';

describe.each(testDialects())('reference displays on %s', (dialect) => {
  const t = useTestApp(dialect);

  const me = (token: string) => request(t.app).get(t.api('/employees/me')).auth(token, { type: 'bearer' });

  it('shows a reference row created after the names were last read, at once', async () => {
    await me((await createUser(t, 'employee')).token); // names are now cached
    const name = unique('New department ');
    const [departmentId] = await t.db('departments').insert({ name });
    const user = await createUser(t, 'employee', { employee: { department_id: Number(departmentId) } });

    const res = await me(user.token);

    expect(res.body.department).toEqual({ type: 'Department', id: String(departmentId), display: name });
  });

  it('shows it at once in a list too, where names are checked as the page is written', async () => {
    const admin = await createUser(t, 'admin');
    await me(admin.token); // names are now cached
    const name = unique('Newer department ');
    const [departmentId] = await t.db('departments').insert({ name });
    const user = await createUser(t, 'employee', { employee: { department_id: Number(departmentId) } });
    const lastName = (await t.db('employees').where({ id: user.employeeId }).first('last_name')).last_name as string;

    const res = await request(t.app).get(t.api('/employees')).query({ search: lastName }).auth(admin.token, { type: 'bearer' });

    expect(res.status).toBe(200);
    expect(res.body.data.map((employee: { department: unknown }) => employee.department)).toEqual([
      { type: 'Department', id: String(departmentId), display: name },
    ]);
  });

  it('shows a rename made in the database by hand within the TTL', async () => {
    const [jobTitleId] = await t.db('job_titles').insert({ name: unique('Old title ') });
    const user = await createUser(t, 'employee', { employee: { job_title_id: Number(jobTitleId) } });
    await me(user.token);
    const renamed = unique('Renamed title ');
    await t.db('job_titles').where({ id: jobTitleId }).update({ name: renamed });

    t.clock.advance(2001);
    await me(user.token); // the names are older than the TTL: read again
    const after = await waitFor(async () => (await me(user.token)).body.job_title.display, renamed);

    expect(after).toBe(renamed);
  });
});

async function waitFor<T>(read: () => Promise<T>, expected: T): Promise<T> {
  let value = await read();
  for (let attempt = 0; attempt < 20 && value !== expected; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    value = await read();
  }
  return value;
}
