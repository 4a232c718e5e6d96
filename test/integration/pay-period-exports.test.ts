import { createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { exportEtag } from '../../src/pay-periods/export';
import { settingsAndPeriod } from '../../src/pay-periods/periods';
import { seedEmployees } from '../../src/seed/employees';
import { insertUtcShifts } from '../../src/seed/shifts';
import { asUser, insertAttendanceRow, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { type TestApp, useFixture, useTestApp } from '../helpers/test-app';

// The export budget (EXPORT_CONCURRENCY, issue 41) and the export's ETag, through the API.

/** October 2026's dates, each of which gets a 13-hour shift: REG, OT and DT rows every day. */
const OCTOBER = Array.from({ length: 31 }, (_, day) => `2026-10-${String(day + 1).padStart(2, '0')}`);

/** A 13-hour shift on each of `dates` for each of `ids`, in bulk. */
async function seedLongShifts(t: TestApp, ids: number[], dates: string[]): Promise<void> {
  const shifts = ids.flatMap((id) => dates.map((date) => ({ employeeId: id, start: `${date} 06:00:00`, end: `${date} 19:00:00` })));
  await insertUtcShifts(t.db, shifts, { now: t.clock.now(), batch: 500 });
}

describe.each(testDialects())('pay-period exports on %s', (dialect) => {
  describe('the budget of one export at once (EXPORT_CONCURRENCY=1)', () => {
    const t = useTestApp(dialect, { env: { EXPORT_CONCURRENCY: '1' } });
    const org = useFixture(() => createOrg(t));
    // An export of several MB (600 employees x 31 days x 3 codes, as JSON): more than a paused
    // client's socket takes, so that back-pressure holds the server's export, and its turn, open.
    const listening = useFixture(async () => {
      setClock(t, '2026-11-20T12:00:00.000Z');
      const seeded = await seedEmployees(t.db, { count: 600, now: t.clock.now() });
      const ids = Array.from({ length: seeded.lastId - seeded.firstId + 1 }, (_, n) => seeded.firstId + n);
      await seedLongShifts(t, ids, OCTOBER);
      const put = await asUser(t, org.admin).put('/pay-periods/settings', {
        frequency: 'monthly',
        overtime: { daily_after_hours: 8, daily_double_after_hours: 12 },
      });
      expect(put.status).toBe(200);
      // A listening server of its own, on the app's request handler, for a client that can pause.
      const server = http.createServer(t.app.listeners('request')[0] as http.RequestListener);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { server, port: (server.address() as AddressInfo).port };
    });
    afterAll(async () => {
      if (!listening.server) return;
      listening.server.closeAllConnections();
      await new Promise((resolve) => listening.server.close(resolve));
    });

    const exportPath = () => t.api('/pay-periods/2026-10-01/export?format=json');
    const exportRequest = () => request(t.app).get(exportPath()).auth(org.admin.token, { type: 'bearer' });

    /** An export whose client reads nothing until told: its answer's headers, and how to finish or drop it. */
    async function heldExport(): Promise<{ response: http.IncomingMessage; finish(): Promise<number>; drop(): void }> {
      const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
        http
          .get(
            {
              host: '127.0.0.1',
              port: listening.port,
              path: exportPath(),
              agent: false,
              headers: { authorization: `Bearer ${org.admin.token}` },
            },
            resolve,
          )
          .on('error', reject);
      });
      response.pause();
      return {
        response,
        finish: () =>
          new Promise((resolve, reject) => {
            let bytes = 0;
            response.on('data', (chunk: Buffer) => (bytes += chunk.length));
            response.on('end', () => resolve(bytes));
            response.on('error', reject);
            response.resume();
          }),
        drop: () => response.destroy(),
      };
    }

    it('refuses a second export with 429 too_many_exports and Retry-After while one streams; a 304 takes no turn', async () => {
      const first = await heldExport();
      expect(first.response.statusCode).toBe(200);
      // Long enough for the paused socket to fill: the export now waits on back-pressure.
      await new Promise((resolve) => setTimeout(resolve, 300));

      const second = await exportRequest();
      const revalidated = await exportRequest().set('If-None-Match', String(first.response.headers.etag));

      const refusal = expectProblem(second, 429, 'too_many_exports');
      expect(refusal.detail).toBe('At most 1 pay-period export is streamed at once; try again shortly');
      expect(second.headers['retry-after']).toBe('5');
      expect(revalidated.status).toBe(304);

      const bytes = await first.finish();
      expect(bytes).toBeGreaterThan(4_000_000);
      const third = await exportRequest();
      expect(third.status).toBe(200);
      expect(Buffer.byteLength(third.text)).toBe(bytes);
    });

    it('gives the turn back when the client of a streaming export goes away', async () => {
      const first = await heldExport();
      expect(first.response.statusCode).toBe(200);
      first.drop();

      let answer = await exportRequest();
      for (let tries = 0; answer.status === 429 && tries < 50; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = await exportRequest();
      }
      expect(answer.status).toBe(200);
    });
  });

  describe('the ETag', () => {
    const t = useTestApp(dialect);
    const org = useFixture(() => createOrg(t));
    let clockAt = Date.parse('2026-12-01T12:00:00.000Z');
    // Each step a second later: the fingerprint reads changes by their whole-second updated_at.
    beforeEach(() => {
      clockAt += 1000;
      setClock(t, new Date(clockAt).toISOString());
    });

    const etagOf = async () => {
      const res = await asUser(t, org.admin).get('/pay-periods/2026-11-01/export');
      expect(res.status).toBe(200);
      return String(res.headers.etag);
    };
    const employee = useFixture(async () => ({ id: await createEmployee(t) }));

    it('changes when a record of the period is created, corrected or deleted', async () => {
      const before = await etagOf();
      const created = await asUser(t, org.admin).post('/attendance', {
        employee: employee.id,
        in_time: '2026-11-10 08:00:00',
        out_time: '2026-11-10 16:00:00',
      });
      expect(created.status).toBe(201);
      const afterCreate = await etagOf();
      setClock(t, new Date((clockAt += 1000)).toISOString());
      const corrected = await asUser(t, org.admin).patch(`/attendance/${created.body.id}`, { out_time: '2026-11-10 17:00:00' });
      expect(corrected.status).toBe(200);
      const afterCorrect = await etagOf();
      setClock(t, new Date((clockAt += 1000)).toISOString());
      expect((await asUser(t, org.admin).delete(`/attendance/${created.body.id}`)).status).toBe(200);
      const afterDelete = await etagOf();

      expect(afterCreate).not.toBe(before);
      expect(afterCorrect).not.toBe(afterCreate);
      expect(afterDelete).not.toBe(afterCorrect);
    });

    it('changes when the period is locked or unlocked', async () => {
      await insertAttendanceRow(t, employee.id, { in: '2026-11-12T08:00:00Z', out: '2026-11-12T12:00:00Z' });
      const open = await etagOf();
      expect((await asUser(t, org.admin).post('/pay-periods/2026-11-01/lock')).status).toBe(200);
      const locked = await etagOf();
      setClock(t, new Date((clockAt += 1000)).toISOString());
      expect((await asUser(t, org.admin).post('/pay-periods/2026-11-01/unlock')).status).toBe(200);
      const unlocked = await etagOf();

      expect(locked).not.toBe(open);
      expect(unlocked).not.toBe(locked);
    });

    it('stays the same over reads and a record outside the period, and answers 304 to it', async () => {
      const before = await etagOf();
      await asUser(t, org.admin).get('/pay-periods/2026-11-01');
      await asUser(t, org.admin).get(`/employees/${employee.id}/timesheets/2026-11-01`);
      await asUser(t, org.admin).get('/attendance');
      const outside = await asUser(t, org.admin).post('/attendance', {
        employee: employee.id,
        in_time: '2026-09-10 08:00:00',
        out_time: '2026-09-10 16:00:00',
      });
      expect(outside.status).toBe(201);

      expect(await etagOf()).toBe(before);
      const revalidated = await asUser(t, org.admin).get('/pay-periods/2026-11-01/export').set('If-None-Match', before);
      expect(revalidated.status).toBe(304);
    });

    it("changes with a terminal upload's record in the period, not with one outside it", async () => {
      const upload = (log: string, date: string) =>
        asUser(t, org.admin).post('/attendance/punch-logs', {
          entries: [
            { log_id: `${log}-in`, employee: employee.id, time: `${date}T08:00:00Z`, direction: 'in' },
            { log_id: `${log}-out`, employee: employee.id, time: `${date}T12:00:00Z`, direction: 'out' },
          ],
        });
      const before = await etagOf();
      expect((await upload('september', '2026-09-14')).status).toBe(200);
      expect(await etagOf()).toBe(before);
      expect((await upload('november', '2026-11-16')).status).toBe(200);
      expect(await etagOf()).not.toBe(before);
    });

    it("of an open period reads no attendance record, only the months' change marks", async () => {
      const { group, period } = await settingsAndPeriod(t.db, 1, '2026-11-01');
      const statements: string[] = [];
      const listener = (query: { sql: string }) => statements.push(query.sql);
      t.db.on('query', listener);
      try {
        await exportEtag(t.db, t.instance.entityTagKey, period, group, 'csv');
      } finally {
        t.db.off('query', listener);
      }

      expect(statements.some((sql) => /attendance_marks/.test(sql))).toBe(true);
      expect(statements.filter((sql) => /\battendance\b/.test(sql))).toEqual([]);
    });

    it("has the export tag's form (32 base64url characters) and is keyed: another key, another tag", async () => {
      const served = await etagOf();
      const { group, period } = await settingsAndPeriod(t.db, 1, '2026-11-01');
      const underKey = (key: KeyObject) => exportEtag(t.db, key, period, group, 'csv');

      expect(served).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
      expect(await underKey(t.instance.entityTagKey)).toBe(served);
      expect(await underKey(createSecretKey(randomBytes(32)))).not.toBe(served);
    });
  });
});
