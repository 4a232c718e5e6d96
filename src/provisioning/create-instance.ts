import fs from 'node:fs';
import path from 'node:path';
import { createFirstAdmin, type FirstAdmin } from './first-admin';
import type { Clock } from '../clock';
import { type DatabaseServer, DEFAULT_SERVER } from '../config';
import { type Db, openDatabase, type DatabaseConfig } from '../db/connect';
import { asUniqueViolation } from '../db/constraint-errors';
import { openInstance } from '../instances/instance';
import { openServer } from '../instances/servers';
import {
  countInstancesByServer,
  databaseNameFor,
  findRegisteredInstance,
  insertRegisteredInstance,
  instanceDatabaseConfig,
  isInstanceName,
  serversOf,
  UnknownServerError,
} from '../instances/registry';

/** A reason the instance could not be created that the operator can act on. */
export class InstanceCreationError extends Error {}

export interface CreatedInstance {
  name: string;
  databaseName: string;
  server: string;
  admin: FirstAdmin;
}

interface Placement {
  /** The server to create it on; by default the one holding the fewest instances. */
  server?: string;
  /** DATABASE_SERVERS (the control database's own server, `default`, is always there). */
  servers?: readonly DatabaseServer[];
}

const SAFE_SCHEMA = /^[A-Za-z0-9_]{1,64}$/;

/**
 * `hrm instance create`: a new database of its own (a MySQL schema or a SQLite file), migrated,
 * with its signing secret and first admin, then the registry row that makes it reachable. The
 * row comes last, so a half-made instance is never served; a failure drops what was created.
 */
export async function createInstance(
  control: Db,
  controlConfig: DatabaseConfig,
  name: string,
  clock: Clock,
  placement: Placement = {},
): Promise<CreatedInstance> {
  if (!isInstanceName(name)) {
    throw new InstanceCreationError(
      'An instance name is 2 to 63 characters: lower-case letters, digits and -, starting with a letter or digit',
    );
  }
  const configured = placement.servers ?? [];
  const server = await chooseServer(control, controlConfig, configured, placement.server);
  if (await findRegisteredInstance(control, name)) throw new InstanceCreationError(`An instance named ${name} already exists`);
  const databaseName = databaseNameFor(controlConfig, name);
  const config = instanceDatabaseConfig(controlConfig, databaseName, { name: server, configured });
  const serverDb = config.client === 'mysql' ? openServer(controlConfig, configured, server) : control;
  try {
    return await createOnServer(serverDb, config, { control, name, databaseName, server, clock });
  } finally {
    if (serverDb !== control) await serverDb.destroy();
  }
}

/**
 * The server named, or the one holding the fewest instances (the first configured on a tie,
 * `default` first of all).
 */
async function chooseServer(
  control: Db,
  controlConfig: DatabaseConfig,
  configured: readonly DatabaseServer[],
  wanted: string | undefined,
): Promise<string> {
  const servers = serversOf(controlConfig, configured);
  if (servers.length === 0) {
    if (wanted !== undefined && wanted !== DEFAULT_SERVER)
      throw new UnknownServerError(
        'Database servers are for cloud mode on MySQL/MariaDB; SQLite instances are files beside the control database',
      );
    return DEFAULT_SERVER;
  }
  if (wanted !== undefined) {
    if (!servers.some((server) => server.name === wanted)) throw new UnknownServerError(unknownServerMessage(wanted, servers));
    return wanted;
  }
  const counts = await countInstancesByServer(control);
  let best = servers[0] as DatabaseServer;
  for (const server of servers) if ((counts.get(server.name) ?? 0) < (counts.get(best.name) ?? 0)) best = server;
  return best.name;
}

export function unknownServerMessage(name: string, servers: readonly DatabaseServer[]): string {
  return `There is no database server named ${name} (configured: ${servers.map((server) => server.name).join(', ')}; DATABASE_SERVERS names them)`;
}

async function createOnServer(
  serverDb: Db,
  config: DatabaseConfig,
  target: { control: Db; name: string; databaseName: string; server: string; clock: Clock },
): Promise<CreatedInstance> {
  const { control, name, databaseName, server, clock } = target;
  await createEmptyDatabase(serverDb, config, databaseName);

  try {
    const db = openDatabase(config, { poolMax: 2 });
    let admin: FirstAdmin | undefined;
    try {
      const instance = await openInstance(db, { name, clock });
      admin = await createFirstAdmin(instance, clock.now());
    } finally {
      await db.destroy();
    }
    if (!admin) throw new Error('The new instance database already had users');
    await insertRegisteredInstance(control, { name, databaseName, server, now: clock.now() });
    return { name, databaseName, server, admin };
  } catch (error) {
    await dropDatabase(serverDb, config, databaseName);
    if (asUniqueViolation(error)) throw new InstanceCreationError(`An instance named ${name} already exists`);
    throw error;
  }
}

/** Creates the database, refusing one that already exists (it may hold another tenant's data). */
export async function createEmptyDatabase(control: Db, config: DatabaseConfig, databaseName: string): Promise<void> {
  if (config.client === 'sqlite') {
    fs.mkdirSync(path.dirname(config.filename), { recursive: true });
    try {
      // An empty file is an empty SQLite database; 'wx' claims the name atomically.
      fs.closeSync(fs.openSync(config.filename, 'wx'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      throw new InstanceCreationError(`The file ${config.filename} already exists; move it away or choose another name`);
    }
    return;
  }
  if (!SAFE_SCHEMA.test(databaseName)) {
    throw new InstanceCreationError(
      `The instance database would be named ${databaseName}; name the control database with letters, digits and _ only`,
    );
  }
  try {
    await control.raw('CREATE DATABASE ?? CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci', [databaseName]);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ER_DB_CREATE_EXISTS') throw error;
    throw new InstanceCreationError(`The database ${databaseName} already exists; drop it or choose another name`);
  }
}

async function dropDatabase(control: Db, config: DatabaseConfig, databaseName: string): Promise<void> {
  if (config.client === 'sqlite') {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(config.filename + suffix, { force: true });
    return;
  }
  await control.raw('DROP DATABASE IF EXISTS ??', [databaseName]);
}
