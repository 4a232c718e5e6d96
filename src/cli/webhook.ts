import type { Command } from 'commander';
import { sqlDateTimeToIso } from '../db/sql-time';
import { ValidationError } from '../errors';
import { deleteSubscription, listSubscriptions } from '../webhooks/repository';
import { urlPolicyOf } from '../webhooks/routes';
import { checkWebhookUrl, createWebhook, createWebhookSchema } from '../webhooks/subscriptions';
import { CliError, type CliContext } from './context';
import { formatTable } from './table';

/** hrm webhook add|list|remove: what admins do through /webhooks, from the command line. */
export function registerWebhookCommands(program: Command, context: CliContext): void {
  const webhook = program.command('webhook').description('webhook subscriptions (signed event deliveries)');

  webhook
    .command('add')
    .description('subscribe a receiver URL to events; prints the id and the signing secret (shown only now)')
    .requiredOption('--url <url>', 'the receiver, https:// (http:// with WEBHOOK_ALLOW_HTTP=1)')
    .option('--events <types>', 'comma-separated event types, or * for all', '*')
    .option('--description <text>', 'what the receiver is')
    .option('--include-personal', "send employees' personal fields too")
    .option('--inactive', 'create it switched off')
    .action(async (options: { url: string; events: string; description?: string; includePersonal?: boolean; inactive?: boolean }) => {
      const parsed = createWebhookSchema.safeParse({
        url: options.url,
        events: options.events
          .split(',')
          .map((type) => type.trim())
          .filter(Boolean),
        description: options.description,
        active: !options.inactive,
        include_personal: Boolean(options.includePersonal),
      });
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new CliError(`--${String(issue?.path[0] ?? 'events').replace('_', '-')} ${issue?.message ?? 'is invalid'}`);
      }
      const input = parsed.data;
      try {
        input.url = await checkWebhookUrl(input.url, urlPolicyOf(context.config()));
      } catch (error) {
        if (error instanceof ValidationError) throw new CliError(`--url ${error.errors?.[0]?.message ?? 'is refused'}`);
        throw error;
      }
      const { db } = await context.instance();
      const { subscription, secret } = await createWebhook(db, input, context.io.clock.now());
      context.print(`Created webhook ${subscription.id} for ${subscription.events.join(',')}.`);
      context.print(`Signing secret (shown only now): ${secret}`);
    });

  webhook
    .command('list')
    .description('the subscriptions (never their secrets)')
    .action(async () => {
      const { db } = await context.instance();
      const { rows } = await listSubscriptions(db, { limit: 10_000, offset: 0 });
      const table = rows.map((row) => [
        String(row.id),
        row.active ? 'active' : row.disabled_reason ? 'disabled' : 'inactive',
        row.events.join(','),
        row.include_personal ? 'yes' : 'no',
        sqlDateTimeToIso(row.created_at),
        row.url,
      ]);
      context.print(formatTable(['ID', 'STATE', 'EVENTS', 'PERSONAL', 'CREATED', 'URL'], table));
    });

  webhook
    .command('remove')
    .description('delete a subscription and its deliveries')
    .argument('<id>', 'the id shown by "webhook list"')
    .action(async (id: string) => {
      if (!/^[1-9][0-9]{0,9}$/.test(id)) throw new CliError(`There is no webhook with id ${id}`);
      const { db } = await context.instance();
      const removed = await db.transaction((trx) => deleteSubscription(trx, Number(id)));
      if (!removed) throw new CliError(`There is no webhook with id ${id}`);
      context.print(`Removed webhook ${id}.`);
    });
}
