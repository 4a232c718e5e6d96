import type { Clock } from '../clock';
import type { DatabaseServer } from '../config';
import { type Db, openDatabase, type DatabaseConfig } from '../db/connect';
import { INSTANCE_MIGRATIONS, migrateToLatest } from '../db/migrate';
import { createEmptyDatabase, unknownServerMessage } from './create-instance';
import { REGISTRY_CHECK_MS } from '../instances/directory';
import {
  findRegisteredInstance,
  instanceDatabaseConfig,
  markInstanceMoving,
  serversOf,
  switchInstanceServer,
  UnknownServerError,
} from '../instances/registry';
import { openServer } from '../instances/servers';

/** A reason the move could not be made that the operator can act on (exit status 2). */
export class InstanceMoveError extends Error {}

/** Rows per SELECT and per INSERT while copying a table. */
const MOVE_BATCH_ROWS = 1000;

/**
 * How long the mover waits between marking the instance as moving and copying it: every server
 * process reads a known instance's registry row again after REGISTRY_CHECK_MS, so by then each
 * one answers the instance's writes 503.
 */
export const MOVE_NOTICE_MS = 2 * REGISTRY_CHECK_MS + 500;

interface MovedInstance {
  name: string;
  databaseName: string;
  from: string;
  to: string;
  tables: number;
  rows: number;
  /** From marking the instance as moving to the switch: how long its writes answered 503. */
  pausedMs: number;
}

interface MoveOptions {
  clock: Clock;
  noticeMs?: number;
  batchRows?: number;
}

/**
 * `hrm instance move`: copies an instance's database to another server and switches its registry
 * row (docs/scaling.md#moving-an-instance). The target schema comes from running the migrations
 * there; the rows from the source, table by table in batches, under a read lock that lets reads
 * go on while no write can slip in. The source database is left in place.
 */
export async function moveInstance(
  control: Db,
  controlConfig: DatabaseConfig,
  configured: readonly DatabaseServer[],
  name: string,
  to: string,
  options: MoveOptions,
): Promise<MovedInstance> {
  if (controlConfig.client !== 'mysql')
    throw new InstanceMoveError('Moving instances needs MySQL/MariaDB (SQLite instances are files on one machine)');
  const servers = serversOf(controlConfig, configured);
  if (!servers.some((server) => server.name === to)) throw new UnknownServerError(unknownServerMessage(to, servers));
  const registered = await findRegisteredInstance(control, name);
  if (!registered) throw new InstanceMoveError(`There is no instance named ${name} (hrm instance list shows them)`);
  if (registered.server === to) throw new InstanceMoveError(`The instance ${name} is already on ${to}`);
  const { databaseName } = registered;

  const source = openDatabase(instanceDatabaseConfig(controlConfig, databaseName, { name: registered.server, configured }), { poolMax: 1 });
  const targetConfig = instanceDatabaseConfig(controlConfig, databaseName, { name: to, configured });
  const targetServer = openServer(controlConfig, configured, to);
  let target: Db | undefined;
  let created = false;
  let switched = false;
  try {
    // The source at this release's schema, as any server opening it would leave it.
    await migrateToLatest(source, INSTANCE_MIGRATIONS);
    try {
      await createEmptyDatabase(targetServer, targetConfig, databaseName);
    } catch (error) {
      throw new InstanceMoveError(
        `${(error as Error).message.replace(/; drop it.*$/, '')} on ${to} (left by a move that did not finish?); drop it there (DROP DATABASE \`${databaseName}\`) and move again`,
      );
    }
    created = true;
    target = openDatabase(targetConfig, { poolMax: 1 });
    await migrateToLatest(target, INSTANCE_MIGRATIONS);

    const pausedAt = Date.now();
    await markInstanceMoving(control, name, options.clock.now());
    await sleep(options.noticeMs ?? MOVE_NOTICE_MS);
    const copied = await copyUnderReadLock(source, target, options.batchRows ?? MOVE_BATCH_ROWS, async () => {
      await switchInstanceServer(control, name, to);
      switched = true;
    });
    return { name, databaseName, from: registered.server, to, ...copied, pausedMs: Date.now() - pausedAt };
  } finally {
    if (!switched) {
      await markInstanceMoving(control, name, null);
      if (created) await targetServer.raw('DROP DATABASE IF EXISTS ??', [databaseName]);
    }
    await Promise.all([source.destroy(), target?.destroy(), targetServer.destroy()]);
  }
}

