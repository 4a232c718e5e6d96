import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { attendanceRowsOf, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createUser, unique } from '../helpers/factories';
import { send } from '../helpers/http-client';
import { expectAnyProblem } from '../helpers/problem';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * POST /attendance/punch-logs under random batches: no entry of any batch may make the upload
 * answer 5xx (docs/terminals.md). The seed is printed first (`FUZZ_SEED=<n>` replays it);
 * `FUZZ_SEED=random` explores a fresh one and `TERMINALS_FUZZ_RUNS` more batches. By default it
 * replays a fixed seed: the test also asks that enough entries were created for it to prove
 * anything, and 250 batches of a fresh seed fell short of that by chance (51 of 60).
 */
const RUNS = Number(process.env.TERMINALS_FUZZ_RUNS ?? 250);
const SEED = process.env.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED ?? 20261127);

/** Text that collides under loose comparisons, or that no database stores as sent. */
const TRICKY = [
  'abc',
  'ABC',
  'Abc',
  'é1',
  'e1',
  'e\u03011',
  'É1',
  'ａｂｃ',
  'ß',
  'ss',
  'İ',
  'i',
  '\ud800q',
  'q\udc00',
  '😀',
  '\u0000',
  ' padded ',
  '1e3',
  '0',
  '-1',
  'null',
];

const text = fc.oneof(
  fc.constantFrom(...TRICKY),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('a', 'A', 'é', 'e', '\u0301', '\ud800', '\udc00', '😀', ' ', '\u0000', 'ß'), maxLength: 6 }),
  fc.string({ minLength: 95, maxLength: 130 }),
);
const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(1e21, -0, 2 ** 53, Number.MAX_SAFE_INTEGER + 2));

/** Instants around the test clock (some ahead of it), written every way a terminal might. */
const instant = fc.date({ min: new Date('2026-11-18T00:00:00Z'), max: new Date('2026-11-21T00:00:00Z'), noInvalidDate: true });
const time = fc.oneof(
  { weight: 4, arbitrary: instant.map((date) => date.toISOString()) },
  { weight: 2, arbitrary: instant.map((date) => date.toISOString().slice(0, 19).replace('T', ' ')) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(instant, fc.integer({ min: -14, max: 14 }))
      .map(([date, hours]) => `${date.toISOString().slice(0, 19)}${hours < 0 ? '-' : '+'}${String(Math.abs(hours)).padStart(2, '0')}:00`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '2026-03-29 02:30:00',
      '2026-10-25 02:30:00',
      '2026-02-30 10:00:00',
      '0001-01-01T00:00:00Z',
      '9999-12-31T23:59:59Z',
      '2026-11-20T24:00:00Z',
      '2026-11-20T08:00:00.999999999+01:00',
      '+275760-09-13T00:00:00Z',
    ),
  },
  { weight: 1, arbitrary: fc.oneof(text, number) },
);

