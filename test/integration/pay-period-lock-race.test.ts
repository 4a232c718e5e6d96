import type { AddressInfo } from 'node:net';
import { runCli } from '../../src/cli/program';
import { systemClock } from '../../src/clock';
import type { Db } from '../../src/db/connect';
import { toSqlDateTime } from '../../src/db/sql-time';
import { insertEmployee } from '../../src/employees/repository';
import { setClock } from '../helpers/attendance';
import { createTestDatabase, describeOnMysql, type TestDatabase, testDialects } from '../helpers/databases';
import { createEmployee, createUser, employeeColumns } from '../helpers/factories';
import { type LockRaceOutcome, runLockRace, runWorkweekLockRace } from '../helpers/lock-race';
import { type ServerProcess, startServerProcess } from '../helpers/server-process';
import type { GaleraCluster } from '../../support/galera';
import { releaseGaleraCluster, startNodeApps, stopNodeApps, useGaleraCluster, whenGaleraAvailable } from '../helpers/galera-suite';
import { type TestApp, useFixture, useTestApp } from '../helpers/test-app';

// docs/scaling.md, "Pay-period locks": a write racing the lock of its period either commits
// before it (and is in the lock's numbers) or is refused with 409 period_locked; none commits after.

jest.setTimeout(240_000);

/** Ended monthly periods, one per run (a period is locked once). */
const PERIODS = [
  { start: '2026-10-01', end: '2026-10-31' },
  { start: '2026-09-01', end: '2026-09-30' },
  { start: '2026-08-01', end: '2026-08-31' },
];
const EMPLOYEES = 16;
const STEPS = 15;

function expectRaceHeld(outcome: LockRaceOutcome): void {
  if (process.env.HRM_RACE_REPORT) {
    const { lockAttempts, committed, refused, committedWhileLocking, results } = outcome;
    process.stderr.write(
      `lock race: ${results.length} writes, ${committed} committed (${committedWhileLocking} sent while locking), ${refused} refused, lock sent ${lockAttempts}x\n`,
    );
  }
  expect(outcome.violations).toEqual([]);
  expect(outcome.lockStatus).toBe(200);
  // Both sides of the lock were met: writes that committed, and writes refused while the writers ran.
  expect(outcome.committed).toBeGreaterThan(0);
  expect(outcome.refused).toBeGreaterThan(0);
}

