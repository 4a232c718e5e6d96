import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { freePort } from './web-servers';

// A MariaDB Galera cluster of our own for the tests and the bench: three mariadbd processes on
// loopback ports, each with its data directory, config, socket and pid file in a temporary
// directory. The first node bootstraps the cluster (--wsrep-new-cluster); the others join it and
// get their data by rsync SST. Each process is stopped by its own PID.

const MARIADBD = '/usr/sbin/mariadbd';
const INSTALL_DB = '/usr/bin/mariadb-install-db';
const PROVIDER = '/usr/lib/galera/libgalera_smm.so';
const run = promisify(execFile);

/** Why the cluster cannot run here, or undefined when everything it needs is installed. */
export function galeraMissing(): string | undefined {
  for (const [file, pkg] of [
    [MARIADBD, 'mariadb-server'],
    [PROVIDER, 'galera-4'],
    ['/usr/bin/rsync', 'rsync'],
    ['/usr/bin/wsrep_sst_rsync', 'mariadb-server'],
  ] as const) {
    if (!fs.existsSync(file)) return `${file} is missing (apt-get install -y ${pkg})`;
  }
  return undefined;
}

export interface GaleraNode {
  name: string;
  port: number;
  /** mysql://root@127.0.0.1:<port> */
  serverUrl: string;
  pid(): number | undefined;
  /** SIGKILL, as a crash: nothing is flushed or announced to the cluster. */
  kill(): Promise<void>;
  /** Starts the node again (it rejoins the cluster) and waits until it is synced. */
  restart(): Promise<void>;
  /** wsrep_local_state_comment and wsrep_ready, or undefined when the node does not answer. */
  status(): Promise<{ state: string; ready: boolean } | undefined>;
}

export interface GaleraCluster {
  nodes: GaleraNode[];
  /** mysql://root@h1:p1,h2:p2,h3:p3/<database>: every node, in this order. */
  url(database: string, order?: number[]): string;
  /** Creates a database (DDL replicates to every node) and returns its multi-host DATABASE_URL. */
  createDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }>;
  stop(): Promise<void>;
}

interface NodeSpec {
  name: string;
  dir: string;
  port: number;
  galeraPort: number;
  istPort: number;
  sstPort: number;
}

export async function startGaleraCluster(size = 3): Promise<GaleraCluster> {
  const missing = galeraMissing();
  if (missing) throw new Error(missing);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-galera-'));
  const specs: NodeSpec[] = [];
  for (let i = 1; i <= size; i++) {
    const dir = path.join(root, `node${i}`);
    fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
    specs.push({
      name: `node${i}`,
      dir,
      port: await freePort(),
      galeraPort: await freePort(),
      istPort: await freePort(),
      sstPort: await freePort(),
    });
  }
  const clusterAddress = `gcomm://${specs.map((spec) => `127.0.0.1:${spec.galeraPort}`).join(',')}`;
  for (const spec of specs) writeConfig(spec, clusterAddress);
  // As root, mariadbd runs as mysql (as a packaged server does): the rsync daemon of an SST,
  // started by root, would otherwise switch to nobody and fail to write the data directory.
  const user = process.getuid?.() === 0 ? 'mysql' : undefined;
  if (user) {
    fs.chmodSync(root, 0o755);
    await run('chown', ['-R', `${user}:${user}`, root]);
  }

  // Only the first node needs system tables: the others receive its data directory.
  const first = specs[0] as NodeSpec;
  await run(
    INSTALL_DB,
    [
      `--defaults-file=${path.join(first.dir, 'my.cnf')}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      ...(user ? [`--user=${user}`] : []),
    ],
    {
      timeout: 120_000,
    },
  );

  const processes = new Map<string, ChildProcess>();
  const start = async (spec: NodeSpec, bootstrap: boolean) => {
    const args = [`--defaults-file=${path.join(spec.dir, 'my.cnf')}`, ...(user ? [`--user=${user}`] : [])];
    if (bootstrap) args.push('--wsrep-new-cluster');
    const child = spawn(MARIADBD, args, { stdio: 'ignore', cwd: spec.dir });
    processes.set(spec.name, child);
    try {
      await waitUntilSynced(spec, child);
    } catch (error) {
      const logs = specs.map((other) => `--- ${other.name}\n${tail(path.join(other.dir, 'error.log'))}`).join('\n');
      throw new Error(`${spec.name} did not join: ${(error as Error).message}\n${logs}`, { cause: error });
    }
  };

  let killed = false;
  const nodes: GaleraNode[] = specs.map((spec) => ({
    name: spec.name,
    port: spec.port,
    serverUrl: `mysql://root@127.0.0.1:${spec.port}`,
    pid: () => processes.get(spec.name)?.pid,
    kill: async () => {
      killed = true;
      const child = processes.get(spec.name);
      if (child) await stopChild(child, 'SIGKILL');
    },
    restart: () => start(spec, false),
    status: () => nodeStatus(spec.port),
  }));

  const stop = async () => {
    // A cluster no test broke should log no trouble; when it did (a node left, an applier
    // waited long on a lock), the lines go to stderr, where CI's log keeps them. Read before
    // the nodes stop: leaving announces a non-primary view.
    if (!killed) reportTrouble(specs);
    // Joiners first, so that the last node leaves a clean cluster behind it.
    for (const spec of [...specs].reverse()) {
      const child = processes.get(spec.name);
      if (child) await stopChild(child, 'SIGTERM');
    }
    // HRM_GALERA_KEEP=1 keeps the data directories and error logs to look at after a failure.
    if (!process.env.HRM_GALERA_KEEP) fs.rmSync(root, { recursive: true, force: true });
  };

  try {
    await start(first, true);
    for (const spec of specs.slice(1)) await start(spec, false);
  } catch (error) {
    await stop();
    throw error;
  }

  const url = (database: string, order = specs.map((_, i) => i)) =>
    `mysql://root@${order.map((i) => `127.0.0.1:${(specs[i] as NodeSpec).port}`).join(',')}/${database}`;
  let databases = 0;
  return {
    nodes,
    url,
    createDatabase: async () => {
      const name = `hrm_g_${process.pid}_${++databases}`;
      await onNode(first.port, `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      return { name, url: url(name), drop: () => onNode(first.port, `DROP DATABASE IF EXISTS \`${name}\``) };
    },
    stop,
  };
}

