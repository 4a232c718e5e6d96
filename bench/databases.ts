import fs from 'node:fs';
import path from 'node:path';
import mysql from 'mysql2/promise';
import type { DatabaseConfig } from '../src/db/connect';
import type { BenchDialect } from './options';

/** A fresh, empty database for one benchmark run. */
export interface BenchDatabase {
  dialect: BenchDialect;
  /** Product and version, for the table. */
  label: string;
  /** DATABASE_URL for the server under test. */
  url: string;
  config: DatabaseConfig;
}

export class DatabaseUnreachableError extends Error {}

/** Runs a benchmark's main: an unreachable database is one line, anything else its stack; exit 1. */
export function runBench(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    if (error instanceof DatabaseUnreachableError) process.stderr.write(`${error.message}\n`);
    else process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}

export function createSqliteDatabase(workDir: string): BenchDatabase {
  const filename = path.join(workDir, 'hrm.sqlite');
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(filename + suffix, { force: true });
  return { dialect: 'sqlite', label: 'SQLite', url: `sqlite:${filename}`, config: { client: 'sqlite', filename } };
}

/** Drops and recreates the database named in the URL. Throws DatabaseUnreachableError when no server answers. */
export async function recreateMysqlDatabase(url: string): Promise<BenchDatabase> {
  const parsed = new URL(url);
  const name = decodeURIComponent(parsed.pathname.slice(1));
  // The name goes into DROP DATABASE unquoted by any driver: accept only plain identifiers.
  if (!/^[A-Za-z0-9_]{1,64}$/.test(name)) {
    throw new Error(`BENCH_MYSQL_URL must name a database of letters, digits and _ (got "${name}")`);
  }
  parsed.pathname = '/';

  let connection: mysql.Connection;
  try {
    connection = await mysql.createConnection({ uri: parsed.toString(), connectTimeout: 3000 });
  } catch (error) {
    throw new DatabaseUnreachableError(`${withoutCredentials(url)} is unreachable (${(error as Error).message})`);
  }
  try {
    const [rows] = await connection.query('SELECT VERSION() AS version');
    await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await connection.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    const version = String((rows as Array<{ version: string }>)[0]?.version);
    return { dialect: 'mysql', label: productLabel(version), url, config: { client: 'mysql', url } };
  } finally {
    await connection.end();
  }
}

export function withoutCredentials(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//');
}

/** "10.11.19-MariaDB-0+deb12u1" -> "MariaDB 10.11.19"; "8.4.3" -> "MySQL 8.4.3". */
function productLabel(version: string): string {
  const number = version.split('-')[0];
  return /mariadb/i.test(version) ? `MariaDB ${number}` : `MySQL ${number}`;
}
