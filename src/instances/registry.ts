import { createHash } from 'node:crypto';
import path from 'node:path';
import { type DatabaseServer, DEFAULT_SERVER } from '../config';
import type { Db, DatabaseConfig } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import { parseMysqlUrl, withDatabase } from '../db/mysql-hosts';

/** The instance name (docs/deployment.md, "Cloud mode"): the name in /api/<instance>/..., in `hrm --instance` and in the realm. */
const INSTANCE_NAME = /^[a-z0-9][a-z0-9-]{1,62}$/;

const MYSQL_IDENTIFIER_MAX = 64;

export interface RegisteredInstance {
  name: string;
  /** A MySQL schema (on the control database's server) or a SQLite file in the instances directory. */
  databaseName: string;
  /** The database server holding it: `default` or a name from DATABASE_SERVERS. */
  server: string;
  /** Set while `hrm instance move` copies it: its writes are refused with 503 meanwhile. */
  movingSince: string | null;
  createdAt: string;
}

interface InstanceRow {
  name: string;
  database_name: string;
  server: string;
  moving_since: string | null;
  created_at: string;
}

const COLUMNS = ['name', 'database_name', 'server', 'moving_since', 'created_at'];

export function isInstanceName(value: string): boolean {
  return INSTANCE_NAME.test(value);
}

export async function findRegisteredInstance(control: Db, name: string): Promise<RegisteredInstance | undefined> {
  const row: InstanceRow | undefined = await control('instances').where({ name }).first(COLUMNS);
  return row && toRegistered(row);
}

export async function listRegisteredInstances(control: Db): Promise<RegisteredInstance[]> {
  const rows: InstanceRow[] = await control('instances').orderBy('name').select(COLUMNS);
  return rows.map(toRegistered);
}

export async function insertRegisteredInstance(
  control: Db,
  instance: { name: string; databaseName: string; server: string; now: Date },
): Promise<void> {
  await control('instances').insert({
    name: instance.name,
    database_name: instance.databaseName,
    server: instance.server,
    created_at: toSqlDateTime(instance.now),
  });
}

/** How many instances each server holds (servers holding none are absent). */
export async function countInstancesByServer(control: Db): Promise<Map<string, number>> {
  const rows: Array<{ server: string; count: number | string }> = await control('instances')
    .groupBy('server')
    .select('server')
    .count({ count: '*' });
  return new Map(rows.map((row) => [row.server, Number(row.count)]));
}

/** Marks the instance as moving (a Date) or not (null); false when there is no such instance. */
export async function markInstanceMoving(control: Db, name: string, since: Date | null): Promise<boolean> {
  const updated = await control('instances')
    .where({ name })
    .update({ moving_since: since === null ? null : toSqlDateTime(since) });
  return updated > 0;
}

/** The instance's database is on `server` now, and it is no longer moving. */
export async function switchInstanceServer(control: Db, name: string, server: string): Promise<void> {
  await control('instances').where({ name }).update({ server, moving_since: null });
}

function toRegistered(row: InstanceRow): RegisteredInstance {
  return { name: row.name, databaseName: row.database_name, server: row.server, movingSince: row.moving_since, createdAt: row.created_at };
}

/** The control database's server first (`default`), then DATABASE_SERVERS in their order. */
export function serversOf(control: DatabaseConfig, configured: readonly DatabaseServer[]): DatabaseServer[] {
  if (control.client === 'sqlite') return [];
  return [{ name: DEFAULT_SERVER, url: withDatabase(control.url, '') }, ...configured];
}

/** Thrown when the registry names a server the configuration does not (DATABASE_SERVERS). */
export class UnknownServerError extends Error {}

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

/**
 * Where an instance's database is: on SQLite a file beside the control database; on MySQL the
 * schema on its server, with the credentials the configuration gives that server.
 */
export function instanceDatabaseConfig(
  control: DatabaseConfig,
  databaseName: string,
  server: { name: string; configured: readonly DatabaseServer[] } = { name: DEFAULT_SERVER, configured: [] },
): DatabaseConfig {
  if (control.client === 'sqlite') return { client: 'sqlite', filename: path.join(instancesDirectoryOf(control.filename), databaseName) };
  const found = serversOf(control, server.configured).find((candidate) => candidate.name === server.name);
  if (!found) throw new UnknownServerError(`The database server ${server.name} is not configured (DATABASE_SERVERS)`);
  return { ...control, url: withDatabase(found.url, databaseName) };
}

/** SQLite instance files live in `instances/` beside the control file. */
export function instancesDirectoryOf(controlFilename: string): string {
  return path.join(path.dirname(path.resolve(controlFilename)), 'instances');
}

function controlSchemaOf(url: string): string {
  return parseMysqlUrl(url).database;
}
