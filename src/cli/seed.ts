import type { Command } from 'commander';
import { seedEmployees } from '../seed/employees';
import { CliError, type CliContext } from './context';

export function registerSeedCommand(program: Command, context: CliContext): void {
  program
    .command('seed')
    .description('add realistic demo employees (for trying the API and for benchmarks)')
    .requiredOption('--employees <n>', 'how many employees to add')
    .action(async (options: { employees: string }) => {
      const count = Number(options.employees);
      if (!Number.isInteger(count) || count < 1 || count > 1_000_000) {
        throw new CliError('--employees must be a whole number from 1 to 1000000');
      }
      const { db } = await context.instance();
      const started = process.hrtime.bigint();
      const result = await seedEmployees(db, { count, now: context.io.clock.now() });
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      context.print(`Added ${result.count} employees (ids ${result.firstId}-${result.lastId}) in ${seconds.toFixed(1)} s.`);
    });
}
