import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { MIGRATIONS } from '../../migrations';
import { openDatabase } from '../../src/db/connect';
import { migrateToLatest } from '../../src/db/migrate';

// A migrated database per dialect, made once and copied for every test database (STYLE.md, "A
// suite that answers in minutes"): an app start then finds its schema up to date instead of
// running every migration again. global-setup.ts makes the templates before the workers start;
// the workers make one again only if it went missing (another run with other migrations dropped it).

const PREFIX = 'hrm_tpl_';
const MIGRATIONS_FOLDER = path.resolve(__dirname, '../../migrations');

/**
 * Names the templates: the migrations' names and their source text, so that a migration edited
 * before it is merged gets a new template rather than a stale one.
 */
function templateHash(): string {
  const hash = createHash('sha256').update(MIGRATIONS.map((migration) => migration.name).join('\n'));
  for (const file of sourceFiles(MIGRATIONS_FOLDER))
    hash.update(`\n${path.relative(MIGRATIONS_FOLDER, file)}\n`).update(fs.readFileSync(file));
  return hash.digest('hex').slice(0, 12);
}

function sourceFiles(folder: string): string[] {
  return fs
    .readdirSync(folder, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) return sourceFiles(full);
      return /\.[cm]?[jt]s$/.test(entry.name) ? [full] : [];
    });
}

let hash: string | undefined;
/** The name of this run's templates: the SQLite file's base name and the MySQL schema. */
export function templateName(): string {
  hash ??= templateHash();
  return `${PREFIX}${hash}`;
}

export function sqliteTemplateFile(): string {
  return path.join(os.tmpdir(), `${templateName()}.sqlite`);
}

/**
 * The migrated SQLite template, made when missing. It is written under a name of its own and
 * renamed into place, so a file under the template's name is always complete, and two processes
 * that make it at once both succeed (the last rename wins; both files are equal).
 */
export async function ensureSqliteTemplate(): Promise<string> {
  const file = sqliteTemplateFile();
  if (fs.existsSync(file)) return file;
  const partial = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const db = openDatabase({ client: 'sqlite', filename: partial });
  try {
    await migrateToLatest(db);
    // Everything into the main file, so that the file alone is the database: copies never carry -wal.
    await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    await db.destroy();
  }
  for (const suffix of ['-wal', '-shm']) fs.rmSync(partial + suffix, { force: true });
  fs.renameSync(partial, file);
  return file;
}

/** A new database file that is a copy of the template, remade first if it went missing. */
export async function cloneSqliteTemplate(filename: string): Promise<void> {
  try {
    fs.copyFileSync(sqliteTemplateFile(), filename);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    fs.copyFileSync(await ensureSqliteTemplate(), filename);
  }
}

/**
 * Removes the templates of other migrations. A half-written one of another run (a `.tmp` file)
 * is left alone for an hour: that run may still be writing it.
 */
export function removeStaleSqliteTemplates(): void {
  const current = path.basename(sqliteTemplateFile());
  const hourAgo = Date.now() - 3_600_000;
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(PREFIX) || name === current) continue;
    const file = path.join(os.tmpdir(), name);
    try {
      if (name.endsWith('.tmp') && fs.statSync(file).mtimeMs > hourAgo) continue;
      fs.rmSync(file, { force: true });
    } catch {
      // Removed by another run meanwhile.
    }
  }
}

/** How long a run waits for another run that is making the same template. */
const TEMPLATE_LOCK_SECONDS = 300;

async function withConnection<T>(
  serverUrl: string,
  use: (connection: mysql.Connection) => Promise<T>,
  options: { multipleStatements?: boolean } = {},
): Promise<T> {
  const connection = await mysql.createConnection({ uri: serverUrl, ...options });
  try {
    return await use(connection);
  } finally {
    await connection.end();
  }
}

/**
 * The migrated MySQL template schema, made when missing or incomplete (its knex_migrations lacks
 * a migration: a run that stopped while making it). A named lock keeps two runs from making it at
 * once; the second finds it complete.
 */
