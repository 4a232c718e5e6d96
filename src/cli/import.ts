import type { Command } from 'commander';
import { importIcehrm, TargetNotEmptyError, UnknownSourceFieldError } from '../import/icehrm-import';
import { type IcehrmSource, openIcehrmSource, SourceError } from '../import/icehrm-source';
import type { ImportProgress, ImportReport, TableCounts } from '../import/report';
import { isCalendarDate } from '../time';
import { CliError, type CliContext } from './context';

/** Bad input (the source, the options, a target that is not empty): one line, exit status 2, nothing written. */
const BAD_INPUT = 2;

export function registerImportCommands(program: Command, context: CliContext): void {
  const imports = program.command('import').description('copy data from another HR system into this database');
  imports
    .command('icehrm')
    .description('copy an IceHrm database: reference data, employees, users and attendance, ids kept; safe to re-run')
    .requiredOption('--from <url>', 'the IceHrm database, mysql://user:password@host:3306/icehrm (read only)')
    .option('--dry-run', 'read and check everything, report what would happen, write nothing')
    .option('--since <date>', 'only attendance that begins on or after this day (YYYY-MM-DD), for a later re-run')
    .option('--merge', 'import even though this database holds employees that did not come from IceHrm')
    .option(
      '--payroll-id-from <field>',
      'copy this IceHrm employee field (e.g. custom1) into payroll_id; without it payroll_id is left as it is',
    )
    .action(async (options: { from: string; dryRun?: boolean; since?: string; merge?: boolean; payrollIdFrom?: string }) => {
      if (options.since !== undefined && !isCalendarDate(options.since)) throw new CliError('--since must be a date YYYY-MM-DD', BAD_INPUT);
      if (options.payrollIdFrom !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(options.payrollIdFrom))
        throw new CliError('--payroll-id-from must name an IceHrm employee field (letters, digits, _)', BAD_INPUT);
      let source: IcehrmSource;
      try {
        source = await openIcehrmSource(options.from);
      } catch (error) {
        if (error instanceof SourceError) throw new CliError(error.message, BAD_INPUT);
        throw error;
      }
      try {
        const { db, settings } = await context.instance();
        const { defaultTimezone, maxShiftHours, punchFutureToleranceSeconds } = await settings.get();
        const dryRun = options.dryRun === true;
        context.print(`Importing IceHrm ${source.version} from ${source.label}${dryRun ? ' (dry run: nothing is written)' : ''}`);
        const started = process.hrtime.bigint();
        const progress = new ProgressPrinter(context);
        let report: ImportReport;
        try {
          report = await importIcehrm(
            source,
            db,
            {
              dryRun,
              merge: options.merge === true,
              since: options.since,
              payrollIdFrom: options.payrollIdFrom,
              now: context.io.clock.now(),
              fallbackTimezone: defaultTimezone,
              attendance: { maxShiftHours, punchFutureToleranceSeconds },
            },
            progress,
          );
        } catch (error) {
          if (error instanceof TargetNotEmptyError || error instanceof UnknownSourceFieldError)
            throw new CliError(error.message, BAD_INPUT);
          throw error;
        }
        printReport(context, report, { dryRun, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
      } finally {
        await source.close();
      }
    });
}

/** A line per table as it finishes; on a terminal, a running count of the long ones meanwhile. */
class ProgressPrinter implements ImportProgress {
  private readonly terminal: boolean;
  private lastRunning = { table: '', at: 0 };

  constructor(private readonly context: CliContext) {
    this.terminal = (context.io.stdout as { isTTY?: boolean }).isTTY === true;
  }

  tableDone(table: string, counts: TableCounts): void {
    if (this.terminal) this.context.io.stdout.write('\r\x1b[K');
    const columns = [
      `${counts.read} read`,
      `${counts.added} added`,
      `${counts.updated} updated`,
      `${counts.unchanged} unchanged`,
      `${counts.rejected} rejected`,
    ];
    this.context.print(`  ${table.padEnd(20)} ${columns.map((column) => column.padStart(16)).join('')}`);
  }

  running(table: string, done: number, total: number): void {
    const now = Date.now();
    // At most five updates a second; the first of each table at once.
    if (!this.terminal || (table === this.lastRunning.table && now - this.lastRunning.at < 200)) return;
    this.lastRunning = { table, at: now };
    this.context.io.stdout.write(`\r\x1b[K  ${table}: ${done} of ${total}`);
  }
}

function printReport(context: CliContext, report: ImportReport, run: { dryRun: boolean; seconds: number }): void {
  if (report.rejects.length > 0) {
    context.print(`Left out (${report.rejects.length}), each with the reason:`);
    for (const line of report.rejects) context.print(`  ${line}`);
  }
  if (report.notes.length > 0) {
    context.print(`Imported differently from IceHrm (${report.notes.length}):`);
    for (const line of report.notes) context.print(`  ${line}`);
  }
  if (report.differences.length > 0) {
    context.print(`Counted differently from IceHrm (${report.differences.length}), check these in the first payroll:`);
    for (const line of report.differences) context.print(`  ${line}`);
  }
  const users = report.tables.get('users');
  if (users && users.added + users.updated + users.unchanged > 0) {
    context.print('Users come without a password: each signs in after `hrm user set-password --username <name>`,');
    context.print('or uses a token from `hrm token issue --username <name>`. IceHrm API tokens are not usable here.');
  }
  const rows = run.dryRun ? 'nothing written (dry run)' : `${report.written} rows written`;
  context.print(`Done in ${run.seconds.toFixed(1)} s: ${rows}.`);
}
