import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { type BenchDatabase, createSqliteDatabase, recreateMysqlDatabase } from './databases';
import type { Fixture } from './fixture';

// The build `--compare` names gets a database of its own, migrated and seeded by its own bench
// fixture: an older build refuses a schema newer than its migrations, and a newer one would
// migrate the shared database under this build's server.

const run = promisify(execFile);

/** The compared checkout's compiled fixture and server. */
export function comparedBuild(dir: string): { fixture: string; server: string } {
  const root = path.resolve(dir);
  const built = { fixture: path.join(root, 'dist', 'bench', 'fixture.js'), server: path.join(root, 'dist', 'src', 'main.js') };
  for (const file of Object.values(built)) {
    if (!fs.existsSync(file)) throw new Error(`--compare ${dir}: ${file} is missing; run "npm ci && npm run build:bench" there first`);
  }
  return built;
}

/** A fresh database beside this build's (same server or folder), for the compared build. */
export async function comparedDatabase(database: BenchDatabase, workDir: string): Promise<BenchDatabase> {
  if (database.dialect === 'sqlite') {
    const dir = path.join(workDir, 'compared');
    fs.mkdirSync(dir, { recursive: true });
    return createSqliteDatabase(dir);
  }
  const url = new URL(database.url);
  url.pathname = `${url.pathname}_compared`;
  return recreateMysqlDatabase(url.toString());
}

/** Seeds the compared build's database with its own `prepareFixture`, in a process of its own. */
export async function prepareComparedFixture(
  fixtureScript: string,
  database: BenchDatabase,
  employees: number,
  attendanceDays: number,
): Promise<Fixture> {
  const program = [
    'const [script, config, employees, days] = process.argv.slice(1);',
    'require(script).prepareFixture(JSON.parse(config), Number(employees), Number(days)).then(',
    '  (fixture) => { process.stdout.write(JSON.stringify({ ...fixture, terminatedIds: [...fixture.terminatedIds] })); process.exit(0); },',
    '  (error) => { process.stderr.write(String(error && error.stack)); process.exit(1); });',
  ].join('\n');
  const { stdout } = await run(
    process.execPath,
    ['-e', program, fixtureScript, JSON.stringify(database.config), String(employees), String(attendanceDays)],
    { maxBuffer: 64 * 1024 * 1024, cwd: path.dirname(fixtureScript) },
  );
  const parsed = JSON.parse(stdout) as Omit<Fixture, 'terminatedIds'> & { terminatedIds: number[] };
  return { ...parsed, terminatedIds: new Set(parsed.terminatedIds) };
}
