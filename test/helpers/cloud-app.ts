import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import mysql from 'mysql2/promise';
import { createApp } from '../../src/app';
import { createServer } from '../../src/http/server';
import { checkResponsesAgainstDocument } from './openapi-check';
import { type Config, loadConfig } from '../../src/config';
import { type Db, openDatabase, type DatabaseConfig } from '../../src/db/connect';
import { CONTROL_DATABASE_MIGRATIONS, migrateToLatest } from '../../src/db/migrate';
import { createInstance, type CreatedInstance } from '../../src/provisioning/create-instance';
import { InstanceDirectory, type InstanceDirectoryOptions } from '../../src/instances/directory';
import { instanceDatabaseConfig, listRegisteredInstances } from '../../src/instances/registry';
import { createLogger } from '../../src/logger';
import { SETTING, writeSetting } from '../../src/settings/repository';
import type { TestDialect } from './databases';
import { TestClock } from './test-clock';

/** A cloud control database of its own; dropping it also drops every instance created on it. */
export interface TestControlDatabase {
  config: DatabaseConfig;
  url: string;
  /** The control database's connection (registry queries, CREATE DATABASE). */
  db: Db;
  createInstance(name: string, clock: TestClock): Promise<CreatedInstance>;
  /** Opens an instance's own database directly, for checking what a request wrote. */
  openInstanceDb(name: string): Promise<Db>;
  /** MySQL schemas whose names start with the control database's (instance databases). */
  instanceSchemas(): Promise<string[]>;
  /** Open connections to this control database's instance schemas (MySQL only). */
  instanceConnections(): Promise<number>;
  drop(): Promise<void>;
}

/**
 * A new control database, migrated: on SQLite a file in a temporary directory of its own (its
 * instances go to instances/ beside it), on MySQL a uniquely named schema (its instances are
 * named after it, so they cannot meet anyone else's).
 */
export async function createTestControlDatabase(dialect: TestDialect): Promise<TestControlDatabase> {
  const name = `hrm_c_${process.pid}_${randomBytes(3).toString('hex')}`;
  let config: DatabaseConfig;
  let url: string;
  let removeAll: (db: Db) => Promise<void>;
  const serverUrl = process.env.HRM_TEST_MYSQL_URL ?? '';
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
    const filename = path.join(dir, 'control.sqlite');
    config = { client: 'sqlite', filename };
    url = `sqlite:${filename}`;
    removeAll = async () => fs.rmSync(dir, { recursive: true, force: true });
  } else {
    if (!serverUrl) throw new Error('No MySQL server for the tests (see test/helpers/global-setup.ts)');
    await onServer(serverUrl, [`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`]);
    const parsed = new URL(serverUrl);
    parsed.pathname = `/${name}`;
    url = parsed.toString();
    config = { client: 'mysql', url };
    removeAll = async () => {
      const schemas = await schemasLike(serverUrl, name);
      await onServer(
        serverUrl,
        schemas.map((schema) => `DROP DATABASE IF EXISTS \`${schema}\``),
      );
    };
  }
  const db = openDatabase(config, { poolMax: 2 });
  await migrateToLatest(db, CONTROL_DATABASE_MIGRATIONS);
  const opened: Db[] = [];
  return {
    config,
    url,
    db,
    createInstance: (instanceName, clock) => createInstance(db, config, instanceName, clock),
    openInstanceDb: async (instanceName) => {
      const registered = (await listRegisteredInstances(db)).find((row) => row.name === instanceName);
      if (!registered) throw new Error(`No instance ${instanceName}`);
      const instanceDb = openDatabase(instanceDatabaseConfig(config, registered.databaseName));
      opened.push(instanceDb);
      return instanceDb;
    },
    instanceSchemas: async () => (await schemasLike(serverUrl, name)).filter((schema) => schema !== name),
    instanceConnections: async () => {
      const [rows] = await query(serverUrl, 'SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB LIKE ?', [`${name}\\_%`]);
      return Number((rows as Array<{ n: number }>)[0]?.n);
    },
    drop: async () => {
      await Promise.all(opened.map((instanceDb) => instanceDb.destroy()));
      await db.destroy();
      await removeAll(db);
    },
  };
}

export interface CloudTestApp {
  dialect: TestDialect;
  app: Server;
  config: Config;
  clock: TestClock;
  control: TestControlDatabase;
  directory: InstanceDirectory;
  /** A path under an instance's base: api('acme', '/echo') -> '/api/acme/echo'. */
  api(instance: string, path: string): string;
  /** Creates an instance as `hrm instance create` does; returns its admin token. */
  createInstance(name: string, options?: { apiEnabled?: boolean }): Promise<string>;
  close(): Promise<void>;
}

/** The real app in cloud mode on a new control database, with no instances yet. */
export async function startCloudTestApp(
  dialect: TestDialect,
  options: { env?: Record<string, string>; directory?: Partial<InstanceDirectoryOptions>; rateLimitsInControl?: boolean } = {},
): Promise<CloudTestApp> {
  const control = await createTestControlDatabase(dialect);
  const clock = new TestClock();
  const config = loadConfig({
    DATABASE_URL: control.url,
    DEPLOYMENT: 'cloud',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_TOKEN: '0',
    RATE_LIMIT_PER_IP: '0',
    ...options.env,
  });
  const directory = new InstanceDirectory({
    control: control.db,
    controlConfig: control.config,
    servers: config.databaseServers,
    clock,
    maxConnections: config.cloudMaxConnections,
    idleTimeoutMs: config.cloudIdleTimeoutMs,
    listStatementTimeoutMs: config.listQueryTimeoutMs,
    ...options.directory,
  });
  const app = createApp({
    config,
    logger: createLogger(config),
    clock,
    instances: directory,
    rateLimitStore: options.rateLimitsInControl ? { kind: 'database', db: control.db } : { kind: 'memory' },
  });
  const responses = checkResponsesAgainstDocument(app, `${config.cloudBasePath}/:instance`, 'cloud');
  const server = createServer(app, responses.listener);
  return {
    dialect,
    app: server,
    config,
    clock,
    control,
    directory,
    api: (instance, apiPath) => `${config.cloudBasePath}/${instance}${apiPath}`,
    createInstance: async (name, { apiEnabled = true } = {}) => {
      const created = await control.createInstance(name, clock);
      if (apiEnabled) {
        const db = await control.openInstanceDb(name);
        await writeSetting(db, SETTING.restApiEnabled, '1', clock.now());
      }
      return created.admin.token;
    },
    close: async () => {
      server.closeAllConnections();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
      await directory.close();
      await control.drop();
      const mismatches = responses.mismatches();
      if (mismatches.length > 0) throw new Error(`Responses the OpenAPI document does not describe:\n${mismatches.join('\n')}`);
    },
  };
}

async function schemasLike(serverUrl: string, prefix: string): Promise<string[]> {
  const [rows] = await query(
    serverUrl,
    'SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ? OR SCHEMA_NAME LIKE ?',
    [prefix, `${prefix}\\_%`],
  );
  return (rows as Array<{ name: string }>).map((row) => row.name);
}

async function onServer(serverUrl: string, statements: string[]): Promise<void> {
  const connection = await mysql.createConnection({ uri: serverUrl });
  try {
    for (const sql of statements) await connection.query(sql);
  } finally {
    await connection.end();
  }
}

async function query(serverUrl: string, sql: string, values: unknown[]) {
  const connection = await mysql.createConnection({ uri: serverUrl });
  try {
    return await connection.query(sql, values);
  } finally {
    await connection.end();
  }
}