describe.each(testDialects())('POST /attendance/punch-logs under random batches on %s', (dialect) => {
  let t: TestApp;
  let origin: string;
  let deviceToken: string;
  let adminToken: string;
  const badges: string[] = [];
  const employeeIds: number[] = [];

  beforeAll(async () => {
    process.stderr.write(`punch-log fuzz: FUZZ_SEED=${SEED} TERMINALS_FUZZ_RUNS=${RUNS}\n`);
    t = await startTestApp(dialect);
    setClock(t, '2026-11-20T20:00:00.000Z');
    await new Promise<void>((resolve) => t.app.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(t.app.address() as AddressInfo).port}`;
    const admin = await createUser(t, 'admin');
    adminToken = admin.token;
    const device = await send(origin, t.api('/attendance/devices'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: unique('Fuzz door '), timezone: 'Europe/Berlin' }),
    });
    deviceToken = JSON.parse(device.text).token;
    for (const [timezone, termination] of [
      ['UTC', null],
      ['UTC', null],
      ['Asia/Tokyo', null],
      ['Asia/Tokyo', null],
      ['America/New_York', null],
      ['America/New_York', null],
      ['Europe/Berlin', null],
      ['Europe/Berlin', '2026-11-19'],
    ] as const) {
      const badge = unique('F');
      employeeIds.push(
        await createEmployee(t, {
          attendance_device_id: badge,
          timezone,
          termination_date: termination,
          status: termination ? 'Terminated' : 'Active',
        }),
      );
      badges.push(badge);
    }
  });
  afterAll(async () => {
    t.app.closeAllConnections();
    await t.close();
  });

  it(
    'answers every batch 200 or 4xx, one result per entry, and keeps every employee to one open record and no overlaps',
    async () => {
      const badge = fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...badges) },
        { weight: 1, arbitrary: fc.constantFrom(...badges).map((known) => known.toLowerCase()) },
        { weight: 1, arbitrary: fc.oneof(text, number) },
      );
      const employee = fc.oneof(fc.constantFrom(...employeeIds), fc.constantFrom(...employeeIds).map(String), text, number);
      // A small pool of ids, so that entries are sent again (and collide in case or accent) often.
      const logId = fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom('L1', 'l1', 'L2', 'É1', 'é1', 'e\u03011', 'e1', 'ａ', 'a', 'A', 'x😀', 'ß', 'ss') },
        { weight: 6, arbitrary: fc.integer({ min: 0, max: 5000 }) },
        { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }) },
      );
      const validTime = fc.oneof(
        { weight: 4, arbitrary: instant.map((date) => date.toISOString()) },
        { weight: 2, arbitrary: instant.map((date) => date.toISOString().slice(0, 19).replace('T', ' ')) },
        {
          weight: 1,
          arbitrary: fc.constantFrom('2026-03-29 02:30:00', '2026-10-25 02:30:00', '2026-11-19 23:59:59', '2026-11-20 00:00:00'),
        },
      );
      const direction = fc.constantFrom('in', 'out', 'auto');
      /** Entries a terminal could send: valid in shape, hostile in content. */
      const plausible = fc.oneof(
        {
          weight: 4,
          arbitrary: fc.record(
            { log_id: logId, attendance_device_id: badge, time: validTime, direction },
            { requiredKeys: ['log_id', 'attendance_device_id', 'time'] },
          ),
        },
        { weight: 1, arbitrary: fc.record({ log_id: logId, employee: fc.constantFrom(...employeeIds), time: validTime, direction }) },
      );
      const hostile = fc.oneof(
        fc.record(
          { log_id: fc.oneof(logId, text, number), attendance_device_id: badge, time, direction: fc.oneof(direction, text) },
          { requiredKeys: [] },
        ),
        fc.record({ log_id: fc.oneof(text, number), employee, time, direction: fc.oneof(direction, text) }, { requiredKeys: [] }),
        fc.dictionary(text, fc.oneof(text, number, fc.constant(null)), { maxKeys: 4 }),
        fc.anything(),
      );
      const body = fc.oneof(
        { weight: 6, arbitrary: fc.array(plausible, { minLength: 1, maxLength: 25 }).map((entries) => JSON.stringify({ entries })) },
        {
          weight: 2,
          arbitrary: fc
            .array(fc.oneof({ weight: 5, arbitrary: plausible }, { weight: 1, arbitrary: hostile }), { minLength: 1, maxLength: 25 })
            .map((entries) => JSON.stringify({ entries })),
        },
        { weight: 1, arbitrary: fc.anything().map((value) => JSON.stringify({ entries: value }) ?? '') },
        { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
      );
      const statuses = new Map<number, number>();
      let created = 0;
      const codes = new Map<string, number>();

      const property = fc.asyncProperty(fc.boolean(), body, async (asDevice, raw) => {
        const res = await send(origin, t.api('/attendance/punch-logs'), {
          method: 'POST',
          headers: { Authorization: `Bearer ${asDevice ? deviceToken : adminToken}`, 'Content-Type': 'application/json' },
          body: raw,
        });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);

        expect(res.status).toBeLessThan(500);
        if (res.status !== 200) {
          expect(res.status).toBeGreaterThanOrEqual(400);
          expectAnyProblem(res);
          return;
        }
        const { results } = JSON.parse(res.text) as { results: Array<{ result: string; code?: string }> };
        for (const result of results)
          codes.set(`${result.result} ${result.code ?? ''}`, (codes.get(`${result.result} ${result.code ?? ''}`) ?? 0) + 1);
        expect(results).toHaveLength((JSON.parse(raw) as { entries: unknown[] }).entries.length);
        for (const result of results) expect(['created', 'duplicate', 'rejected']).toContain(result.result);
        created += results.filter((result) => result.result === 'created').length;
      });
      await fc.assert(property, { numRuns: RUNS, seed: SEED, endOnFailure: true });

      const summary = [...statuses.entries()].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`);
      console.log(
        `punch-log fuzz on ${dialect}: ${RUNS} batches (FUZZ_SEED=${SEED}); ${summary.join(', ')}; ${created} entries created; ${JSON.stringify([...codes])}`,
      );
      // The generator must reach past validation and apply punches, or the test proves nothing.
      expect(statuses.get(200) ?? 0).toBeGreaterThan(RUNS / 3);
      expect(created).toBeGreaterThan(Math.min(RUNS / 4, 60));
      for (const employeeId of employeeIds) {
        const rows = await attendanceRowsOf(t, employeeId);
        expect(rows.filter((row) => row.out_time_utc === null).length).toBeLessThanOrEqual(1);
        for (let n = 1; n < rows.length; n++) {
          const previous = rows[n - 1] as Record<string, unknown>;
          expect([employeeId, previous.out_time_utc !== null && String(previous.out_time_utc) <= String(rows[n]?.in_time_utc)]).toEqual([
            employeeId,
            true,
          ]);
        }
      }
    },
    10 * 60_000,
  );
});
