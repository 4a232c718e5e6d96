import request from 'supertest';
import { runHrm } from '../helpers/cli';
import { testDialects } from '../helpers/databases';
import { createEmployee, unique } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useTestApp } from '../helpers/test-app';

describe.each(testDialects())('hrm device on %s', (dialect) => {
  const t = useTestApp(dialect);

  const upload = (token: string, entries: object[]) =>
    request(t.app).post(t.api('/attendance/punch-logs')).auth(token, { type: 'bearer' }).send({ entries });

  it('adds a device whose token uploads punch logs, lists it, and revokes it', async () => {
    const badge = unique('B');
    const employeeId = await createEmployee(t, { attendance_device_id: badge });
    const name = unique('Gate ');

    const added = await runHrm(t, ['device', 'add', '--name', name, '--timezone', 'Europe/Berlin']);
    const token = added.stdout.trim();
    const id = /Created device (\d+)/.exec(added.stderr)?.[1] as string;

    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    expect(added.stderr).toBe(`Created device ${id} (${name}, Europe/Berlin). Its token follows; it is shown only now.\n`);
    const uploaded = await upload(token, [{ log_id: '1', attendance_device_id: badge, time: '2026-01-05 09:00:00' }]);
    expect(uploaded.status).toBe(200);
    expect(uploaded.body.results[0]).toMatchObject({ result: 'created', action: 'opened' });
    const [record] = await t.db('attendance').where({ employee_id: employeeId });
    expect(String(record.in_time_utc).slice(0, 19)).toBe('2026-01-05 08:00:00');

    const listed = await runHrm(t, ['device', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+STATE\s+TIMEZONE\s+LAST USED\s+NAME\n/);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+active\\s+Europe/Berlin\\s+\\S+\\s+${name}$`, 'm'));
    expect(listed.stdout).not.toContain(token);

    const revoked = await runHrm(t, ['device', 'revoke', id]);
    expect(revoked).toEqual({ code: 0, stdout: `Revoked device ${id}: its token no longer works.\n`, stderr: '' });
    expectProblem(await upload(token, [{ log_id: '2', attendance_device_id: badge, time: '2026-01-05 17:00:00' }]), 401, 'invalid_token');
    expect((await runHrm(t, ['device', 'list'])).stdout).not.toMatch(new RegExp(`^${id}\\s`, 'm'));
  });

  it('refuses bad input with one line and exit code 1, adding nothing', async () => {
    const before = (await t.db('attendance_devices').select('id')).length;

    expect(await runHrm(t, ['device', 'add', '--name', 'x', '--timezone', 'Mars/Base'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'hrm: --timezone must be an IANA time zone such as Europe/Berlin\n',
    });
    expect(await runHrm(t, ['device', 'add', '--name', ' '])).toMatchObject({ code: 1, stderr: 'hrm: --name must not be empty\n' });
    expect(await runHrm(t, ['device', 'revoke', '999999'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'hrm: There is no device with id 999999\n',
    });
    expect(await runHrm(t, ['device', 'revoke', 'abc'])).toMatchObject({ code: 1, stderr: 'hrm: There is no device with id abc\n' });
    expect((await t.db('attendance_devices').select('id')).length).toBe(before);
  });
});
