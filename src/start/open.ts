import type { Config } from '../config';
import { systemClock } from '../clock';
import { type Db, openDatabase } from '../db/connect';
import type { ModeTightened } from '../db/sqlite-file';
import { CONTROL_DATABASE_MIGRATIONS, migrateToLatest } from '../db/migrate';
import { openInstance } from '../instances/instance';
import { InstanceDirectory } from '../instances/directory';
import type { Logger } from '../logger';
import { recoveringSource } from '../instances/recovering';
import { type InstanceSource, singleInstance } from '../instances/source';
import { createFirstAdmin, type FirstAdmin } from '../provisioning/first-admin';
import type { RateLimitStore } from '../rate-limits/limits';
import { closeRateLimitStore, openRateLimitStore } from '../rate-limits/store';

/** What serving needs: the instances, and how to close their databases afterwards. */
export interface Opened {
  instances: InstanceSource;
  /** Cloud mode: the control database (the instance registry). */
  control?: Db;
  rateLimitStore: RateLimitStore;
  /** The databases whose pools the metrics show. */
  databases: Array<{ name: string; db: Db }>;
  close(): Promise<void>;
}

/**
 * Opens the database(s) a serving process needs. Migrating and loading the instance wait for the
 * first request (or prepare's readiness check) and are retried until the database answers.
 * `onFirstAdmin` hears of the admin created on a first start, whenever that happens.
 */
export function open(config: Config, logger: Logger, onFirstAdmin: (firstAdmin: FirstAdmin) => void): Opened {
  const onModeTightened = warnOfTightenedMode(logger);
  return config.deployment === 'cloud' ? openCloud(config, onModeTightened) : openSelfHosted(config, onModeTightened, onFirstAdmin);
}

/**
 * A SQLite database (it holds the signing secret) or its folder that others could read, made
 * owner-only (src/db/sqlite-file.ts): one line, so the admin learns the old mode was exposed.
 */
function warnOfTightenedMode(logger: Logger): (change: ModeTightened) => void {
  return (change) => logger.warn(change, 'database file was readable by other users; made owner-only');
}

/** Self-hosted: one database, one instance; its first start creates the admin. */
function openSelfHosted(
  config: Config,
  onModeTightened: (change: ModeTightened) => void,
  onFirstAdmin: (firstAdmin: FirstAdmin) => void,
): Opened {
  const db = openDatabase(config.database, { listStatementTimeoutMs: config.listQueryTimeoutMs, onModeTightened });
  const instances = recoveringSource(async () => {
    const instance = await openInstance(db, { clock: systemClock, jwtSecret: config.jwtSecret });
    const firstAdmin = await createFirstAdmin(instance, systemClock.now());
    if (firstAdmin) onFirstAdmin(firstAdmin);
    return singleInstance(instance);
  }, systemClock);
  const rateLimitStore = openRateLimitStore(config, db);
  return {
    instances,
    rateLimitStore,
    databases: [{ name: 'main', db }],
    close: async () => {
      await closeRateLimitStore(rateLimitStore);
      await db.destroy();
    },
  };
}

/** Cloud: the control database and a directory of instances, opened as requests name them. */
function openCloud(config: Config, onModeTightened: (change: ModeTightened) => void): Opened {
  const control = openDatabase(config.database, { poolMax: 2, onModeTightened });
  const directory = new InstanceDirectory({
    control,
    controlConfig: config.database,
    servers: config.databaseServers,
    clock: systemClock,
    maxConnections: config.cloudMaxConnections,
    idleTimeoutMs: config.cloudIdleTimeoutMs,
    listStatementTimeoutMs: config.listQueryTimeoutMs,
  });
  const instances = recoveringSource(async () => {
    await migrateToLatest(control, CONTROL_DATABASE_MIGRATIONS);
    return directory;
  }, systemClock);
  const rateLimitStore = openRateLimitStore(config, control);
  return {
    instances,
    control,
    rateLimitStore,
    databases: [{ name: 'control', db: control }],
    close: async () => {
      await closeRateLimitStore(rateLimitStore);
      await directory.close();
      await control.destroy();
    },
  };
}
