import request from 'supertest';
import { issueToken } from '../../src/auth/issue-token';
import { certifiesWrites, openDatabase } from '../../src/db/connect';
import { retryConflicts } from '../../src/db/retry-conflicts';
import { lockAttendanceEmployee } from '../../src/attendance/repository';
import { announceAbsences } from '../../src/days/absences';
import { runScheduleSweep } from '../../src/days/schedule-sweep';
import { createWebhook } from '../../src/webhooks/subscriptions';
import { MIGRATIONS } from '../../migrations';
import { setClock } from '../helpers/attendance';
import { createEmployee, createUser, type TestUser } from '../helpers/factories';
import { type GaleraCluster, startingAt } from '../../support/galera';
import {
  clusterTestDatabase,
  releaseGaleraCluster,
  startNodeApps,
  stopNodeApps,
  useGaleraCluster,
  whenGaleraAvailable,
} from '../helpers/galera-suite';
import { expectProblem } from '../helpers/problem';
import type { TestApp } from '../helpers/test-app';

// One server process per node: app i's connections prefer node i (its DATABASE_URL lists that
// node first), so requests sent to different apps run on different nodes of one database.

jest.setTimeout(180_000);

describe('on a 3-node MariaDB Galera cluster', () => {
  whenGaleraAvailable(() => {
    let cluster: GaleraCluster;
    let database: { name: string; url: string; drop(): Promise<void> };
    const apps: TestApp[] = [];
    const origins: string[] = [];
    let admin: TestUser;

    beforeAll(async () => {
      cluster = await useGaleraCluster();
      database = await cluster.createDatabase();
      for (const { app, origin } of await startNodeApps(cluster, database, [0, 1, 2])) {
        apps.push(app);
        origins.push(origin);
      }
      admin = await createUser(first(), 'admin');
    }, 300_000);

    afterAll(async () => {
      await stopNodeApps(apps);
      await releaseGaleraCluster(cluster);
    });

    beforeEach(() => {
      for (const app of apps) setClock(app, '2026-11-20T12:00:00.000Z');
    });

    const first = () => apps[0] as TestApp;
    const api = (node: number) => request(origins[node % 3] as string);
    const path = (p: string) => first().api(p);
    const asAdmin = <T extends request.Test>(req: T) => req.auth(admin.token, { type: 'bearer' });
    const statusesOf = (responses: request.Response[]) => responses.map((res) => res.status).sort();

    /** The same query on every node, each through a connection of its own. */
    async function onEveryNode<T>(query: (db: ReturnType<typeof openDatabase>) => Promise<T>): Promise<T[]> {
      return Promise.all(
        cluster.nodes.map(async (node) => {
          const db = openDatabase({ client: 'mysql', url: `${node.serverUrl}/${database.name}` });
          try {
            return await query(db);
          } finally {
            await db.destroy();
          }
        }),
      );
    }

    it('runs each app on its own node, with causal reads on', async () => {
      const sessions = await Promise.all(
        apps.map(async (app) => (await app.db.raw('SELECT @@wsrep_node_name AS node, @@session.wsrep_sync_wait AS syncWait'))[0][0]),
      );
      expect(sessions).toEqual([
        { node: 'node1', syncWait: 3 },
        { node: 'node2', syncWait: 3 },
        { node: 'node3', syncWait: 3 },
      ]);
      // Each session knows its server certifies writes: attendance writes write the employee's row.
      expect(await Promise.all(apps.map((app) => app.db.transaction((trx) => certifiesWrites(trx))))).toEqual([true, true, true]);
    });

    it('turns causal reads off with DATABASE_CAUSAL_READS=0', async () => {
      const db = clusterTestDatabase(cluster, database, startingAt(1), { causalReads: false }).open();
      try {
        expect((await db.raw('SELECT @@session.wsrep_sync_wait AS syncWait'))[0][0]).toEqual({ syncWait: 0 });
      } finally {
        await db.destroy();
      }
    });

    it('ran every migration on every node, and every table has a primary key', async () => {
      const results = await onEveryNode(async (db) => ({
        migrations: Number((await db('knex_migrations').count({ n: '*' }).first())?.n),
        withoutPrimaryKey: (
          await db.raw(
            `SELECT t.table_name AS name FROM information_schema.tables t
             WHERE t.table_schema = ? AND t.table_type = 'BASE TABLE' AND NOT EXISTS (
               SELECT 1 FROM information_schema.table_constraints c
               WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.constraint_type = 'PRIMARY KEY')`,
            [database.name],
          )
        )[0],
        engines: (
          await db.raw("SELECT DISTINCT engine FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE'", [
            database.name,
          ])
        )[0],
      }));
      for (const result of results) {
        expect(result).toEqual({ migrations: MIGRATIONS.length, withoutPrimaryKey: [], engines: [{ engine: 'InnoDB' }] });
      }
    });

    it('re-runs a whole write transaction that loses a certification conflict at commit, applying it once', async () => {
      const [node1, node2] = [0, 1].map((node) => clusterTestDatabase(cluster, database, startingAt(node)).open()) as [
        ReturnType<typeof openDatabase>,
        ReturnType<typeof openDatabase>,
      ];
      try {
        const employeeId = await createEmployee(first());
        const attempts: number[] = [];
        let conflicting = true;
        // Attempt 1 updates the row on node 1; before it commits, node 2 commits its own update of
        // the row, so node 1's commit fails certification (1213). Attempt 2 runs whole again.
        await retryConflicts(async () => {
          attempts.push(attempts.length + 1);
          await node1.transaction(async (trx) => {
            await trx('employees').where({ id: employeeId }).increment('attendance_version', 1);
            if (conflicting) {
              conflicting = false;
              await node2('employees').where({ id: employeeId }).increment('attendance_version', 10);
            }
          });
        });
        expect(attempts).toEqual([1, 2]);
        const versions = await onEveryNode(
          async (db) => (await db('employees').where({ id: employeeId }).first('attendance_version')).attendance_version,
        );
        expect(versions).toEqual([11, 11, 11]);
      } finally {
        await node1.destroy();
        await node2.destroy();
      }
    });

    it("fails the second of two attendance writes of one employee on two nodes at certification: the employee's row is in both write sets", async () => {
      const [node1, node2] = [0, 1].map((node) => clusterTestDatabase(cluster, database, startingAt(node)).open()) as [
        ReturnType<typeof openDatabase>,
        ReturnType<typeof openDatabase>,
      ];
      try {
        const record = (employeeId: number, inTime: string) => ({
          employee_id: employeeId,
          in_time_utc: inTime,
          in_time_local: inTime,
          out_time_utc: null,
          out_time_local: null,
          timezone: 'UTC',
          created_at: inTime,
          updated_at: inTime,
        });
        // Each node locks the employee (locks are node-local) and writes a record; then both
        // commit at once. Certification must let exactly one through, every time (the foreign
        // key to the employee is only a shared key: two records alone would both commit).
        for (let round = 0; round < 10; round++) {
          const employeeId = await createEmployee(first());
          const [trx1, trx2] = await Promise.all([node1.transaction(), node2.transaction()]);
          await lockAttendanceEmployee(trx1, employeeId);
          await lockAttendanceEmployee(trx2, employeeId);
          const inserted = await Promise.allSettled([
            trx1('attendance').insert(record(employeeId, '2026-11-19 08:00:00')),
            trx2('attendance').insert(record(employeeId, '2026-11-19 09:00:00')),
          ]);
          const commits = await Promise.allSettled(
            [trx1, trx2].map(async (trx, index) => {
              if (inserted[index]?.status === 'rejected') {
                await trx.rollback().catch(() => undefined);
                throw (inserted[index] as PromiseRejectedResult).reason;
              }
              // commit() resolves even when COMMIT fails; the transaction's own promise tells.
              await trx.commit();
              await trx.executionPromise;
            }),
          );
          expect(commits.map((commit) => commit.status).sort()).toEqual(['fulfilled', 'rejected']);
          expect((commits.find((commit) => commit.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ errno: 1213 });
          const counts = await onEveryNode(async (db) =>
            Number((await db('attendance').where({ employee_id: employeeId }).count({ n: '*' }).first())?.n),
          );
          expect(counts).toEqual([1, 1, 1]);
        }
      } finally {
        await node1.destroy();
        await node2.destroy();
      }
    });

    it('leaves exactly one open record for 20 simultaneous punch-ins of one employee spread over three nodes, never a 500', async () => {
      const employeeId = await createEmployee(first());

      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          asAdmin(api(index).post(path('/attendance/punch-in'))).send({ employee: employeeId, note: `terminal ${index}` }),
        ),
      );

      // What was stored first: should the answers ever disagree with it, the failure tells which
      // of the two is wrong (a second record, or a 201 for a write that did not commit).
      const rows = await onEveryNode((db) => db('attendance').where({ employee_id: employeeId }).select('id', 'open_employee_id', 'note'));
      for (const nodeRows of rows)
        expect(nodeRows).toEqual([{ id: expect.any(Number), open_employee_id: employeeId, note: expect.any(String) }]);
      expect(statusesOf(responses)).toEqual([201, ...Array<number>(19).fill(409)]);
      expect(responses.find((res) => res.status === 201)?.body).toMatchObject({ id: String(rows[0]?.[0]?.id), note: rows[0]?.[0]?.note });
      for (const res of responses.filter((r) => r.status === 409)) expectProblem(res, 409, 'already_punched_in');
    });

    it('never commits both of two overlapping records sent to different nodes at once', async () => {
      const employees = await Promise.all(Array.from({ length: 8 }, () => createEmployee(first())));

      const responses = await Promise.all(
        employees.flatMap((employee, index) => [
          asAdmin(api(index).post(path('/attendance'))).send({ employee, in_time: '2026-11-19 08:00:00', out_time: '2026-11-19 16:00:00' }),
          asAdmin(api(index + 1).post(path('/attendance'))).send({
            employee,
            in_time: '2026-11-19 12:00:00',
            out_time: '2026-11-19 18:00:00',
          }),
        ]),
      );

      for (const [index, employee] of employees.entries()) {
        const pair = responses.slice(2 * index, 2 * index + 2);
        expect(statusesOf(pair)).toEqual([201, 409]);
        expectProblem(pair.find((res) => res.status === 409) as request.Response, 409, 'overlap');
        const counts = await onEveryNode(async (db) =>
          Number((await db('attendance').where({ employee_id: employee }).count({ n: '*' }).first())?.n),
        );
        expect(counts).toEqual([1, 1, 1]);
      }
    });

    it('publishes one of two overlapping shifts of one employee sent to different nodes at once: 201 and 409, one stored', async () => {
      const employees = await Promise.all(Array.from({ length: 8 }, () => createEmployee(first())));
      const shift = (employee: number, start: string, end: string) => ({
        employee,
        start_local: start,
        end_local: end,
        timezone: 'UTC',
        status: 'published',
      });

      const responses = await Promise.all(
        employees.flatMap((employee, index) => [
          asAdmin(api(index).post(path('/shifts'))).send(shift(employee, '2026-11-25T08:00', '2026-11-25T16:00')),
          asAdmin(api(index + 1).post(path('/shifts'))).send(shift(employee, '2026-11-25T12:00', '2026-11-25T20:00')),
        ]),
      );

      for (const [index, employee] of employees.entries()) {
        const pair = responses.slice(2 * index, 2 * index + 2);
        expect(statusesOf(pair)).toEqual([201, 409]);
        expectProblem(pair.find((res) => res.status === 409) as request.Response, 409, 'shift_overlap');
        const stored = await onEveryNode(async (db) => db('shifts').where({ employee_id: employee }).pluck('id'));
        const created = pair.find((res) => res.status === 201) as request.Response;
        expect(stored.map((ids) => ids.map(String))).toEqual([[created.body.id], [created.body.id], [created.body.id]]);
      }
    });

    it('announces each final absence once when the sweep and its announcements run on three nodes at once', async () => {
      await createWebhook(first().db, { url: 'https://93.184.215.14/hooks', events: ['day.absent'] }, first().clock.now());
      const employees = await Promise.all(Array.from({ length: 6 }, () => createEmployee(first())));
      for (const [index, employee] of employees.entries()) {
        const res = await asAdmin(api(index).post(path('/shifts'))).send({
          employee,
          start_local: '2026-11-18T08:00',
          end_local: '2026-11-18T16:00',
          timezone: 'UTC',
          status: 'published',
        });
        expect(res.status).toBe(201);
      }
      const now = first().clock.now();

      // The whole sweep on every node at once: one holder gets the lease, the others do nothing.
      const sweeps = await Promise.all(apps.map((app, node) => runScheduleSweep(app.db, `node-${node}`, now)));
      // Then the announcements alone, on every node at once (a lease taken over while a slow run
      // still announces): the database lets each absence through once.
      const again = await Promise.all(apps.map((app) => announceAbsences(app.db, now)));

      expect(sweeps.filter((sweep) => sweep !== undefined)).toHaveLength(1);
      expect(again).toEqual([0, 0, 0]);
      const announced = await onEveryNode(async (db) => ({
        absences: (await db('day_absences').whereIn('employee_id', employees).pluck('employee_id')).map(Number).sort((a, b) => a - b),
        events: (await db('webhook_events').where({ type: 'day.absent' }).pluck('payload'))
          .map((payload: string) => Number((JSON.parse(payload) as { data: { employee: { id: string } } }).data.employee.id))
          .filter((id: number) => employees.includes(id))
          .sort((a: number, b: number) => a - b),
      }));
      const ids = [...employees].sort((a, b) => a - b);
      expect(announced).toEqual([0, 1, 2].map(() => ({ absences: ids, events: ids })));
    });

    it('lets each absence through once when three nodes announce it at the same moment', async () => {
      const employees = await Promise.all(Array.from({ length: 6 }, () => createEmployee(first())));
      for (const employee of employees) {
        const res = await asAdmin(api(0).post(path('/shifts'))).send({
          employee,
          start_local: '2026-11-17T08:00',
          end_local: '2026-11-17T16:00',
          timezone: 'UTC',
          status: 'published',
        });
        expect(res.status).toBe(201);
      }
      const now = first().clock.now();

      const counts = await Promise.all(apps.map((app) => announceAbsences(app.db, now)));

      // Which node announced which absence is the race's; that each was announced once is not.
      expect(counts.reduce((sum, count) => sum + count, 0)).toBe(employees.length);
      const stored = await onEveryNode(
        async (db) => (await db('day_absences').whereIn('employee_id', employees).pluck('employee_id')).length,
      );
      expect(stored).toEqual([6, 6, 6]);
      const events = await onEveryNode(async (db) =>
        (await db('webhook_events').where({ type: 'day.absent' }).pluck('payload')).filter((payload: string) =>
          employees.includes(Number((JSON.parse(payload) as { data: { employee: { id: string } } }).data.employee.id)),
        ),
      );
      expect(events.map((list) => list.length)).toEqual([6, 6, 6]);
    });

    it('lets one of 9 corrections sent to three nodes move its record into one free slot', async () => {
      const employeeId = await createEmployee(first());
      const ids: number[] = [];
      for (let day = 1; day <= 9; day++) {
        const res = await asAdmin(api(0).post(path('/attendance'))).send({
          employee: employeeId,
          in_time: `2026-10-0${day} 08:00:00`,
          out_time: `2026-10-0${day} 16:00:00`,
        });
        expect(res.status).toBe(201);
        ids.push(res.body.id);
      }

      const responses = await Promise.all(
        ids.map((id, index) =>
          asAdmin(api(index).patch(path(`/attendance/${id}`))).send({
            in_time: `2026-11-19 09:0${index}:00`,
            out_time: `2026-11-19 17:0${index}:00`,
          }),
        ),
      );

      expect(statusesOf(responses)).toEqual([200, ...Array<number>(8).fill(409)]);
      const moved = await onEveryNode(async (db) =>
        Number(
          (await db('attendance').where({ employee_id: employeeId }).where('in_time_utc', '>=', '2026-11-19').count({ n: '*' }).first())?.n,
        ),
      );
      expect(moved).toEqual([1, 1, 1]);
    });

    it('answers 30 simultaneous updates of one employee through three nodes with 200, each applied once, and replays each key through another node', async () => {
      const employeeId = await createEmployee(first());
      const send = (node: number, index: number) =>
        asAdmin(api(node).patch(path(`/employees/${employeeId}`)))
          .set('Idempotency-Key', `galera-update-${employeeId}-${index}`)
          .send({ middle_name: `M${index}` });

      const responses = await Promise.all(Array.from({ length: 30 }, (_, index) => send(index, index)));

      expect(statusesOf(responses)).toEqual(Array<number>(30).fill(200));
      const auditCount = async () =>
        onEveryNode(async (db) =>
          Number(
            (await db('audit_log').where({ entity_type: 'employee', entity_id: employeeId, action: 'update' }).count({ n: '*' }).first())
              ?.n,
          ),
        );
      expect(await auditCount()).toEqual([30, 30, 30]);

      const replays = await Promise.all(Array.from({ length: 30 }, (_, index) => send(index + 1, index)));
      for (const [index, replay] of replays.entries()) {
        expect(replay.status).toBe(200);
        expect(replay.body).toEqual((responses[index] as request.Response).body);
      }
      expect(await auditCount()).toEqual([30, 30, 30]);
    });

    it('lets one of three writers holding the same ETag through three nodes win; the others get 412 and write nothing', async () => {
      const employeeId = await createEmployee(first());
      const read = await asAdmin(api(0).get(path(`/employees/${employeeId}`)));
      const etag = read.headers.etag as string;
      expect(etag).toMatch(/^"/);
      const employeeWrites = await Promise.all(
        [0, 1, 2].map((node) =>
          asAdmin(api(node).patch(path(`/employees/${employeeId}`)))
            .set('If-Match', etag)
            .send({ middle_name: `Node${node}` }),
        ),
      );

      expect(statusesOf(employeeWrites)).toEqual([200, 412, 412]);
      const winner = employeeWrites.find((res) => res.status === 200) as request.Response;
      for (const res of employeeWrites.filter((answer) => answer.status === 412)) expectProblem(res, 412, 'precondition_failed');
      const stored = await onEveryNode(async (db) => ({
        middleName: (await db('employees').where({ id: employeeId }).first('middle_name')).middle_name,
        updates: Number(
          (await db('audit_log').where({ entity_type: 'employee', entity_id: employeeId, action: 'update' }).count({ n: '*' }).first())?.n,
        ),
      }));
      expect(stored).toEqual(Array(3).fill({ middleName: winner.body.middle_name, updates: 1 }));
      expect((await asAdmin(api(2).get(path(`/employees/${employeeId}`)))).headers.etag).toBe(winner.headers.etag);

      const created = await asAdmin(api(0).post(path('/attendance'))).send({
        employee: employeeId,
        in_time: '2026-10-20 08:00:00',
        out_time: '2026-10-20 16:00:00',
      });
      expect(created.status).toBe(201);
      const recordTag = (await asAdmin(api(1).get(path(`/attendance/${created.body.id}`)))).headers.etag as string;
      const attendanceWrites = await Promise.all(
        [0, 1, 2].map((node) =>
          asAdmin(api(node).patch(path(`/attendance/${created.body.id}`)))
            .set('If-Match', recordTag)
            .send({ note: `through node ${node}` }),
        ),
      );

      expect(statusesOf(attendanceWrites)).toEqual([200, 412, 412]);
      const kept = (attendanceWrites.find((res) => res.status === 200) as request.Response).body.note;
      expect(await onEveryNode(async (db) => (await db('attendance').where({ id: created.body.id }).first('note')).note)).toEqual(
        Array(3).fill(kept),
      );
    });

    it('refuses a token revoked through one node at once through every other node', async () => {
      for (let round = 0; round < 6; round++) {
        const issued = await issueToken(first().db, first().instance.signingKey, {
          userId: admin.userId,
          name: `round ${round}`,
          now: first().clock.now(),
        });
        const me = (node: number) => api(node).get(path('/employees/me')).auth(issued.token, { type: 'bearer' });
        expect((await me(round + 1)).status).toBe(200);

        const revoked = await asAdmin(api(round).delete(path(`/tokens/${issued.id}`)));
        expect(revoked.status).toBe(200);

        for (const node of [round + 1, round + 2]) expectProblem(await me(node), 401, 'invalid_token');
      }
    });

    it('reads a record written through one node back through another in the next request', async () => {
      for (let round = 0; round < 9; round++) {
        const created = await asAdmin(api(round).post(path('/employees'))).send({
          employee_id: `G${round}-${Date.now()}`,
          first_name: 'Causal',
          last_name: `Read${round}`,
          gender: 'Female',
          nationality: 1,
          birthday: '1990-01-01',
        });
        expect(created.status).toBe(201);
        const read = await asAdmin(api(round + 1).get(path(`/employees/${created.body.id}`)));
        expect(read.status).toBe(200);
        expect(read.body).toEqual(created.body);
      }
    });
  });
});
