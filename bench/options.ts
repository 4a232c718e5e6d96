import path from 'node:path';
import { parseArgs } from 'node:util';

export type BenchDialect = 'sqlite' | 'mysql';

export interface BenchOptions {
  databases: BenchDialect[];
  employees: number;
  /** Working days of attendance seeded per employee. */
  attendanceDays: number;
  /** Only the scenarios whose name contains one of these texts (and a ceiling only if its name does). */
  only: string[] | undefined;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  rounds: number;
  mysqlUrl: string;
  /** Keep the temporary directory (SQLite file, server logs) even when the run succeeds. */
  keep: boolean;
  /** Write the table into docs/performance.md. */
  write: boolean;
  /**
   * Another build to measure alternately with this one, scenario by scenario and round by round:
   * the directory of a checkout of another commit, built (its dist/src/main.js).
   */
  compare: { dir: string; label: string } | undefined;
}

export const DEFAULT_MYSQL_URL = 'mysql://root@127.0.0.1:3306/hrm_bench';

export const USAGE = `Usage: npm run bench:core -- [options]   (npm run bench runs this and bench:deploy with --write)

  --db sqlite,mysql    databases to measure (default: both)
  --employees N        employees to seed (default 10000)
  --attendance-days D  working days of attendance to seed per employee (default 22; 0 for none)
  --only TEXT          only the scenarios whose name contains TEXT, e.g. --only attendance; may be
                       given several times (a scenario matching any of them runs); =NAME
                       for the scenario of that exact name
  --connections N      concurrent connections (default 64)
  --warmup S           seconds of unmeasured load before each measurement (default 3)
  --duration S         measured seconds per scenario (default 10)
  --rounds R           measure server and ceiling alternately R times, report medians (default 1)
  --keep               keep the temporary directory (database file, server logs)
  --write              write the table into docs/performance.md (npm run bench does)
  --compare DIR        also measure the server built in DIR (a checkout of another commit, after
                       npm ci and npm run build:bench), alternately with this one, on a database
                       of its own that DIR's bench fixture migrates and seeds; rows say the ratio
  --compare-label TEXT what to call that build in the table (default: its directory's name)
  --help

MariaDB/MySQL: BENCH_MYSQL_URL (default ${DEFAULT_MYSQL_URL}); that database is dropped and recreated.`;

export class UsageError extends Error {}

/** Parses the command line; throws UsageError with a message for the person running it. */
export function parseBenchOptions(args: string[], env: NodeJS.ProcessEnv): BenchOptions | 'help' {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      db: { type: 'string', default: 'sqlite,mysql' },
      employees: { type: 'string', default: '10000' },
      'attendance-days': { type: 'string', default: '22' },
      only: { type: 'string', multiple: true },
      connections: { type: 'string', default: '64' },
      warmup: { type: 'string', default: '3' },
      duration: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '1' },
      keep: { type: 'boolean', default: false },
      write: { type: 'boolean', default: false },
      compare: { type: 'string' },
      'compare-label': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return 'help';
  return {
    databases: parseDatabases(values.db),
    employees: wholeNumber('--employees', values.employees, 1, 1_000_000),
    attendanceDays: wholeNumber('--attendance-days', values['attendance-days'], 0, 3650),
    only: values.only,
    connections: wholeNumber('--connections', values.connections, 1, 10_000),
    warmupSeconds: wholeNumber('--warmup', values.warmup, 0, 3600),
    durationSeconds: wholeNumber('--duration', values.duration, 1, 3600),
    rounds: wholeNumber('--rounds', values.rounds, 1, 100),
    mysqlUrl: env.BENCH_MYSQL_URL || DEFAULT_MYSQL_URL,
    keep: values.keep,
    write: values.write,
    compare:
      values.compare === undefined
        ? undefined
        : { dir: values.compare, label: values['compare-label'] ?? path.basename(path.resolve(values.compare)) },
  };
}

function parseDatabases(value: string): BenchDialect[] {
  const names = [
    ...new Set(
      value
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = names.filter((name) => name !== 'sqlite' && name !== 'mysql');
  if (names.length === 0 || unknown.length > 0) throw new UsageError('--db takes sqlite, mysql or sqlite,mysql');
  return names as BenchDialect[];
}

function wholeNumber(option: string, value: string, min: number, max: number): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new UsageError(`${option} must be a whole number from ${min} to ${max}`);
  }
  return parsed;
}
