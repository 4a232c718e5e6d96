import type { Command } from 'commander';
import { createInstance } from '../provisioning/create-instance';
import { InstanceMoveError, moveInstance } from '../provisioning/move-instance';
import { listRegisteredInstances, UnknownServerError } from '../instances/registry';
import { sqlDateTimeToIso } from '../db/sql-time';
import { CliError, type CliContext } from './context';
import { formatTable } from './table';

export function registerInstanceCommands(program: Command, context: CliContext): void {
  const instance = program.command('instance').description('cloud mode: the instances (tenants) this server hosts');

  instance
    .command('create')
    .description('create an instance: its own database, secret and admin user; prints the admin token once')
    .argument('<name>', 'lower-case letters, digits and -, 2 to 63 characters (the /api/<name>/ path segment)')
    .option('--server <name>', 'the database server to put it on (default: the one holding the fewest instances)')
    .action(async (name: string, options: { server?: string }) => {
      const control = await context.control();
      const config = context.config();
      const created = await asBadInput(
        createInstance(control, config.database, name, context.io.clock, { server: options.server, servers: config.databaseServers }),
      );
      context.print(
        [
          `Created instance ${created.name} (database ${created.databaseName} on server ${created.server}) and its user "${created.admin.username}" (linked to employee ${created.admin.employeeId}).`,
          'The admin token is shown only once; keep it secret:',
          '',
          `  ${created.admin.token}`,
          '',
          `The REST API is disabled on ${created.name}. Enable it with:`,
          '',
          `  hrm --instance ${created.name} api enable`,
        ].join('\n'),
      );
    });

  instance
    .command('move')
    .description("copy an instance's database to another server and switch to it; its writes answer 503 during the copy")
    .argument('<name>', 'the instance')
    .requiredOption('--to <server>', 'the database server to move it to (DATABASE_SERVERS, or default)')
    .action(async (name: string, options: { to: string }) => {
      const control = await context.control();
      const config = context.config();
      const moved = await asBadInput(
        moveInstance(control, config.database, config.databaseServers, name, options.to, { clock: context.io.clock }),
      );
      context.print(
        [
          `Moved instance ${moved.name} from ${moved.from} to ${moved.to}: ${moved.tables} tables, ${moved.rows} rows; its writes were paused for ${(moved.pausedMs / 1000).toFixed(1)} s.`,
          `The old database ${moved.databaseName} is still on ${moved.from}; once you no longer need it, drop it there:`,
          '',
          `  DROP DATABASE \`${moved.databaseName}\`;`,
        ].join('\n'),
      );
    });

  instance
    .command('list')
    .description('list the instances: name, database server, database, creation time')
    .action(async () => {
      const instances = await listRegisteredInstances(await context.control());
      const rows = instances.map((row) => [
        row.name,
        row.movingSince === null ? row.server : `${row.server} (moving)`,
        row.databaseName,
        sqlDateTimeToIso(row.createdAt),
      ]);
      context.print(formatTable(['NAME', 'SERVER', 'DATABASE', 'CREATED'], rows));
    });
}

/** A server or move the operator named wrongly is bad input: exit status 2. */
async function asBadInput<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof UnknownServerError || error instanceof InstanceMoveError) throw new CliError(error.message, 2);
    throw error;
  }
}
