import type { Command } from 'commander';
import { issueToken } from '../auth/issue-token';
import { listTokensOfUser, revokeToken } from '../users/token-repository';
import { findUserByUsername, type User } from '../users/user-repository';
import { CliError, type CliContext } from './context';
import { formatTable } from './table';

const DURATION = /^(\d{1,6})([smhd])$/;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };
const MAX_LIFETIME_SECONDS = 10 * 365 * 86400;

/** "30d", "12h", "90m" or "3600s" in seconds. */
function parseDuration(value: string): number {
  const match = DURATION.exec(value);
  const seconds = match ? Number(match[1]) * (UNIT_SECONDS[match[2] ?? 's'] ?? 1) : 0;
  if (seconds < 1 || seconds > MAX_LIFETIME_SECONDS) {
    throw new CliError('--expires-in must be a duration such as 30d, 12h, 90m or 3600s (at most 10 years)');
  }
  return seconds;
}

export function registerTokenCommands(program: Command, context: CliContext): void {
  const token = program.command('token').description('bearer tokens');

  token
    .command('issue')
    .description('issue a token for a user; prints only the token')
    .requiredOption('--username <username>', 'the user the token belongs to')
    .option('--expires-in <duration>', 'lifetime such as 30d, 12h or 3600s', '180d')
    .option('--name <label>', 'a label to recognise the token by in lists')
    .action(async (options: { username: string; expiresIn: string; name?: string }) => {
      const lifetimeSeconds = parseDuration(options.expiresIn);
      if (options.name !== undefined && options.name.length > 100) throw new CliError('--name may be at most 100 characters');
      const instance = await context.instance();
      const user = await requireUser(context, options.username);
      if (user.disabled) throw new CliError(`User ${user.username} is disabled`);
      const issued = await issueToken(instance.db, instance.signingKey, {
        userId: user.id,
        name: options.name ?? null,
        now: context.io.clock.now(),
        lifetimeSeconds,
      });
      context.print(issued.token);
    });

  token
    .command('list')
    .description("list a user's tokens (their ids, never the tokens themselves)")
    .requiredOption('--username <username>', 'whose tokens')
    .action(async (options: { username: string }) => {
      const { db } = await context.instance();
      const user = await requireUser(context, options.username);
      const tokens = await listTokensOfUser(db, user.id);
      const now = context.io.clock.now().toISOString();
      const rows = tokens.map((t) => [
        t.id,
        t.revoked_at ? 'revoked' : t.expires_at <= now ? 'expired' : 'active',
        t.created_at,
        t.expires_at,
        t.last_used_at ?? '-',
        t.name ?? '',
      ]);
      context.print(formatTable(['ID', 'STATUS', 'CREATED', 'EXPIRES', 'LAST USED', 'NAME'], rows));
    });

  token
    .command('revoke')
    .description('revoke a token by its id; it stops working at once')
    .argument('<token-id>', 'the id shown by "token list" (the JWT jti)')
    .action(async (tokenId: string) => {
      const { db } = await context.instance();
      if (!(await revokeToken(db, tokenId, context.io.clock.now()))) {
        throw new CliError(`There is no unrevoked token with id ${tokenId}`);
      }
      context.print(`Revoked token ${tokenId}.`);
    });
}

async function requireUser(context: CliContext, username: string): Promise<User> {
  const { db } = await context.instance();
  const user = await findUserByUsername(db, username);
  if (!user) throw new CliError(`There is no user named ${username}`);
  return user;
}
