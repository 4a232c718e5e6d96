import os from 'node:os';
import type { Measurement } from './load';
import type { BenchOptions } from './options';

export interface ResultRow {
  database: string;
  scenario: string;
  measurement: Measurement;
  peakRssMb: number | undefined;
  /** req/s as a fraction of the ceiling's req/s; only where a ceiling was measured. */
  ratioToCeiling: number | undefined;
}

const COLUMNS = ['database', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx+errors', 'peak RSS MB', 'ratio to ceiling'];
/** Columns after the first two hold numbers and are right-aligned. */
const TEXT_COLUMNS = 2;

export function headerLine(options: BenchOptions, now: Date): string {
  const rounds = options.rounds === 1 ? '1 round' : `${options.rounds} rounds (medians; failures summed)`;
  return [
    now.toISOString(),
    `nproc ${os.availableParallelism()}`,
    `node ${process.version}`,
    `employees ${options.employees}, ${options.attendanceDays} attendance days each`,
    `${options.connections} connections, ${options.warmupSeconds} s warm-up + ${options.durationSeconds} s measured, ${rounds}`,
  ].join(' | ');
}

export function resultTable(rows: ResultRow[]): string {
  const cells = [COLUMNS, ...rows.map(rowCells)];
  const widths = COLUMNS.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column < TEXT_COLUMNS ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join(' | ');
  const rule = widths.map((width) => '-'.repeat(width)).join('-|-');
  const lines = [line(COLUMNS), rule, ...rows.map((row) => line(rowCells(row)))];
  const invalid = rows.filter((row) => row.measurement.failures > 0).length;
  if (invalid > 0) {
    const warning = `! ${invalid} row(s) had non-2xx responses or connection errors: their figures are NOT valid.`;
    lines.push('', `${warning} Run again with --keep and read the server logs.`);
  }
  return lines.join('\n');
}

function rowCells({ database, scenario, measurement, peakRssMb, ratioToCeiling }: ResultRow): string[] {
  return [
    database,
    scenario,
    measurement.requestsPerSecond.toFixed(0),
    measurement.p50Ms.toFixed(2),
    measurement.p99Ms.toFixed(2),
    measurement.failures > 0 ? `! ${measurement.failures}` : '0',
    peakRssMb === undefined ? '-' : peakRssMb.toFixed(0),
    ratioToCeiling === undefined ? '' : ratioToCeiling.toFixed(2),
  ];
}
