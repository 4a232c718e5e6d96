import { issueToken } from '../src/auth/issue-token';
import { insertUser } from '../src/users/user-repository';
import { systemClock } from '../src/clock';
import { openDatabase, type DatabaseConfig } from '../src/db/connect';
import { openInstance } from '../src/instances/instance';
import { seedAttendance } from '../src/seed/attendance';
import { seedEmployees } from '../src/seed/employees';
import { SETTING, writeSetting } from '../src/settings/repository';
import { addDays } from '../src/time';

/** What the scenarios need from the prepared database. */
export interface Fixture {
  /** Bearer token of an admin user linked to `employeeId`. */
  token: string;
  /**
   * Tokens of USER_TOKENS users with the employee role, each linked to an active seeded employee
   * of its own: a load of many people each asking about themselves.
   */
  userTokens: string[];
  employeeId: number;
  /** The seeded employees' ids. */
  employees: { firstId: number; lastId: number };
  /** The seeded employees whose last day has passed: attendance refuses their punches. */
  terminatedIds: ReadonlySet<number>;
  /** The 31 days up to yesterday (UTC), for the monthly attendance read. */
  month: { from: string; to: string };
  attendanceRows: number;
  /** How long seeding took, in seconds. */
  seedSeconds: { employees: number; attendance: number };
}

/** As many users as the default number of connections, so that no two connections share one. */
const USER_TOKENS = 64;

/**
 * Migrates and seeds the database with the project's own modules (employees, then
 * `attendanceDays` working days of attendance each), creates an admin user linked to the first
 * seeded employee (a manager, so never terminated) and USER_TOKENS employee users, issues their
 * tokens and enables the API. The signing secret is the one stored in the database, which the
 * server reads too.
 */
export async function prepareFixture(config: DatabaseConfig, employees: number, attendanceDays: number): Promise<Fixture> {
  const db = openDatabase(config);
  try {
    const now = systemClock.now();
    const instance = await openInstance(db, { clock: systemClock });
    let started = process.hrtime.bigint();
    const seeded = await seedEmployees(db, { count: employees, now });
    const employeeSeconds = secondsSince(started);
    started = process.hrtime.bigint();
    const attendance =
      attendanceDays > 0
        ? await seedAttendance(db, { firstId: seeded.firstId, lastId: seeded.lastId, days: attendanceDays, now })
        : { count: 0 };
    const attendanceSeconds = secondsSince(started);
    const userId = await insertUser(db, {
      username: 'bench-admin',
      role: 'admin',
      employeeId: seeded.firstId,
      passwordHash: null,
      now,
    });
    const { token } = await issueToken(db, instance.signingKey, { userId, name: 'bench', now });
    const userTokens: string[] = [];
    const people: Array<{ id: number }> = await db('employees')
      .where({ status: 'Active' })
      .whereBetween('id', [seeded.firstId + 1, seeded.lastId])
      .orderBy('id')
      .limit(USER_TOKENS)
      .select('id');
    for (const { id } of people) {
      const personId = await insertUser(db, { username: `bench-user-${id}`, role: 'employee', employeeId: id, passwordHash: null, now });
      userTokens.push((await issueToken(db, instance.signingKey, { userId: personId, name: 'bench', now })).token);
    }
    const terminated: Array<{ id: number }> = await db('employees').where({ status: 'Terminated' }).select('id');
    await writeSetting(db, SETTING.restApiEnabled, '1', now);
    const yesterday = addDays(now.toISOString().slice(0, 10), -1);
    return {
      token,
      userTokens,
      employeeId: seeded.firstId,
      employees: { firstId: seeded.firstId, lastId: seeded.lastId },
      terminatedIds: new Set(terminated.map((row) => Number(row.id))),
      month: { from: addDays(yesterday, -30), to: yesterday },
      attendanceRows: attendance.count,
      seedSeconds: { employees: employeeSeconds, attendance: attendanceSeconds },
    };
  } finally {
    await db.destroy();
  }
}

function secondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}
