import { hashPassword, verifyPassword } from '../users/passwords';
import type { LoginUser } from '../users/user-repository';

// Compared against when the user does not exist, so that answering takes as long either way.
let decoyHash: Promise<string> | undefined;

/**
 * The user (found by the username sent) if the password is theirs and they may sign in. Unknown
 * user, wrong password, no password set, disabled user or terminated employee all give
 * undefined, in about the same time: the answer must not tell which.
 */
export async function authenticatePassword(user: LoginUser | undefined, password: string): Promise<LoginUser | undefined> {
  decoyHash ??= hashPassword('decoy password that matches nothing');
  const matches = await verifyPassword(password, user?.passwordHash ?? (await decoyHash));
  if (!user || !user.passwordHash || !matches) return undefined;
  if (user.disabled || user.employeeStatus === 'Terminated') return undefined;
  return user;
}