export async function ensureMysqlTemplate(serverUrl: string): Promise<string> {
  const name = templateName();
  await withConnection(serverUrl, async (connection) => {
    const [[lock]] = (await connection.query('SELECT GET_LOCK(?, ?) AS got', [name, TEMPLATE_LOCK_SECONDS])) as [
      Array<{ got: number | null }>,
      unknown,
    ];
    if (lock?.got !== 1) throw new Error(`Waited ${TEMPLATE_LOCK_SECONDS} s for another run to make the template schema ${name}`);
    try {
      if (await isComplete(connection, name)) return;
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await connection.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      const db = openDatabase({ client: 'mysql', url: url.toString() }, { poolMax: 1 });
      try {
        await migrateToLatest(db);
      } finally {
        await db.destroy();
      }
    } finally {
      await connection.query('SELECT RELEASE_LOCK(?)', [name]);
    }
  });
  return name;
}

async function isComplete(connection: mysql.Connection, name: string): Promise<boolean> {
  try {
    const [rows] = await connection.query(`SELECT name FROM \`${name}\`.knex_migrations`);
    const applied = new Set((rows as Array<{ name: string }>).map((row) => row.name));
    return MIGRATIONS.every((migration) => applied.has(migration.name));
  } catch (error) {
    if (isMissingTemplate(error)) return false;
    throw error;
  }
}

/** Another migrations' template younger than this may be in use by a run of another checkout. */
const STALE_AFTER_HOURS = 24;

/**
 * Drops the template schemas of other migrations (another branch's, an older one) made more than
 * a day ago: runs of other checkouts on the same server (worktrees, CI beside a developer's run)
 * copy from theirs for the whole run, and one dropped under them costs a remake at best. One
 * another run is making right now (its lock is held) is left alone.
 */
export async function dropStaleMysqlTemplates(serverUrl: string): Promise<void> {
  await withConnection(serverUrl, async (connection) => {
    const [rows] = await connection.query(
      `SELECT s.SCHEMA_NAME AS name FROM information_schema.SCHEMATA s
       LEFT JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = s.SCHEMA_NAME
       WHERE s.SCHEMA_NAME LIKE ? GROUP BY s.SCHEMA_NAME
       HAVING MIN(t.CREATE_TIME) IS NULL OR MIN(t.CREATE_TIME) < NOW() - INTERVAL ${STALE_AFTER_HOURS} HOUR`,
      [`${PREFIX.replace(/_/g, '\\_')}%`],
    );
    for (const { name } of rows as Array<{ name: string }>) {
      if (name === templateName()) continue;
      const [[lock]] = (await connection.query('SELECT GET_LOCK(?, 0) AS got', [name])) as [Array<{ got: number | null }>, unknown];
      if (lock?.got !== 1) continue;
      try {
        await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await connection.query('SELECT RELEASE_LOCK(?)', [name]);
      }
    }
  });
}

interface TemplateTable {
  name: string;
  /** SHOW CREATE TABLE of the template's table, its AUTO_INCREMENT=n included. */
  createSql: string;
  hasRows: boolean;
}

/** The template's tables, read once per worker process. */
let templateTables: Promise<TemplateTable[]> | undefined;

async function readTemplateTables(serverUrl: string, template: string): Promise<TemplateTable[]> {
  return withConnection(serverUrl, async (connection) => {
    // Under the template's lock: a run making it again (ensureMysqlTemplate) holds it until done.
    const [[lock]] = (await connection.query('SELECT GET_LOCK(?, ?) AS got', [template, TEMPLATE_LOCK_SECONDS])) as [
      Array<{ got: number | null }>,
      unknown,
    ];
    if (lock?.got !== 1) throw new Error(`Waited ${TEMPLATE_LOCK_SECONDS} s for another run to make the template schema ${template}`);
    try {
      return await readTablesOf(connection, template);
    } finally {
      await connection.query('SELECT RELEASE_LOCK(?)', [template]);
    }
  });
}

