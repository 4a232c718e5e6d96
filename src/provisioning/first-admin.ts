import { asUniqueViolation } from '../db/constraint-errors';
import { createEmployee } from '../employees/create-employee';
import type { Instance } from '../instances/instance';
import { countUsers, insertUser } from '../users/user-repository';
import { issueToken } from '../auth/issue-token';

export const FIRST_ADMIN_USERNAME = 'admin';

export interface FirstAdmin {
  username: string;
  employeeId: number;
  token: string;
}

/**
 * On an installation without users, creates the `admin` user, linked to an employee record of
 * its own (so GET /employees/me works at once), and one token for it. Returns undefined when
 * users already exist, or when another process won the race to create them.
 */
export async function createFirstAdmin(instance: Instance, now: Date): Promise<FirstAdmin | undefined> {
  const { db } = instance;
  if ((await countUsers(db)) > 0) return undefined;
  const { defaultTimezone } = await instance.settings.get();
  try {
    return await db.transaction(async (trx) => {
      const employee = await createEmployee(
        trx,
        { employee_id: 'ADMIN', first_name: 'Admin', last_name: 'User' },
        { now, defaultTimezone, caller: undefined, requestId: undefined },
      );
      const userId = await insertUser(trx, {
        username: FIRST_ADMIN_USERNAME,
        role: 'admin',
        employeeId: employee.id,
        passwordHash: null,
        now,
      });
      const { token } = await issueToken(trx, instance.signingKey, { userId, name: 'first start', now });
      return { username: FIRST_ADMIN_USERNAME, employeeId: employee.id, token };
    });
  } catch (error) {
    if (asUniqueViolation(error)) return undefined;
    throw error;
  }
}
