import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { runHrm } from '../helpers/cli';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// Payroll ids and export profiles (CONTRACT 6.6, docs/pay-periods.md "Export profiles"): the
// profiles' API, the files they make (exact bytes), rows that add up, the templates and the
// samples docs/pay-periods.md shows, made here from the same fixture.

/** Daily rules only, so that each shift's codes read off its length: 8 REG, 4 OT, then DT. */
const OVERTIME = { daily_after_hours: 8, daily_double_after_hours: 12, weekly_after_hours: null, seventh_day: false };

/** A long profile of its own: ';' delimited, a renamed code, a constant, names with every awkward character. */
const LONG_PROFILE = {
  name: 'Long; semicolons',
  layout: 'long',
  columns: [
    { header: 'Worker ID', value: 'payroll_id' },
    { header: 'Name; full', value: 'full_name' },
    { header: 'Day', value: 'date' },
    { header: 'Pay', value: 'code' },
    { header: 'Hours', value: 'hours' },
    { header: 'Co', value: 'constant:company' },
  ],
  codes: { OT: 'Over;time' },
  delimiter: ';',
  constants: { company: 'Acme; "Inc"' },
  filename: 'hours {start} to {end}.csv',
};

const LONG_CSV = [
  'Worker ID;"Name; full";Day;Pay;Hours;Co',
  '1001;"Ana, ""Jr"" Núñez; Ortiz";2026-11-02;REG;0.34;"Acme; ""Inc"""',
  '1001;"Ana, ""Jr"" Núñez; Ortiz";2026-11-03;REG;0.33;"Acme; ""Inc"""',
  '1001;"Ana, ""Jr"" Núñez; Ortiz";2026-11-04;REG;0.33;"Acme; ""Inc"""',
  '\'+44;\'=cmd @Smith;2026-11-02;REG;8.00;"Acme; ""Inc"""',
  '\'+44;\'=cmd @Smith;2026-11-02;"Over;time";4.00;"Acme; ""Inc"""',
  '\'+44;\'=cmd @Smith;2026-11-02;DT;1.00;"Acme; ""Inc"""',
  '',
].join('\r\n');

/** A wide profile of its own: hh:mm, every period-level source. */
const WIDE_PROFILE = {
  name: 'Wide, hh:mm',
  layout: 'wide',
  columns: [
    { header: 'Code', value: 'employee_id' },
    { header: 'First', value: 'first_name' },
    { header: 'Last', value: 'last_name' },
    { header: 'Payroll', value: 'payroll_id' },
    { header: 'Regular', value: 'hours:REG' },
    { header: 'Overtime', value: 'hours:OT' },
    { header: 'Double', value: 'hours:DT' },
    { header: 'Total', value: 'total_hours' },
    { header: 'From', value: 'period_start' },
    { header: 'To', value: 'period_end' },
    { header: 'Group', value: 'pay_group' },
    { header: 'Status', value: 'timesheet_status' },
  ],
  hours_format: 'hh:mm',
};

const WIDE_CSV = [
  'Code,First,Last,Payroll,Regular,Overtime,Double,Total,From,To,Group,Status',
  'E-001,"Ana, ""Jr""",Núñez; Ortiz,1001,1:00,0:00,0:00,1:00,2026-11-01,2026-11-30,Default,open',
  "E-002,'=cmd,'@Smith,'+44,8:00,4:00,1:00,13:00,2026-11-01,2026-11-30,Default,approved",
  '',
].join('\r\n');

/** The sample docs/pay-periods.md shows for a template: the csv block after `<!-- sample: id -->`. */
function documentedSample(template: string): string {
  const doc = readFileSync(path.join(__dirname, '../../docs/pay-periods.md'), 'utf8');
  const match = new RegExp(`<!-- sample: ${template} -->\\s*\`\`\`csv\\n([\\s\\S]*?)\`\`\``).exec(doc);
  if (!match) throw new Error(`docs/pay-periods.md shows no sample of ${template}`);
  return match[1]!.replace(/\n/g, '\r\n');
}

