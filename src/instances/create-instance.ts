import fs from 'node:fs';
import path from 'node:path';
import { createFirstAdmin, type FirstAdmin } from './first-admin';
import type { Clock } from '../clock';
import type { DatabaseConfig } from '../config';
import { type Db, openDatabase } from '../db/connect';
import { asUniqueViolation } from '../db/constraint-errors';
import { openInstance } from '../instance';
import {
  databaseNameFor,
  findRegisteredInstance,
  insertRegisteredInstance,
  instanceDatabaseConfig,
  isInstanceName,
} from './registry';

/** A reason the instance could not be created that the operator can act on. */
export class InstanceCreationError extends Error {}

export interface CreatedInstance {
  name: string;
  databaseName: string;
  admin: FirstAdmin;
}

const SAFE_SCHEMA = /^[A-Za-z0-9_]{1,64}$/;

/**
 * `hrm instance create`: a new database of its own (a MySQL schema or a SQLite file), migrated,
 * with its signing secret and first admin, then the registry row that makes it reachable. The
 * row comes last, so a half-made instance is never served; a failure drops what was created.
 */
export async function createInstance(control: Db, controlConfig: DatabaseConfig, name: string, clock: Clock): Promise<CreatedInstance> {
  if (!isInstanceName(name)) {
    throw new InstanceCreationError('An instance name is 2 to 63 characters: lower-case letters, digits and -, starting with a letter or digit');
  }
  if (await findRegisteredInstance(control, name)) throw new InstanceCreationError(`An instance named ${name} already exists`);
  const databaseName = databaseNameFor(controlConfig, name);
  const config = instanceDatabaseConfig(controlConfig, databaseName);
  await createEmptyDatabase(control, config, databaseName);

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
    await insertRegisteredInstance(control, { name, databaseName, now: clock.now() });
    return { name, databaseName, admin };
  } catch (error) {
    await dropDatabase(control, config, databaseName);
    if (asUniqueViolation(error)) throw new InstanceCreationError(`An instance named ${name} already exists`);
    throw error;
  }
}

/** Creates the database, refusing one that already exists (it may hold another tenant's data). */
async function createEmptyDatabase(control: Db, config: DatabaseConfig, databaseName: string): Promise<void> {
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
