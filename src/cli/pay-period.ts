import { EventEmitter, once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Command } from 'commander';
import { retryConflicts } from '../db/retry-conflicts';
import { AppError } from '../errors';
import { findExportProfile } from '../export-profiles/repository';
import { adjustmentVersions, writeAdjustment } from '../pay-periods/adjustments';
import { type ExportFormat, type ExportSink, writeExport } from '../pay-periods/export';
import { lockInTwoSteps, lockPayPeriod, unlockPayPeriod } from '../pay-periods/lock';
import { DEFAULT_GROUP_ID } from '../pay-groups/repository';
import { listPeriods, periodListRange, settingsAndPeriod } from '../pay-periods/periods';
import { readPeriodGroup } from '../pay-periods/settings';
import { dayNumber, isCalendarDate } from '../time';
import { CliError, type CliContext } from './context';
import { formatTable } from './table';

/** A date option, or a one-line usage error. */
function dateOption(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (!isCalendarDate(value)) throw new CliError(`${name} must be a date YYYY-MM-DD`);
  return value;
}

/** --group: a pay group's id (default 1), or a one-line usage error; an id no group has is refused as the API refuses it. */
function groupOption(value: string | undefined): number {
  if (value === undefined) return DEFAULT_GROUP_ID;
  if (!/^[1-9][0-9]{0,9}$/.test(value) || Number(value) > 2_147_483_647) throw new CliError('--group must be the id of a pay group');
  return Number(value);
}

const GROUP_HELP = 'the pay group whose periods these are (hrm api GET /pay-groups lists them; default 1, Default)';

/** What the API answers as a problem, as one line: its code and detail. */
async function asCliErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AppError) {
      const listed = error.errors?.length ? ` (${error.errors.map((item) => item.message).join('; ')})` : '';
      throw new CliError(`${error.code}: ${error.detail}${listed}`);
    }
    throw error;
  }
}

