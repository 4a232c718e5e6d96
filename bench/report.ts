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
  /** req/s as a fraction of the compared build's req/s on the same scenario (--compare). */
  ratioToCompared?: number;
}

const COLUMNS = [
  'database',
  'scenario',
  'req/s',
  'p50 ms',
  'p99 ms',
  'non-2xx+errors',
  'server CPU µs/req',
  'peak RSS MB',
  'ratio to ceiling',
  'ratio to compared',
];
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
  // The last column only when a build was compared.
  const columns = rows.some((row) => row.ratioToCompared !== undefined) ? COLUMNS : COLUMNS.slice(0, -1);
  const rowCells = (row: ResultRow) => cellsOf(row).slice(0, columns.length);
  const cells = [columns, ...rows.map(rowCells)];
  const widths = columns.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) =>
    row.map((cell, column) => (column < TEXT_COLUMNS ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join(' | ');
  const rule = widths.map((width) => '-'.repeat(width)).join('-|-');
  const lines = [line(columns), rule, ...rows.map((row) => line(rowCells(row)))];
  const invalid = rows.filter((row) => row.measurement.failures > 0).length;
  if (invalid > 0) {
    const warning = `! ${invalid} row(s) had non-2xx responses or connection errors: their figures are NOT valid.`;
    lines.push('', `${warning} Run again with --keep and read the server logs.`);
  }
  return lines.join('\n');
}

function cellsOf({ database, scenario, measurement, peakRssMb, ratioToCeiling, ratioToCompared }: ResultRow): string[] {
  return [
    database,
    scenario,
    measurement.requestsPerSecond.toFixed(0),
    measurement.p50Ms.toFixed(2),
    measurement.p99Ms.toFixed(2),
    measurement.failures > 0 ? `! ${measurement.failures}` : '0',
    Number.isNaN(measurement.serverCpuMicros) ? '-' : measurement.serverCpuMicros.toFixed(0),
    peakRssMb === undefined ? '-' : peakRssMb.toFixed(0),
    ratioToCeiling === undefined ? '' : ratioToCeiling.toFixed(2),
    ratioToCompared === undefined ? '' : ratioToCompared.toFixed(2),
  ];
}