async function readTablesOf(connection: mysql.Connection, template: string): Promise<TemplateTable[]> {
  // Copying knows tables only; a migration that adds a view, trigger, routine or event must teach it more.
  const [others] = await connection.query(
    `SELECT 'view' AS kind FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ?
     UNION ALL SELECT 'trigger' FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ?
     UNION ALL SELECT 'routine' FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ?
     UNION ALL SELECT 'event' FROM information_schema.EVENTS WHERE EVENT_SCHEMA = ?`,
    [template, template, template, template],
  );
  const kinds = [...new Set((others as Array<{ kind: string }>).map((row) => row.kind))];
  if (kinds.length > 0)
    throw new Error(`The template schema ${template} has a ${kinds.join(', ')}: test/helpers/template-databases.ts copies tables only`);

  const [tables] = await connection.query(
    "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME",
    [template],
  );
  const result: TemplateTable[] = [];
  for (const { name } of tables as Array<{ name: string }>) {
    const [[created]] = (await connection.query(`SHOW CREATE TABLE \`${template}\`.\`${name}\``)) as [
      Array<Record<string, string>>,
      unknown,
    ];
    const [rows] = await connection.query(`SELECT 1 FROM \`${template}\`.\`${name}\` LIMIT 1`);
    result.push({ name, createSql: created!['Create Table']!, hasRows: (rows as unknown[]).length > 0 });
  }
  // Dropped by a run of another checkout between the lock and the read: made again by the caller.
  if (result.length === 0) throw Object.assign(new Error(`The template schema ${template} has no tables`), { code: 'ER_BAD_DB_ERROR' });
  return result;
}

/**
 * Creates the schema `name` as a copy of the template: its tables from the template's own CREATE
 * TABLE statements (CREATE TABLE ... LIKE would leave out the foreign keys on MariaDB) with
 * foreign key checks off, so any order works, then the rows of the tables that have some (the
 * migrations' reference data, settings and bookkeeping). The template's AUTO_INCREMENT=n is what
 * its migration left, and rows copied with their ids never raise a counter past it, so the
 * counters are a freshly migrated database's. One round trip.
 */
export async function cloneMysqlTemplate(serverUrl: string, name: string): Promise<void> {
  const template = templateName();
  try {
    await copyTemplate(serverUrl, template, name);
  } catch (error) {
    if (!isMissingTemplate(error)) throw error;
    // Another run dropped it (dropStaleMysqlTemplates): make it again and copy once more.
    templateTables = undefined;
    await ensureMysqlTemplate(serverUrl);
    await copyTemplate(serverUrl, template, name);
  }
}

async function copyTemplate(serverUrl: string, template: string, name: string): Promise<void> {
  templateTables ??= readTemplateTables(serverUrl, template);
  const tables = await templateTables.catch((error: unknown) => {
    templateTables = undefined;
    throw error;
  });
  const script = [
    'SET FOREIGN_KEY_CHECKS = 0',
    `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    `USE \`${name}\``,
    ...tables.map((table) => table.createSql),
    ...tables
      .filter((table) => table.hasRows)
      .map((table) => `INSERT INTO \`${name}\`.\`${table.name}\` SELECT * FROM \`${template}\`.\`${table.name}\``),
  ];
  await withConnection(
    serverUrl,
    async (connection) => {
      try {
        await connection.query(script.join(';\n'));
      } catch (error) {
        // The statements before the failing one ran: no half copy stays behind.
        await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
        throw error;
      }
    },
    { multipleStatements: true },
  );
}

/** The error of a statement that needed a template schema (or one of its tables) that is not there. */
function isMissingTemplate(error: unknown): boolean {
  const { code } = error as { code?: unknown };
  return code === 'ER_BAD_DB_ERROR' || code === 'ER_NO_SUCH_TABLE';
}
