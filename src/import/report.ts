import type { Db } from '../db/connect';

export interface TableCounts {
  read: number;
  added: number;
  updated: number;
  unchanged: number;
  rejected: number;
}

/** Told of each table as it finishes, and of the running count of a long one. */
export interface ImportProgress {
  tableDone(table: string, counts: TableCounts): void;
  running(table: string, done: number, total: number): void;
}

/** What one run did: counts per table, the rows left out (with the reason), and the values it could not keep. */
export class ImportReport {
  readonly tables = new Map<string, TableCounts>();
  /** One line per IceHrm row left out: "employee 17 (E017): last_name must not be empty". */
  readonly rejects: string[] = [];
  /** One line per value imported differently from IceHrm's (left empty, renamed, replaced). */
  readonly notes: string[] = [];
  /**
   * One line per difference a moving customer will see in the numbers (differences.ts): records
   * over a daylight-saving change, night shifts over a period's end, IceHrm's weekly overtime.
   */
  readonly differences: string[] = [];

  counts(table: string): TableCounts {
    let counts = this.tables.get(table);
    if (!counts) {
      counts = { read: 0, added: 0, updated: 0, unchanged: 0, rejected: 0 };
      this.tables.set(table, counts);
    }
    return counts;
  }

  reject(table: string, line: string): void {
    this.counts(table).rejected++;
    this.rejects.push(line);
  }

  get written(): number {
    let total = 0;
    for (const counts of this.tables.values()) total += counts.added + counts.updated;
    return total;
  }
}

/** What every step shares. */
export interface ImportContext {
  db: Db;
  dryRun: boolean;
  merge: boolean;
  /**
   * The IceHrm employee field copied into payroll_id (`--payroll-id-from`); undefined: payroll_id
   * is neither written nor part of an employee's fingerprint, so a re-run without it changes nothing.
   */
  payrollIdFrom?: string;
  now: Date;
  /** `now` as the DATETIME(3) columns store it. */
  nowSql: string;
  report: ImportReport;
  progress: ImportProgress;
  /** Rows per INSERT: SQLite takes 500 terms in a compound SELECT, which Knex writes for multi-row inserts. */
  batchSize: number;
}

/** Names compared as loosely as the databases' unique keys compare them (case, accents, spaces around). */
export function looseName(text: unknown): string {
  return String(text ?? '')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .trim();
}

/** "" and whitespace are no value; other text is kept as IceHrm has it. */
export function textOrNull(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value);
  return text.trim() === '' ? null : text;
}

/** Quoted for a report line. */
export function quoted(value: unknown): string {
  return JSON.stringify(String(value ?? ''));
}