/** Error-log lines that tell of a node in trouble: errors, long lock waits, a node suspected or left out. */
const TROUBLE = /\[ERROR\]|BF lock wait long|non-primary|suspecting node|evict|inactive nodes|lock wait timeout/i;

function reportTrouble(specs: readonly NodeSpec[]): void {
  for (const spec of specs) {
    let log: string;
    try {
      log = fs.readFileSync(path.join(spec.dir, 'error.log'), 'utf8');
    } catch {
      continue;
    }
    const lines = log.split('\n').filter((line) => TROUBLE.test(line) && !line.includes('Passing config'));
    if (lines.length > 0) process.stderr.write(`\nGalera ${spec.name} logged trouble:\n${lines.slice(0, 40).join('\n')}\n`);
  }
}

function writeConfig(spec: NodeSpec, clusterAddress: string): void {
  const providerOptions = [
    `base_host=127.0.0.1`,
    `base_port=${spec.galeraPort}`,
    `gmcast.listen_addr=tcp://127.0.0.1:${spec.galeraPort}`,
    `ist.recv_addr=127.0.0.1:${spec.istPort}`,
    // Small and quick for a test machine: a 32 MB ring buffer, a dead node noticed in ~3 s.
    'gcache.size=32M',
    'evs.suspect_timeout=PT3S',
    'evs.inactive_timeout=PT5S',
    'evs.inactive_check_period=PT1S',
    'evs.keepalive_period=PT1S',
  ].join(';');
  const config = [
    '[mariadbd]',
    `datadir=${path.join(spec.dir, 'data')}`,
    `socket=${path.join(spec.dir, 'mysqld.sock')}`,
    `pid-file=${path.join(spec.dir, 'mysqld.pid')}`,
    `log-error=${path.join(spec.dir, 'error.log')}`,
    `port=${spec.port}`,
    'bind-address=127.0.0.1',
    'skip-name-resolve',
    'innodb_buffer_pool_size=64M',
    'innodb_log_file_size=32M',
    'innodb_flush_log_at_trx_commit=2',
    'max_connections=300',
    'binlog_format=ROW',
    'default_storage_engine=InnoDB',
    'innodb_autoinc_lock_mode=2',
    'wsrep_on=ON',
    `wsrep_provider=${PROVIDER}`,
    `wsrep_provider_options="${providerOptions}"`,
    `wsrep_cluster_address=${clusterAddress}`,
    'wsrep_cluster_name=hrm-test',
    `wsrep_node_name=${spec.name}`,
    `wsrep_node_address=127.0.0.1:${spec.galeraPort}`,
    `wsrep_sst_receive_address=127.0.0.1:${spec.sstPort}`,
    'wsrep_sst_method=rsync',
    'wsrep_slave_threads=2',
    '',
  ].join('\n');
  fs.writeFileSync(path.join(spec.dir, 'my.cnf'), config);
}

async function waitUntilSynced(spec: NodeSpec, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`mariadbd exited (${child.exitCode ?? child.signalCode})`);
    const status = await nodeStatus(spec.port);
    if (status?.ready && status.state === 'Synced') return;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error('not synced within 120 s');
}

async function nodeStatus(port: number): Promise<{ state: string; ready: boolean } | undefined> {
  try {
    const connection = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 1000 });
    try {
      const [rows] = await connection.query("SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_ready')");
      const values = Object.fromEntries(
        (rows as Array<{ Variable_name: string; Value: string }>).map((row) => [row.Variable_name, row.Value]),
      );
      return { state: String(values.wsrep_local_state_comment), ready: values.wsrep_ready === 'ON' };
    } finally {
      await connection.end();
    }
  } catch {
    return undefined;
  }
}

async function onNode(port: number, sql: string): Promise<void> {
  const connection = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
  try {
    await connection.query(sql);
  } finally {
    await connection.end();
  }
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(killer);
}

function tail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-30).join('\n');
  } catch {
    return '';
  }
}

/** The node order that puts node `first` first: [1, 2, 0] for 1 of 3. */
export function startingAt(first: number, size = 3): number[] {
  return Array.from({ length: size }, (_, index) => (first + index) % size);
}
