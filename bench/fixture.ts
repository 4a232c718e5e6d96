import { issueToken } from '../src/auth/issue-token';
import { insertUser } from '../src/auth/user-repository';
import { systemClock } from '../src/clock';
import type { DatabaseConfig } from '../src/config';
import { openDatabase } from '../src/db/connect';
import { openInstance } from '../src/instance';
import { seedEmployees } from '../src/seed/employees';
import { SETTING, writeSetting } from '../src/settings/repository';

/** What the scenarios need from the prepared database. */
export interface Fixture {
  /** Bearer token of an admin user linked to `employeeId`. */
  token: string;
  employeeId: number;
  /** How many employees were seeded, and one from the middle of them. */
  employees: number;
  middleEmployeeId: number;
}

/**
 * Migrates and seeds the database with the project's own modules, creates an admin user linked
 * to the first seeded employee (a manager, so never terminated), issues its token and enables
 * the API. The signing secret is the one stored in the database, which the server reads too.
 */
export async function prepareFixture(config: DatabaseConfig, employees: number): Promise<Fixture> {
  const db = openDatabase(config);
  try {
    const now = systemClock.now();
    const instance = await openInstance(db, { clock: systemClock });
    const seeded = await seedEmployees(db, { count: employees, now });
    const userId = await insertUser(db, {
      username: 'bench-admin',
      role: 'admin',
      employeeId: seeded.firstId,
      passwordHash: null,
      now,
    });
    const { token } = await issueToken(db, instance.signingKey, { userId, name: 'bench', now });
    await writeSetting(db, SETTING.restApiEnabled, '1', now);
    return { token, employeeId: seeded.firstId, employees, middleEmployeeId: seeded.firstId + Math.floor(employees / 2) };
  } finally {
    await db.destroy();
  }
}