/** hrm pay-period list|lock|unlock|export: what admins do through /pay-periods (docs/pay-periods.md). */
export function registerPayPeriodCommands(program: Command, context: CliContext): void {
  const payPeriod = program.command('pay-period').description('pay periods: list, lock, unlock and export for payroll');

  payPeriod
    .command('list')
    .description('the pay periods meeting --from..--to (default: the year up to today, UTC), newest first')
    .option('--from <date>', 'YYYY-MM-DD')
    .option('--to <date>', 'YYYY-MM-DD')
    .option('--group <id>', GROUP_HELP)
    .action(async (options: { from?: string; to?: string; group?: string }) => {
      const [from, to] = [dateOption(options.from, '--from'), dateOption(options.to, '--to')];
      const groupId = groupOption(options.group);
      if (from !== undefined && to !== undefined && dayNumber(from) > dayNumber(to)) throw new CliError('--from must not be after --to');
      const range = await asCliErrors(async () => periodListRange({ from, to }, context.io.clock.now().toISOString().slice(0, 10)));
      const { db } = await context.instance();
      const group = await asCliErrors(() => readPeriodGroup(db, groupId));
      const periods = await listPeriods(db, group.settings, range, group.id);
      context.print(
        formatTable(
          ['START', 'END', 'STATUS', 'LOCKED AT', 'LOCKED BY'],
          periods.map((period) => [period.start, period.end, period.status, period.locked_at ?? '', period.locked_by ?? '']),
        ),
      );
    });

  payPeriod
    .command('lock')
    .description('lock the pay period starting on --start: its numbers are frozen, writes into it refused')
    .requiredOption('--start <date>', 'the first date of the period, YYYY-MM-DD')
    .option('--require-approved', 'refuse while a timesheet with hours is not approved')
    .option('--allow-open-records', 'lock even while records of the period have no punch-out: they become missed punch-outs (no hours)')
    .option('--group <id>', GROUP_HELP)
    .action(async (options: { start: string; requireApproved?: boolean; allowOpenRecords?: boolean; group?: string }) => {
      const start = dateOption(options.start, '--start') as string;
      const groupId = groupOption(options.group);
      const { db, settings } = await context.instance();
      const now = context.io.clock.now();
      const lockContext = {
        caller: undefined,
        now,
        defaultTimezone: (await settings.get()).defaultTimezone,
        requireApproved: options.requireApproved === true,
        allowOpenRecords: options.allowOpenRecords === true,
      };
      const period = await asCliErrors(() =>
        lockInTwoSteps(
          db,
          start,
          lockContext,
          () => retryConflicts(() => db.transaction((trx) => lockPayPeriod(trx, start, lockContext, groupId))),
          groupId,
        ),
      );
      context.print(`Locked the pay period ${period.start} to ${period.end}.`);
      if (period.open_records) {
        context.print('Records without a punch-out (missed punch-outs: no hours):');
        context.print(
          formatTable(
            ['EMPLOYEE', 'ATTENDANCE', 'IN TIME'],
            period.open_records.map((record) => [record.employee, record.attendance, record.in_time]),
          ),
        );
      }
    });

  payPeriod
    .command('unlock')
    .description('unlock the pay period starting on --start')
    .requiredOption('--start <date>', 'the first date of the period, YYYY-MM-DD')
    .option('--group <id>', GROUP_HELP)
    .action(async (options: { start: string; group?: string }) => {
      const start = dateOption(options.start, '--start') as string;
      const groupId = groupOption(options.group);
      const { db } = await context.instance();
      const now = context.io.clock.now();
      const period = await asCliErrors(() =>
        retryConflicts(() => db.transaction((trx) => unlockPayPeriod(trx, start, { caller: undefined, now }, groupId))),
      );
      context.print(`Unlocked the pay period ${period.start} to ${period.end}.`);
    });

  payPeriod
    .command('export')
    .description('the payroll export of the pay period starting on --start, to standard output or --out')
    .requiredOption('--start <date>', 'the first date of the period, YYYY-MM-DD')
    .option('--format <format>', 'csv or json', 'csv')
    .option('--out <file>', 'write it to this file (created or replaced) instead of standard output')
    .option('--profile <id>', 'the export profile of a CSV (GET /export-profiles lists them)', 'default')
    .option('--since-version <n>', 'only the difference between this lock version of the period and its current lock (signed hours)')
    .option('--group <id>', GROUP_HELP)
    .action(async (options: { start: string; format: string; out?: string; profile: string; sinceVersion?: string; group?: string }) => {
      const start = dateOption(options.start, '--start') as string;
      if (options.format !== 'csv' && options.format !== 'json') throw new CliError('--format must be csv or json');
      const format: ExportFormat = options.format;
      const groupId = groupOption(options.group);
      const { db } = await context.instance();
      const { group, period } = await asCliErrors(() => settingsAndPeriod(db, groupId, start));
      const profile = await findExportProfile(db, options.profile);
      if (!profile) throw new CliError(`--profile names no export profile: ${options.profile}`);
      const since = options.sinceVersion;
      if (since !== undefined && !/^[1-9][0-9]{0,8}$/.test(since)) throw new CliError('--since-version must be a whole number from 1');
      const versions = since === undefined ? undefined : await asCliErrors(() => adjustmentVersions(db, period, Number(since), group.id));
      const write = (sink: ExportSink) =>
        versions
          ? writeAdjustment(db, period, versions, format, sink, group, profile)
          : writeExport(db, period, group, format, sink, profile);
      if (options.out === undefined) {
        await write(streamSink(context.io.stdout));
        return;
      }
      const file = createWriteStream(options.out);
      await once(file, 'open').catch((error: Error) => {
        throw new CliError(`--out cannot be written: ${error.message}`);
      });
      await write(streamSink(file));
      file.end();
      await once(file, 'finish');
      context.print(`Wrote the pay period ${period.start} to ${period.end} to ${options.out}.`);
    });
}

/**
 * The export's sink on standard output or a file: each chunk waits for the stream to drain when
 * it asks to (a pipe's slow reader); a test's stand-in for standard output never asks.
 */
function streamSink(stream: { write(chunk: string): unknown }): ExportSink {
  return {
    write: async (chunk) => {
      if (stream.write(chunk) === false && stream instanceof EventEmitter) await once(stream, 'drain');
    },
  };
}
