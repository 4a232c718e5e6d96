// How long `hrm instance move` pauses an instance's writes, by the instance's size.
//
//   npm run build:bench && node dist/bench/move-instance.js [--employees 1000] [--attendance-days 20]
//
// Starts a second MariaDB server of its own (support/mariadb-server.ts: a loopback port, a
// temporary data directory), creates a control database on the MariaDB at BENCH_MYSQL_URL
// (default mysql://root@127.0.0.1:3306, a schema named hrm_bench_move, dropped first), creates
// and seeds one instance there (hrm seed), moves it to the second server and back, and prints
// rows, the pause and rows per second. Nobody sends requests meanwhile: this is the copy alone.
import mysql from 'mysql2/promise';
import { runCli } from '../src/cli/program';
import { systemClock } from '../src/clock';
import { MOVE_NOTICE_MS } from '../src/provisioning/move-instance';
import { startMariadbServer } from '../support/mariadb-server';

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const EMPLOYEES = option('employees', 1000);
const ATTENDANCE_DAYS = option('attendance-days', 20);
const SERVER_URL = serverOf(process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306');
const CONTROL = 'hrm_bench_move';

/** The URL without a database: mysql://user@host:port */
function serverOf(url: string): string {
  const parsed = new URL(url);
  parsed.pathname = '';
  return parsed.toString().replace(/\/$/, '');
}

async function hrm(argv: string[], env: Record<string, string>): Promise<string> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { DEPLOYMENT: 'cloud', LOG_LEVEL: 'silent', ...env },
    readStdin: async () => '',
    clock: systemClock,
  });
  if (code !== 0) throw new Error(`hrm ${argv.join(' ')} failed (${code}): ${stderr}`);
  return stdout;
}

async function dropControlSchemas(): Promise<void> {
  const connection = await mysql.createConnection({ uri: SERVER_URL });
  const [rows] = await connection.query(
    'SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ? OR SCHEMA_NAME LIKE ?',
    [CONTROL, `${CONTROL}\\_%`],
  );
  for (const { name } of rows as Array<{ name: string }>) await connection.query(`DROP DATABASE \`${name}\``);
  await connection.end();
}

async function createControlSchema(): Promise<void> {
  const connection = await mysql.createConnection({ uri: SERVER_URL });
  await connection.query(`CREATE DATABASE \`${CONTROL}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await connection.end();
}

async function main(): Promise<void> {
  await dropControlSchemas();
  await createControlSchema();
  const second = await startMariadbServer();
  try {
    const env = { DATABASE_URL: `${SERVER_URL}/${CONTROL}`, DATABASE_SERVERS: `eu2=${second.url}` };
    await hrm(['instance', 'create', 'bench', '--server', 'default'], env);
    await hrm(['--instance', 'bench', 'seed', '--employees', String(EMPLOYEES), '--attendance-days', String(ATTENDANCE_DAYS)], env);
    console.log(`instance: ${EMPLOYEES} employees, ${ATTENDANCE_DAYS} working days of attendance each`);
    console.log('move                   tables     rows   pause (s)   copy (s)   rows/s copied');
    for (const [from, to] of [
      ['default', 'eu2'],
      ['eu2', 'default'],
    ] as const) {
      if (to === 'default') {
        // The way back needs the old copy gone, as an operator would drop it.
        const connection = await mysql.createConnection({ uri: SERVER_URL });
        await connection.query(`DROP DATABASE \`${CONTROL}_bench\``);
        await connection.end();
      }
      const output = await hrm(['instance', 'move', 'bench', '--to', to], env);
      const match = /: (\d+) tables, (\d+) rows; its writes were paused for ([\d.]+) s/.exec(output);
      if (!match) throw new Error(`unexpected output: ${output}`);
      const [, tables, rows, pause] = match;
      const copy = Math.max(0.1, Number(pause) - MOVE_NOTICE_MS / 1000);
      const rate = Math.round(Number(rows) / copy);
      console.log(
        `${`${from} -> ${to}`.padEnd(22)} ${String(tables).padStart(6)} ${String(rows).padStart(8)} ${String(pause).padStart(11)} ${copy.toFixed(1).padStart(10)} ${String(rate).padStart(15)}`,
      );
    }
    console.log(`the pause is the ${MOVE_NOTICE_MS / 1000} s notice plus the copy (to 0.1 s)`);
  } finally {
    await second.stop();
    await dropControlSchemas();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