describe.each(testDialects())('the lock race on one server on %s', (dialect) => {
  const t = useTestApp(dialect);
  const admin = useFixture(() => createUser(t, 'admin'));
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => t.app.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(t.app.address() as AddressInfo).port}${t.api('')}`;
  });
  beforeEach(() => setClock(t, '2026-11-20T12:00:00.000Z'));

  it.each(PERIODS.map((period, run) => [run + 1, period] as const))(
    'run %i: every write into the period committed before the lock or was refused',
    async (_run, period) => {
      const employees = await Promise.all(Array.from({ length: EMPLOYEES }, () => createEmployee(t)));

      const outcome = await runLockRace({
        bases: [base],
        token: admin.token,
        db: t.db,
        employees,
        period,
        steps: STEPS,
        lockAfter: EMPLOYEES * 3,
      });

      expectRaceHeld(outcome);
    },
  );

  it('a workweek that continues into the period: every June write that changes July committed before its lock or was refused', async () => {
    const employees = await Promise.all(Array.from({ length: EMPLOYEES }, () => createEmployee(t)));

    const outcome = await runWorkweekLockRace({
      bases: [base],
      token: admin.token,
      db: t.db,
      employees,
      steps: STEPS,
      lockAfter: EMPLOYEES * 3,
    });

    expectRaceHeld(outcome);
  });
});

async function hrm(env: Record<string, string>, argv: string[]): Promise<number> {
  return runCli(argv, { stdout: { write: () => true }, stderr: { write: () => true }, env, readStdin: async () => '', clock: systemClock });
}

async function insertEmployees(db: Db, count: number): Promise<number[]> {
  const now = toSqlDateTime(new Date());
  const ids: number[] = [];
  for (let i = 0; i < count; i++) ids.push(await insertEmployee(db, { ...employeeColumns(), created_at: now, updated_at: now }));
  return ids;
}

describeOnMysql('the lock race across three server processes on mysql', () => {
  const dialect = 'mysql';
  let database: TestDatabase;
  let db: Db;
  const servers: ServerProcess[] = [];
  let token = '';
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    // The first start prepares the database and writes the admin's token; the others find it ready.
    for (let i = 0; i < 3; i++) servers.push(await startServerProcess({ DATABASE_URL: database.url }));
    token = servers[0]!.firstAdminToken() as string;
    expect(await hrm({ DATABASE_URL: database.url }, ['api', 'enable'])).toBe(0);
    db = database.open();
  }, 120_000);
  /** The processes' API URLs once each has seen the API enabled (they cache the setting for a few seconds). */
  async function enabledBases(): Promise<string[]> {
    const bases = servers.map((server) => server.apiUrl);
    for (const url of bases) {
      for (let tries = 0; (await fetch(`${url}/echo`, { headers: { Authorization: `Bearer ${token}` } })).status !== 200; tries++) {
        if (tries > 100) throw new Error(`${url} never enabled its API`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    return bases;
  }
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await db?.destroy();
    await database?.drop();
  });

  it.each(PERIODS.map((period, run) => [run + 1, period] as const))(
    'run %i: writes through every process, the lock through one: each write before the lock or refused',
    async (_run, period) => {
      const employees = await insertEmployees(db, EMPLOYEES);
      const bases = await enabledBases();

      const outcome = await runLockRace({
        bases,
        lockBase: bases[1],
        token,
        db,
        employees,
        period,
        steps: STEPS,
        lockAfter: EMPLOYEES * 3,
      });

      expectRaceHeld(outcome);
    },
  );

  it('a workweek that continues into the period, through every process: each June write before the lock or refused', async () => {
    const employees = await insertEmployees(db, EMPLOYEES);
    const bases = await enabledBases();

    const outcome = await runWorkweekLockRace({ bases, lockBase: bases[1], token, db, employees, steps: STEPS, lockAfter: EMPLOYEES * 3 });

    expectRaceHeld(outcome);
  });
});

describe('the lock race on a 3-node MariaDB Galera cluster', () => {
  whenGaleraAvailable(() => {
    let cluster: GaleraCluster;
    const apps: TestApp[] = [];
    const bases: string[] = [];
    let token = '';
    beforeAll(async () => {
      cluster = await useGaleraCluster();
      const database = await cluster.createDatabase();
      for (const { app, origin } of await startNodeApps(cluster, database, [0, 1, 2])) {
        apps.push(app);
        bases.push(`${origin}${app.api('')}`);
      }
      token = (await createUser(apps[0]!, 'admin')).token;
    }, 300_000);
    afterAll(async () => {
      await stopNodeApps(apps);
      await releaseGaleraCluster(cluster);
    });
    beforeEach(() => {
      for (const app of apps) setClock(app, '2026-11-20T12:00:00.000Z');
    });

    it.each(PERIODS.map((period, run) => [run + 1, period] as const))(
      'run %i: writes through every node, the lock through another: each write before the lock or refused',
      async (_run, period) => {
        const employees = await Promise.all(Array.from({ length: EMPLOYEES }, () => createEmployee(apps[0]!)));

        const outcome = await runLockRace({
          bases,
          lockBase: bases[2],
          token,
          db: apps[0]!.db,
          employees,
          period,
          steps: STEPS,
          lockAfter: EMPLOYEES * 3,
        });

        // Writers back to back through every node: the lock's first, short step makes them refused,
        // so its second step meets only the writes already under way and goes through at once.
        expectRaceHeld(outcome);
        expect(outcome.lockAttempts).toBe(1);
      },
    );

    it('a workweek that continues into the period, through every node: each June write before the lock or refused', async () => {
      const employees = await Promise.all(Array.from({ length: EMPLOYEES }, () => createEmployee(apps[0]!)));

      const outcome = await runWorkweekLockRace({
        bases,
        lockBase: bases[2],
        token,
        db: apps[0]!.db,
        employees,
        steps: STEPS,
        lockAfter: EMPLOYEES * 3,
      });

      expectRaceHeld(outcome);
    });
  });
});
