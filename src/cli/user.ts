import { type Command, Option } from 'commander';
import { type Role, ROLES } from '../caller';
import { hashPassword } from '../users/passwords';
import { revokeTokensOfUser } from '../users/token-repository';
import { USERNAME_PATTERN } from '../users/user-repository';
import { findUserByUsername, insertUser, setPasswordHash, setUserDisabled } from '../users/user-repository';
import { asUniqueViolation } from '../db/constraint-errors';
import { findEmployeeById } from '../employees/repository';
import { CliError, type CliContext } from './context';

const MIN_PASSWORD_LENGTH = 12;

export function registerUserCommands(program: Command, context: CliContext): void {
  const user = program.command('user').description('API users');
  user
    .command('create')
    .description('create a user; link it to an employee record so /employees/me works')
    .requiredOption('--username <username>', 'letters, digits, . _ @ -; at most 100 characters')
    .addOption(new Option('--role <role>', 'what the user may do').choices(ROLES).makeOptionMandatory())
    .option('--employee <id>', 'id of the employee record the user is')
    .option('--password-stdin', 'read a password for the user from standard input')
    .action(async (options: { username: string; role: Role; employee?: string; passwordStdin?: boolean }) => {
      if (!USERNAME_PATTERN.test(options.username)) {
        throw new CliError('--username may hold letters, digits and . _ @ - (at most 100 characters)');
      }
      const { db } = await context.instance();
      const employeeId = options.employee === undefined ? null : await existingEmployeeId(context, options.employee);
      const passwordHash = options.passwordStdin ? await hashPassword(await readPassword(context)) : null;
      if (await findUserByUsername(db, options.username)) throw new CliError(`A user named ${options.username} already exists`);
      let id: number;
      try {
        id = await insertUser(db, {
          username: options.username,
          role: options.role,
          employeeId,
          passwordHash,
          now: context.io.clock.now(),
        });
      } catch (error) {
        const violated = asUniqueViolation(error)?.key;
        if (violated === undefined) throw error;
        throw new CliError(
          violated.includes('username')
            ? `A user named ${options.username} already exists`
            : `Employee ${employeeId} is already linked to another user`,
        );
      }
      const link = employeeId === null ? 'not linked to an employee' : `employee ${employeeId}`;
      context.print(`Created user ${options.username} (id ${id}, role ${options.role}, ${link}).`);
    });
  registerSetPassword(user, context);
  registerDisable(user, context);
}

function registerSetPassword(user: Command, context: CliContext): void {
  user
    .command('set-password')
    .description('set the password a user signs in with (POST /oauth/token), read from standard input')
    .requiredOption('--username <username>', 'whose password')
    .action(async (options: { username: string }) => {
      const { db } = await context.instance();
      const found = await findUserByUsername(db, options.username);
      if (!found) throw new CliError(`There is no user named ${options.username}`);
      await setPasswordHash(db, found.id, await hashPassword(await readPassword(context)), context.io.clock.now());
      context.print(`Password set for ${found.username}.`);
    });
}

function registerDisable(user: Command, context: CliContext): void {
  user
    .command('disable')
    .description('stop a user signing in and revoke all their tokens')
    .requiredOption('--username <username>', 'who')
    .action(async (options: { username: string }) => {
      const { db } = await context.instance();
      const found = await findUserByUsername(db, options.username);
      if (!found) throw new CliError(`There is no user named ${options.username}`);
      const now = context.io.clock.now();
      const revoked = await db.transaction(async (trx) => {
        await setUserDisabled(trx, found.id, true, now);
        return revokeTokensOfUser(trx, found.id, now);
      });
      context.print(`Disabled ${found.username}; revoked ${revoked} token(s).`);
    });
  user
    .command('enable')
    .description('let a disabled user sign in again (their old tokens stay revoked)')
    .requiredOption('--username <username>', 'who')
    .action(async (options: { username: string }) => {
      const { db } = await context.instance();
      const found = await findUserByUsername(db, options.username);
      if (!found) throw new CliError(`There is no user named ${options.username}`);
      await setUserDisabled(db, found.id, false, context.io.clock.now());
      context.print(`Enabled ${found.username}.`);
    });
}

async function existingEmployeeId(context: CliContext, value: string): Promise<number> {
  if (!/^[1-9][0-9]{0,9}$/.test(value)) throw new CliError('--employee must be the id of an employee record (a number)');
  const { db } = await context.instance();
  const employee = await findEmployeeById(db, Number(value));
  if (!employee) throw new CliError(`There is no employee with id ${value}`);
  return employee.id;
}

async function readPassword(context: CliContext): Promise<string> {
  const password = (await context.io.readStdin()).replace(/\r?\n$/, '');
  if (password.length < MIN_PASSWORD_LENGTH) throw new CliError(`The password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  return password;
}