/**
 * Copies every table but the migrations' bookkeeping (the target has its own, from running
 * them) while the source's tables are read-locked: LOCK TABLES waits for the writes under way
 * to commit, then holds any new one. `beforeUnlock` switches the registry; writes that waited
 * on the lock meanwhile are cut off (their connections killed, so they answer 503 and roll
 * back) rather than let through to a database no longer in use.
 */
async function copyUnderReadLock(
  source: Db,
  target: Db,
  batchRows: number,
  beforeUnlock: () => Promise<void>,
): Promise<{ tables: number; rows: number }> {
  const tables = await tablesToCopy(source);
  await source.raw(`LOCK TABLES ${tables.map(() => '?? READ').join(', ')}`, tables);
  try {
    // The copy goes in dependency-blind table order: foreign keys are checked by the source.
    await target.raw('SET FOREIGN_KEY_CHECKS = 0');
    let rows = 0;
    for (const table of tables) rows += await copyTable(source, target, table, batchRows);
    await target.raw('SET FOREIGN_KEY_CHECKS = 1');
    for (const table of tables) {
      const [from, copied] = await Promise.all([countRows(source, table), countRows(target, table)]);
      if (from !== copied) throw new Error(`The copy of ${table} has ${copied} rows, the source ${from}`);
    }
    await beforeUnlock();
    await killWaitingWrites(source);
    return { tables: tables.length, rows };
  } finally {
    await source.raw('UNLOCK TABLES');
  }
}

async function tablesToCopy(db: Db): Promise<string[]> {
  const [rows] = await db.raw(
    "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME",
  );
  return (rows as Array<{ name: string }>).map((row) => row.name).filter((name) => !name.startsWith('knex_migrations'));
}

/** Replaces the target's rows (migrations seed some reference tables) with the source's, in batches. */
async function copyTable(source: Db, target: Db, table: string, batchRows: number): Promise<number> {
  const [columnRows] = await source.raw(
    "SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND IS_GENERATED = 'NEVER' ORDER BY ORDINAL_POSITION",
    [table],
  );
  const columns = (columnRows as Array<{ name: string }>).map((row) => row.name);
  const [keyRows] = await source.raw(
    "SELECT COLUMN_NAME AS name FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION",
    [table],
  );
  const key = (keyRows as Array<{ name: string }>).map((row) => row.name);
  await target(table).delete();
  let copied = 0;
  let last: unknown;
  for (;;) {
    // A one-column key pages by its value (each batch an index range); others by offset.
    const query = source(table).select(columns).limit(batchRows);
    if (key.length === 1) {
      const [column] = key as [string];
      query.orderBy(column);
      if (last !== undefined) query.where(column, '>', last as string);
    } else {
      if (key.length > 0) query.orderBy(key);
      query.offset(copied);
    }
    const rows: Array<Record<string, unknown>> = await query;
    if (rows.length === 0) return copied;
    await target(table).insert(rows);
    copied += rows.length;
    if (key.length === 1) last = rows[rows.length - 1]?.[key[0] as string];
    if (rows.length < batchRows) return copied;
  }
}

/** Ends the other sessions of this database that wait for the read lock to let their write in. */
async function killWaitingWrites(source: Db): Promise<void> {
  const [rows] = await source.raw(
    "SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> CONNECTION_ID() AND STATE LIKE 'Waiting for table%'",
  );
  for (const { id } of rows as Array<{ id: number }>) {
    await source.raw('KILL CONNECTION ?', [Number(id)]).catch(() => undefined);
  }
}

async function countRows(db: Db, table: string): Promise<number> {
  const [row] = await db(table).count({ count: '*' });
  return Number(row?.count);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
