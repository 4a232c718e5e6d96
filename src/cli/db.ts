import type { Command } from 'commander';
import { migrateToLatest } from '../db/migrate';
import type { CliContext } from './context';

export function registerDbCommands(program: Command, context: CliContext): void {
  const db = program.command('db').description('database schema');
  db.command('migrate')
    .description('apply pending migrations (the server also does this when it starts)')
    .action(async () => {
      const applied = await migrateToLatest(await context.database());
      context.print(
        applied.length === 0 ? 'The database schema is up to date.' : `Applied ${applied.length} migrations: ${applied.join(', ')}`,
      );
    });
}
