import mysql from 'mysql2/promise';
import { publishCheckedDocuments } from './openapi-check';
import { dropStaleMysqlTemplates, ensureMysqlTemplate, ensureSqliteTemplate, removeStaleSqliteTemplates } from './template-databases';

/**
 * Once per run, before the workers start: decides whether the MySQL half runs, builds the OpenAPI
 * documents responses are checked against (openapi-check.ts), then makes the migrated template of
 * each dialect the run uses (template-databases.ts) unless an earlier run left it, and removes the
 * templates of other migrations.
 */
export default async function globalSetup(): Promise<void> {
  await decideMysql();
  publishCheckedDocuments();
  removeStaleSqliteTemplates();
  const mysqlUrl = process.env.HRM_TEST_MYSQL_URL;
  await Promise.all([
    ensureSqliteTemplate(),
    mysqlUrl ? dropStaleMysqlTemplates(mysqlUrl).then(() => ensureMysqlTemplate(mysqlUrl)) : undefined,
  ]);
}

/**
 * The MySQL half of the integration suite runs when the server at TEST_MYSQL_URL (default: the
 * local MariaDB) answers. When it does not, the suite runs on SQLite only and says so loudly,
 * except under CI=true (or TEST_MYSQL=required), where an unreachable MySQL fails the run: CI
 * must never skip it silently.
 */
async function decideMysql(): Promise<void> {
  const url = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
  const required = process.env.CI === 'true' || process.env.TEST_MYSQL === 'required';
  process.env.HRM_TEST_MYSQL_URL = '';
  if (process.env.TEST_MYSQL === 'off' && !required) {
    process.env.HRM_TEST_MYSQL_SKIPPED = 'TEST_MYSQL=off';
    return;
  }
  try {
    const connection = await mysql.createConnection({ uri: url, connectTimeout: 3000 });
    const [rows] = await connection.query('SELECT VERSION() AS version');
    await connection.end();
    process.env.HRM_TEST_MYSQL_URL = url;
    process.env.HRM_TEST_MYSQL_VERSION = String((rows as Array<{ version: string }>)[0]?.version);
  } catch (error) {
    const reason = `MySQL/MariaDB at ${url.replace(/\/\/[^@]*@/, '//')} is unreachable (${(error as Error).message})`;
    if (required) throw new Error(`${reason}; CI=true requires the MySQL integration tests, so the run fails`, { cause: error });
    process.env.HRM_TEST_MYSQL_SKIPPED = reason;
  }
}
