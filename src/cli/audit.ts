import type { Command } from 'commander';
import { listAudit } from '../audit/repository';
import { CliError, type CliContext } from './context';

export function registerAuditCommands(program: Command, context: CliContext): void {
  const audit = program.command('audit').description('the audit trail of changes');
  audit
    .command('tail')
    .description('print the newest audit entries, newest last, one JSON object per line')
    .option('--employee <id>', 'only the entries about this employee (database id): their record and their attendance')
    .option('--limit <n>', 'how many entries', '20')
    .action(async (options: { employee?: string; limit: string }) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new CliError('--limit must be a whole number from 1 to 10000');
      if (options.employee !== undefined && !/^[1-9][0-9]{0,9}$/.test(options.employee)) {
        throw new CliError('--employee must be the id of an employee record (a number)');
      }
      const { db } = await context.instance();
      const rows = await listAudit(db, {
        limit,
        ...(options.employee !== undefined && { aboutEmployee: Number(options.employee) }),
      });
      for (const row of rows.reverse()) context.print(JSON.stringify(row));
    });
}