describe.each(testDialects())('export profiles on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(async () => {
    const created = await createOrg(t);
    await asUser(t, created.admin).put('/pay-periods/settings', { overtime: OVERTIME });
    return created;
  });
  beforeEach(() => setClock(t, '2026-12-05T12:00:00.000Z'));

  /**
   * Three employees of November 2026: three 20-minute records (0.333... hours each, 1.00 in all),
   * a 13-hour day (8 REG, 4 OT, 1 DT, approved) and a 10-second record (0.00 hours).
   */
  const staff = useFixture(async () => {
    const ana = await createEmployee(t, { employee_id: 'E-001', first_name: 'Ana, "Jr"', last_name: 'Núñez; Ortiz', payroll_id: '1001' });
    for (const date of ['2026-11-02', '2026-11-03', '2026-11-04'])
      await insertAttendanceRow(t, ana, { in: `${date}T09:00:00Z`, out: `${date}T09:20:00Z` });
    const cmd = await createEmployee(t, { employee_id: 'E-002', first_name: '=cmd', last_name: '@Smith', payroll_id: '+44' });
    await insertAttendanceRow(t, cmd, { in: '2026-11-02T07:00:00Z', out: '2026-11-02T20:00:00Z' });
    expect((await asUser(t, org.admin).post(`/employees/${cmd}/timesheets/2026-11-01/approve`)).status).toBe(200);
    const zoe = await createEmployee(t, { employee_id: 'E-003', first_name: 'Zoë', last_name: '-Ng' });
    await insertAttendanceRow(t, zoe, { in: '2026-11-05T09:00:00Z', out: '2026-11-05T09:00:10Z' });
    return { ana, cmd, zoe };
  });

  const exportOf = (query: string, etag?: string) => {
    const test = request(t.app)
      .get(t.api(`/pay-periods/2026-11-01/export${query}`))
      .auth(org.admin.token, { type: 'bearer' });
    return (etag ? test.set('If-None-Match', etag) : test).buffer(true).parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks).toString('utf8')));
    });
  };
  const create = async (body: object): Promise<string> => {
    const res = await asUser(t, org.admin).post('/export-profiles', body);
    expect(res.status).toBe(201);
    return String(res.body.id);
  };
  const profileCount = async () => Number((await t.db('export_profiles').count({ n: '*' }).first())!.n);

  describe('payroll_id', () => {
    it('is written by admins, read back, filtered and selected; unique (409 duplicate); managers may not write it', async () => {
      const created = await asUser(t, org.admin).post('/employees', {
        employee_id: 'P-1',
        first_name: 'Pay',
        last_name: 'Roll',
        payroll_id: ' FILE-77 ',
      });
      expect(created.status).toBe(201);
      expect(created.body.payroll_id).toBe('FILE-77');
      const id = String(created.body.id);

      const filters = encodeURIComponent(JSON.stringify({ payroll_id: 'file-77' }));
      const selected = await asUser(t, org.admin).get(`/employees?filters=${filters}&fields=employee_id,payroll_id`);
      expect(selected.status).toBe(200);
      expect(selected.body.data).toEqual([{ id, employee_id: 'P-1', payroll_id: 'FILE-77' }]);

      const duplicate = expectProblem(
        await asUser(t, org.admin).post('/employees', { employee_id: 'P-2', first_name: 'A', last_name: 'B', payroll_id: 'file-77' }),
        409,
        'duplicate',
      );
      expect(duplicate.errors).toEqual([expect.objectContaining({ field: 'payroll_id' })]);
      expectProblem(await asUser(t, org.admin).patch(`/employees/${id}`, { payroll_id: 'x'.repeat(65) }), 422, 'validation_failed');

      const cleared = await asUser(t, org.admin).patch(`/employees/${id}`, { payroll_id: '' });
      expect(cleared.status).toBe(200);
      expect(cleared.body.payroll_id).toBeNull();
      expect(
        (
          await t
            .db('employees')
            .where({ id: Number(id) })
            .first('payroll_id')
        ).payroll_id,
      ).toBeNull();

      const report = await createEmployee(t, { supervisor_id: org.manager.employeeId });
      expectProblem(await asUser(t, org.manager).patch(`/employees/${report}`, { payroll_id: 'M-1' }), 403, 'field_not_writable');
      expect((await t.db('employees').where({ id: report }).first('payroll_id')).payroll_id).toBeNull();
    });
  });

  describe('the profiles', () => {
    it('lists the five templates first, read-only, with the shape of CONTRACT 6.6', async () => {
      const res = await asUser(t, org.admin).get('/export-profiles?limit=5');

      expect(res.status).toBe(200);
      expect(res.body.data.map((profile: { id: string }) => profile.id)).toEqual([
        'default',
        'gusto',
        'adp-workforce-now',
        'quickbooks-online',
        'paychex-flex',
      ]);
      expect(res.body.data[0]).toEqual({
        id: 'default',
        name: 'Default (CONTRACT 6.3)',
        layout: 'long',
        columns: [
          { header: 'employee_id', value: 'employee_id' },
          { header: 'employee', value: 'id' },
          { header: 'date', value: 'date' },
          { header: 'code', value: 'code' },
          { header: 'hours', value: 'hours' },
          { header: 'timesheet_status', value: 'timesheet_status' },
        ],
        codes: {},
        hours_format: 'decimal',
        decimals: 2,
        delimiter: ',',
        include_zero: false,
        constants: {},
        filename: 'pay-period-{start}.csv',
        template: true,
      });
      expect(res.body.data[2].constants).toEqual({ co_code: '', batch_id: '', hours_3_code: 'D' });
      expectProblem(await asUser(t, org.admin).put('/export-profiles/gusto', { ...LONG_PROFILE, name: 'Mine' }), 403, 'forbidden');
      expectProblem(await asUser(t, org.admin).delete('/export-profiles/default'), 403, 'forbidden');
      expectProblem(await asUser(t, org.manager).get('/export-profiles'), 403, 'forbidden');
      expectProblem(await asUser(t, org.admin).get('/export-profiles/nope'), 404, 'not_found');
    });

    it('creates, reads, replaces and deletes a profile of its own; a name in use is 409 duplicate', async () => {
      const created = await asUser(t, org.admin).post('/export-profiles', { ...LONG_PROFILE, name: 'Round trip' });

      expect(created.status).toBe(201);
      expect(created.headers.location).toBe(t.api(`/export-profiles/${created.body.id}`));
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9]+$/),
        ...LONG_PROFILE,
        name: 'Round trip',
        hours_format: 'decimal',
        decimals: 2,
        include_zero: false,
        template: false,
      });
      const id = String(created.body.id);
      expect((await asUser(t, org.admin).get(`/export-profiles/${id}`)).body).toEqual(created.body);

      const replaced = await asUser(t, org.admin).put(`/export-profiles/${id}`, { ...created.body, decimals: 1, include_zero: true });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toEqual({ ...created.body, decimals: 1, include_zero: true });
      expect(
        (
          await t
            .db('export_profiles')
            .where({ id: Number(id) })
            .first('version')
        ).version,
      ).toBe(2);

      expectProblem(await asUser(t, org.admin).post('/export-profiles', { ...LONG_PROFILE, name: 'Round trip' }), 409, 'duplicate');

      const deleted = await asUser(t, org.admin).delete(`/export-profiles/${id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ id });
      expectProblem(await asUser(t, org.admin).get(`/export-profiles/${id}`), 404, 'not_found');
    });

    it.each([
      ['an unknown column source', { columns: [{ header: 'X', value: 'salary' }] }, 'columns.0.value', 'is not a column source'],
      ['a code not defined', { codes: { VAC: 'Vacation' } }, 'codes.VAC', 'is not a code (REG, OT, DT, PTO, HOL)'],
      [
        'hours of a code not defined',
        { layout: 'wide', columns: [{ header: 'V', value: 'hours:VAC' }] },
        'columns.0.value',
        'names the code VAC, which is not defined (REG, OT, DT, PTO, HOL)',
      ],
      [
        'a long source in wide',
        { layout: 'wide', columns: [{ header: 'D', value: 'date' }] },
        'columns.0.value',
        'date is a source of the long layout, not of wide',
      ],
      [
        'a wide source in long',
        { columns: [{ header: 'T', value: 'total_hours' }] },
        'columns.0.value',
        'total_hours is a source of the wide layout, not of long',
      ],
      [
        'a constant the profile lacks',
        { columns: [{ header: 'C', value: 'constant:client' }] },
        'columns.0.value',
        'names the constant client, which constants lacks',
      ],
      ['a bad delimiter', { delimiter: '|' }, 'delimiter', 'must be ",", ";" or a tab'],
      [
        'a bad file name pattern',
        { filename: '../{month}.csv' },
        'filename',
        'may hold letters, digits, ".", "-", "_", spaces and {start}, {end}, {group}, and must not start with "."',
      ],
      ['no columns', { columns: [] }, 'columns', 'must name at least one column'],
    ])('refuses %s with 422 naming the field, and writes nothing', async (_case, change, field, message) => {
      const before = await profileCount();

      const res = await asUser(t, org.admin).post('/export-profiles', { ...LONG_PROFILE, name: `Bad ${field}`, ...change });

      const body = expectProblem(res, 422, 'validation_failed');
      expect(body.errors).toEqual([{ field, message }]);
      expect(await profileCount()).toBe(before);
    });

    it('makes a profile from a template; a constant it needs and the body lacks is 422 naming it', async () => {
      const before = await profileCount();
      const missing = expectProblem(
        await asUser(t, org.admin).post('/export-profiles', { template: 'adp-workforce-now', name: 'ADP', constants: { co_code: 'X7K' } }),
        422,
        'validation_failed',
      );
      expect(missing.errors).toEqual([{ field: 'constants.batch_id', message: 'is needed by the template adp-workforce-now' }]);
      expectProblem(await asUser(t, org.admin).post('/export-profiles', { template: 'sage', name: 'Sage' }), 422, 'validation_failed');
      expect(await profileCount()).toBe(before);

      const made = await asUser(t, org.admin).post('/export-profiles', {
        template: 'adp-workforce-now',
        name: 'ADP weekly',
        constants: { co_code: 'X7K', batch_id: '4500' },
        filename: 'PRX7KEPI.csv',
      });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({
        layout: 'wide',
        constants: { co_code: 'X7K', batch_id: '4500', hours_3_code: 'D' },
        filename: 'PRX7KEPI.csv',
        template: false,
      });
    });
  });

  describe('the files', () => {
    it('writes the default CSV with rows that add up to the totals and no 0.00 row', async () => {
      const res = await exportOf('');

      expect(res.status).toBe(200);
      expect(res.body).toBe(
        [
          'employee_id,employee,date,code,hours,timesheet_status',
          `E-001,${staff.ana},2026-11-02,REG,0.34,open`,
          `E-001,${staff.ana},2026-11-03,REG,0.33,open`,
          `E-001,${staff.ana},2026-11-04,REG,0.33,open`,
          `E-002,${staff.cmd},2026-11-02,REG,8.00,approved`,
          `E-002,${staff.cmd},2026-11-02,OT,4.00,approved`,
          `E-002,${staff.cmd},2026-11-02,DT,1.00,approved`,
          '',
        ].join('\r\n'),
      );
      const sheet = await asUser(t, org.admin).get(`/employees/${staff.ana}/timesheets/2026-11-01`);
      expect(sheet.body.totals.regular_hours).toBe(1);
      const json = await asUser(t, org.admin).get('/pay-periods/2026-11-01/export?format=json');
      expect(json.body.rows.map((row: { hours: number }) => row.hours)).toEqual([0.34, 0.33, 0.33, 8, 4, 1]);
    });

    it('writes a long profile exactly: delimiter, quoting, formula starts, renamed codes, constants, file name', async () => {
      const id = await create(LONG_PROFILE);

      const res = await exportOf(`?profile=${id}`);

      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
      expect(res.headers['content-disposition']).toBe('attachment; filename="hours_2026-11-01_to_2026-11-30.csv"');
      expect(res.body).toBe(LONG_CSV);
      expectProblem(await asUser(t, org.admin).get('/pay-periods/2026-11-01/export?profile=999999'), 400, 'invalid_query');
    });

    it('writes a wide profile exactly, in hh:mm; include_zero adds the row that rounds to zero', async () => {
      const id = await create(WIDE_PROFILE);

      expect((await exportOf(`?profile=${id}`)).body).toBe(WIDE_CSV);

      await asUser(t, org.admin).put(`/export-profiles/${id}`, {
        ...WIDE_PROFILE,
        include_zero: true,
        decimals: 3,
        hours_format: 'decimal',
      });
      const withZero = await exportOf(`?profile=${id}`);
      expect(withZero.body.split('\r\n').slice(1)).toEqual([
        'E-001,"Ana, ""Jr""",Núñez; Ortiz,1001,1.000,0.000,0.000,1.000,2026-11-01,2026-11-30,Default,open',
        "E-002,'=cmd,'@Smith,'+44,8.000,4.000,1.000,13.000,2026-11-01,2026-11-30,Default,approved",
        "E-003,Zoë,'-Ng,,0.003,0.000,0.000,0.003,2026-11-01,2026-11-30,Default,open",
        '',
      ]);
    });

    it("writes group 1's export_profile when the request names none; ?profile= still wins", async () => {
      const id = await create({ ...LONG_PROFILE, name: 'The group default' });
      const admin = asUser(t, org.admin);
      const before = await exportOf('');
      try {
        expect((await admin.patch('/pay-groups/1', { export_profile: id })).status).toBe(200);

        const grouped = await exportOf('');
        expect(grouped.body).toBe(LONG_CSV);
        expect(grouped.headers['content-disposition']).toBe('attachment; filename="hours_2026-11-01_to_2026-11-30.csv"');
        expect(grouped.headers.etag).not.toBe(before.headers.etag);
        expect((await exportOf('?profile=default')).body).toBe(before.body);
        expectProblem(await admin.delete(`/export-profiles/${id}`), 409, 'in_use');
      } finally {
        await admin.patch('/pay-groups/1', { export_profile: null });
      }
      expect((await exportOf('')).body).toBe(before.body);
      expect((await admin.delete(`/export-profiles/${id}`)).status).toBe(200);
    });

    it('has an ETag per profile and its version: 304 while unchanged, a new tag when the profile changes', async () => {
      const id = await create({ ...WIDE_PROFILE, name: 'Tagged' });
      const first = await exportOf(`?profile=${id}`);
      const etag = String(first.headers.etag);

      expect((await exportOf(`?profile=${id}`, etag)).status).toBe(304);
      expect((await exportOf('', etag)).status).toBe(200);
      await asUser(t, org.admin).put(`/export-profiles/${id}`, { ...WIDE_PROFILE, name: 'Tagged', decimals: 1 });
      const changed = await exportOf(`?profile=${id}`, etag);
      expect(changed.status).toBe(200);
      expect(changed.body).toBe(first.body);
    });

    it('of a locked period is byte-identical per profile, names frozen at the lock, until it is unlocked', async () => {
      const id = await create({ ...WIDE_PROFILE, name: 'Locked' });
      expect((await asUser(t, org.admin).post('/pay-periods/2026-11-01/lock')).status).toBe(200);
      try {
        const locked = await exportOf(`?profile=${id}`);
        expect(locked.body).toBe(WIDE_CSV);

        await asUser(t, org.admin).patch(`/employees/${staff.ana}`, { first_name: 'Anna', payroll_id: '2002' });
        const again = await exportOf(`?profile=${id}`);
        expect(again.body).toBe(locked.body);
        expect(again.headers.etag).toBe(locked.headers.etag);
        expect((await exportOf(`?profile=${id}`, String(locked.headers.etag))).status).toBe(304);
      } finally {
        await asUser(t, org.admin).post('/pay-periods/2026-11-01/unlock');
      }
      expect((await exportOf(`?profile=${id}`)).body).toContain('E-001,Anna,Núñez; Ortiz,2002,1:00');
      await asUser(t, org.admin).patch(`/employees/${staff.ana}`, { first_name: 'Ana, "Jr"', payroll_id: '1001' });
    });

    it('hrm pay-period export --profile writes the same bytes; an unknown profile is a one-line refusal', async () => {
      const id = await create({ ...LONG_PROFILE, name: 'For the CLI' });

      expect(await runHrm(t, ['pay-period', 'export', '--start', '2026-11-01', '--profile', id])).toEqual({
        code: 0,
        stdout: LONG_CSV,
        stderr: '',
      });
      expect(await runHrm(t, ['pay-period', 'export', '--start', '2026-11-01', '--profile', 'nope'])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'hrm: --profile names no export profile: nope\n',
      });
    });

    it.each(['gusto', 'adp-workforce-now', 'quickbooks-online', 'paychex-flex'])(
      'writes the %s template as the sample docs/pay-periods.md shows',
      async (template) => {
        const constants: Record<string, Record<string, string>> = {
          'adp-workforce-now': { co_code: 'X7K', batch_id: '4500' },
          'paychex-flex': { client_id: '70012345' },
        };
        const id = await create({ template, name: `Sample ${template}`, constants: constants[template] ?? {} });

        const res = await exportOf(`?profile=${id}`);

        expect(res.status).toBe(200);
        expect(res.body).toBe(documentedSample(template));
      },
    );
  });
});
