import type { Command } from 'commander';
import { createInstance } from '../instances/create-instance';
import { listRegisteredInstances } from '../instances/registry';
import { sqlDateTimeToIso } from '../db/sql-time';
import type { CliContext } from './context';
import { formatTable } from './table';

export function registerInstanceCommands(program: Command, context: CliContext): void {
  const instance = program.command('instance').description('cloud mode: the instances (tenants) this server hosts');

  instance
    .command('create')
    .description('create an instance: its own database, secret and admin user; prints the admin token once')
    .argument('<name>', 'lower-case letters, digits and -, 2 to 63 characters (the /api/<name>/ path segment)')
    .action(async (name: string) => {
      const control = await context.control();
      const created = await createInstance(control, context.config().database, name, context.io.clock);
      context.print(
        [
          `Created instance ${created.name} (database ${created.databaseName}) and its user "${created.admin.username}" (linked to employee ${created.admin.employeeId}).`,
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
    .command('list')
    .description('list the instances: name, database, creation time')
    .action(async () => {
      const instances = await listRegisteredInstances(await context.control());
      const rows = instances.map((row) => [row.name, row.databaseName, sqlDateTimeToIso(row.createdAt)]);
      context.print(formatTable(['NAME', 'DATABASE', 'CREATED'], rows));
    });
}
