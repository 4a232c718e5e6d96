import type { Command } from 'commander';
import { createDevice, createDeviceSchema, listDevices, revokeDevice } from '../terminals/devices';
import { CliError, type CliContext } from './context';
import { formatTable } from './table';

/** hrm device add|list|revoke: attendance terminals, as admins manage them through /attendance/devices. */
export function registerDeviceCommands(program: Command, context: CliContext): void {
  const device = program.command('device').description('attendance terminals that upload punch logs (docs/terminals.md)');

  device
    .command('add')
    .description('add a terminal; prints only its token (shown only now), its id on standard error')
    .requiredOption('--name <name>', 'what and where it is, e.g. "Front door"')
    .option('--timezone <zone>', "the wall clock its times are in (IANA name); default: the instance's default_timezone")
    .option('--inactive', 'create it switched off (its token is refused until it is active)')
    .action(async (options: { name: string; timezone?: string; inactive?: boolean }) => {
      const parsed = createDeviceSchema.safeParse({ name: options.name, timezone: options.timezone, active: !options.inactive });
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new CliError(`--${String(issue?.path[0] ?? 'name')} ${issue?.message ?? 'is invalid'}`);
      }
      const instance = await context.instance();
      const { defaultTimezone } = await instance.settings.get();
      const { device: added, token } = await createDevice(instance.db, instance.signingKey, parsed.data, {
        now: context.io.clock.now(),
        defaultTimezone,
      });
      context.io.stderr.write(`Created device ${added.id} (${added.name}, ${added.timezone}). Its token follows; it is shown only now.\n`);
      context.print(token);
    });

  device
    .command('list')
    .description('the terminals (never their tokens)')
    .action(async () => {
      const { db } = await context.instance();
      const rows = (await listDevices(db)).map((row) => [
        String(row.id),
        row.active ? 'active' : 'inactive',
        row.timezone,
        row.lastUsedAt ? row.lastUsedAt.toISOString() : '-',
        row.name,
      ]);
      context.print(formatTable(['ID', 'STATE', 'TIMEZONE', 'LAST USED', 'NAME'], rows));
    });

  device
    .command('revoke')
    .description('delete a terminal: its token stops working at once (its punch logs stay)')
    .argument('<id>', 'the id shown by "device list"')
    .action(async (id: string) => {
      if (!/^[1-9][0-9]{0,9}$/.test(id)) throw new CliError(`There is no device with id ${id}`);
      const { db } = await context.instance();
      if (!(await revokeDevice(db, Number(id), context.io.clock.now()))) throw new CliError(`There is no device with id ${id}`);
      context.print(`Revoked device ${id}: its token no longer works.`);
    });
}
