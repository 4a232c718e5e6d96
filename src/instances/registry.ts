import { createHash } from 'node:crypto';
import path from 'node:path';
import type { DatabaseConfig } from '../config';
import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import { parseMysqlUrl, withDatabase } from '../db/mysql-hosts';

/** CONTRACT §1: the name in /api/<instance>/..., in `hrm --instance` and in the realm. */
export const INSTANCE_NAME = /^[a-z0-9][a-z0-9-]{1,62}$/;

const MYSQL_IDENTIFIER_MAX = 64;

export interface RegisteredInstance {
  name: string;
  /** A MySQL schema (on the control database's server) or a SQLite file in the instances directory. */
  databaseName: string;
  createdAt: string;
}

interface InstanceRow {
  name: string;
  database_name: string;
  created_at: string;
}

export function isInstanceName(value: string): boolean {
  return INSTANCE_NAME.test(value);
}

export async function findRegisteredInstance(control: Db, name: string): Promise<RegisteredInstance | undefined> {
  const row: InstanceRow | undefined = await control('instances').where({ name }).first('name', 'database_name', 'created_at');
  return row && toRegistered(row);
}

export async function listRegisteredInstances(control: Db): Promise<RegisteredInstance[]> {
  const rows: InstanceRow[] = await control('instances').orderBy('name').select('name', 'database_name', 'created_at');
  return rows.map(toRegistered);
}

export async function insertRegisteredInstance(control: Db, instance: { name: string; databaseName: string; now: Date }): Promise<void> {
  await control('instances').insert({ name: instance.name, database_name: instance.databaseName, created_at: toSqlDateTime(instance.now) });
}

function toRegistered(row: InstanceRow): RegisteredInstance {
  return { name: row.name, databaseName: row.database_name, createdAt: row.created_at };
}

/**
 * The database a new instance gets. MySQL: a schema named after the control database and the
 * instance (`hrm` + `acme` -> `hrm_acme`; `-` becomes `_`, which names cannot hold, so distinct
 * names never meet), shortened with a hash when over MySQL's 64 characters. SQLite: `<name>.sqlite`.
 */
export function databaseNameFor(control: DatabaseConfig, name: string): string {
  if (control.client === 'sqlite') return `${name}.sqlite`;
  const full = `${controlSchemaOf(control.url)}_${name.replaceAll('-', '_')}`;
  if (full.length <= MYSQL_IDENTIFIER_MAX) return full;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 12);
  return `${full.slice(0, MYSQL_IDENTIFIER_MAX - hash.length - 1)}_${hash}`;
}

/** Where an instance's database is: same server and credentials as the control database. */
export function instanceDatabaseConfig(control: DatabaseConfig, databaseName: string): DatabaseConfig {
  if (control.client === 'sqlite') return { client: 'sqlite', filename: path.join(instancesDirectoryOf(control.filename), databaseName) };
  return { ...control, url: withDatabase(control.url, databaseName) };
}

/** SQLite instance files live in `instances/` beside the control file. */
export function instancesDirectoryOf(controlFilename: string): string {
  return path.join(path.dirname(path.resolve(controlFilename)), 'instances');
}

function controlSchemaOf(url: string): string {
  return parseMysqlUrl(url).database;
}
