import type { Command } from 'commander';
import { seedAttendance } from '../seed/attendance';
import { seedEmployees } from '../seed/employees';
import { CliError, type CliContext } from './context';

export function registerSeedCommand(program: Command, context: CliContext): void {
  program
    .command('seed')
    .description('add realistic demo employees, and their attendance (for trying the API and for benchmarks)')
    .requiredOption('--employees <n>', 'how many employees to add')
    .option('--attendance-days <d>', 'working days (Monday to Friday) of attendance per new employee, ending yesterday')
    .action(async (options: { employees: string; attendanceDays?: string }) => {
      const count = Number(options.employees);
      if (!Number.isInteger(count) || count < 1 || count > 1_000_000) {
        throw new CliError('--employees must be a whole number from 1 to 1000000');
      }
      const days = options.attendanceDays === undefined ? 0 : Number(options.attendanceDays);
      if (options.attendanceDays !== undefined && (!Number.isInteger(days) || days < 1 || days > 3650)) {
        throw new CliError('--attendance-days must be a whole number from 1 to 3650');
      }
      const { db } = await context.instance();
      const now = context.io.clock.now();
      let started = process.hrtime.bigint();
      const result = await seedEmployees(db, { count, now });
      context.print(`Added ${result.count} employees (ids ${result.firstId}-${result.lastId}) in ${secondsSince(started)} s.`);
      if (days === 0) return;
      started = process.hrtime.bigint();
      const attendance = await seedAttendance(db, { firstId: result.firstId, lastId: result.lastId, days, now });
      context.print(`Added ${attendance.count} attendance records (${days} working days per employee) in ${secondsSince(started)} s.`);
    });
}

function secondsSince(started: bigint): string {
  return (Number(process.hrtime.bigint() - started) / 1e9).toFixed(1);
}
