import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { freePort } from './web-servers';

// A second MariaDB server for the tests of instances over several database servers: one mariadbd
// on a free loopback port, with its data directory, config, socket and pid file in a temporary
// directory, root without a password. Stopped by its own PID.

const MARIADBD = '/usr/sbin/mariadbd';
const INSTALL_DB = '/usr/bin/mariadb-install-db';
const run = promisify(execFile);

/** Why a second server cannot run here, or undefined. */
export function mariadbMissing(): string | undefined {
  for (const file of [MARIADBD, INSTALL_DB]) if (!fs.existsSync(file)) return `${file} is missing (apt-get install -y mariadb-server)`;
  return undefined;
}

export interface MariadbServer {
  port: number;
  /** mysql://root@127.0.0.1:<port> (no database) */
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

export async function startMariadbServer(): Promise<MariadbServer> {
  const missing = mariadbMissing();
  if (missing) throw new Error(missing);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-mariadb-'));
  const port = await freePort();
  fs.mkdirSync(path.join(dir, 'data'));
  const config = path.join(dir, 'my.cnf');
  fs.writeFileSync(
    config,
    [
      '[mariadbd]',
      `datadir=${path.join(dir, 'data')}`,
      `socket=${path.join(dir, 'mysqld.sock')}`,
      `pid-file=${path.join(dir, 'mysqld.pid')}`,
      `log-error=${path.join(dir, 'error.log')}`,
      `port=${port}`,
      'bind-address=127.0.0.1',
      'skip-name-resolve',
      'skip-log-bin',
      'innodb_buffer_pool_size=64M',
      'innodb_log_file_size=32M',
      'innodb_flush_log_at_trx_commit=2',
      'max_connections=200',
      '',
    ].join('\n'),
  );
  // As root, mariadbd runs as mysql, as a packaged server does.
  const user = process.getuid?.() === 0 ? 'mysql' : undefined;
  if (user) {
    fs.chmodSync(dir, 0o755);
    await run('chown', ['-R', `${user}:${user}`, dir]);
  }
  await run(
    INSTALL_DB,
    [`--defaults-file=${config}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...(user ? [`--user=${user}`] : [])],
    {
      timeout: 120_000,
    },
  );
  const child = spawn(MARIADBD, [`--defaults-file=${config}`, ...(user ? [`--user=${user}`] : [])], { stdio: 'ignore', cwd: dir });
  const stop = async () => {
    await stopChild(child);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilAnswering(port, child);
  } catch (error) {
    let log = '';
    try {
      log = fs.readFileSync(path.join(dir, 'error.log'), 'utf8').split('\n').slice(-20).join('\n');
    } catch {
      // no log yet
    }
    await stop();
    throw new Error(`mariadbd did not start: ${(error as Error).message}\n${log}`, { cause: error });
  }
  return { port, url: `mysql://root@127.0.0.1:${port}`, pid: child.pid, stop };
}

async function waitUntilAnswering(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`mariadbd exited (${child.exitCode ?? child.signalCode})`);
    try {
      const connection = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 1000 });
      await connection.end();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error('not answering within 60 s');
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(killer);
}
