import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { freePort } from './web-servers';

// A MariaDB Galera cluster of our own for the tests and the bench: three mariadbd processes on
// loopback ports, each with its data directory, config, socket and pid file in a temporary
// directory. The first node bootstraps the cluster (--wsrep-new-cluster); the others join it and
// get their data by rsync SST. Each process is stopped by its own PID. Another process can take
// over a running cluster from its description (attachGaleraCluster): the tests start one per run
// and share it between suites.

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
  /** How another process reaches this cluster: attachGaleraCluster(JSON.parse(JSON.stringify(it))). */
  description: GaleraClusterDescription;
  /** mysql://root@h1:p1,h2:p2,h3:p3/<database>: every node, in this order. */
  url(database: string, order?: number[]): string;
  /** Creates a database (DDL replicates to every node) and returns its multi-host DATABASE_URL. */
  createDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }>;
  /** Waits until every node is synced in one primary component of all the nodes; throws after 120 s. */
  waitUntilWhole(): Promise<void>;
  /** Writes to stderr the trouble the nodes logged since this handle was made, unless it killed a node. */
  reportTrouble(): void;
  /** Stops every node by its PID and removes the data directories. */
  stop(): Promise<void>;
}

/** A running cluster, as JSON: where its nodes live and as whom they run. */
export interface GaleraClusterDescription {
  root: string;
  /** The user mariadbd switches to when started by root. */
  user?: string;
  nodes: NodeSpec[];
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
  // freePort can hand out a port again once its probe has closed (a node once failed to bind
  // the Galera port another node had): the cluster's ports must all differ.
  const taken = new Set<number>();
  const port = async () => {
    let candidate = await freePort();
    while (taken.has(candidate)) candidate = await freePort();
    taken.add(candidate);
    return candidate;
  };
  const specs: NodeSpec[] = [];
  for (let i = 1; i <= size; i++) {
    const dir = path.join(root, `node${i}`);
    fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
    specs.push({ name: `node${i}`, dir, port: await port(), galeraPort: await port(), istPort: await port(), sstPort: await port() });
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
      `--defaults-file=${configFile(first)}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      ...(user ? [`--user=${user}`] : []),
    ],
    {
      timeout: 120_000,
    },
  );

  const cluster = clusterHandle({ root, user, nodes: specs }, { fromLogStart: true });
  try {
    await cluster.startNode(first, true);
    for (const spec of specs.slice(1)) await cluster.startNode(spec, false);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}

/**
 * A handle on a cluster another process started (its `description`), every node running: it
 * kills, restarts and stops the nodes by the PIDs in their pid files.
 */
export function attachGaleraCluster(description: GaleraClusterDescription): GaleraCluster {
  return clusterHandle(description, { fromLogStart: false });
}

function clusterHandle(
  description: GaleraClusterDescription,
  options: { fromLogStart: boolean },
): GaleraCluster & { startNode(spec: NodeSpec, bootstrap: boolean): Promise<void> } {
  const { root, user, nodes: specs } = description;
  const first = specs[0] as NodeSpec;
  // A taken-over handle reports only what was logged while it was held: its suite's trouble.
  const logStart = specs.map((spec) => (options.fromLogStart ? 0 : fileSize(errorLog(spec))));
  let killed = false;
  // The processes this handle started: a node's pid file is written only once its state transfer is done.
  const started = new Map<string, number>();
  const pidOf = (spec: NodeSpec) => runningPid(spec, started.get(spec.name));

  const startNode = async (spec: NodeSpec, bootstrap: boolean) => {
    const args = [`--defaults-file=${configFile(spec)}`, ...(user ? [`--user=${user}`] : [])];
    if (bootstrap) args.push('--wsrep-new-cluster');
    const child = spawn(MARIADBD, args, { stdio: 'ignore', cwd: spec.dir });
    // The node may outlive this process (a shared cluster's node restarted by one suite): it is
    // stopped by its PID, so this process need not wait for it to exit.
    child.unref();
    if (child.pid !== undefined) started.set(spec.name, child.pid);
    try {
      await waitUntilSynced(spec, child);
    } catch (error) {
      const logs = specs.map((other) => `--- ${other.name}\n${tail(errorLog(other))}`).join('\n');
      throw new Error(`${spec.name} did not join: ${(error as Error).message}\n${logs}`, { cause: error });
    }
  };

  const nodes: GaleraNode[] = specs.map((spec) => ({
    name: spec.name,
    port: spec.port,
    serverUrl: `mysql://root@127.0.0.1:${spec.port}`,
    pid: () => pidOf(spec),
    kill: async () => {
      killed = true;
      await stopNode(spec, pidOf(spec), 'SIGKILL');
    },
    restart: () => startNode(spec, false),
    status: async () => {
      const status = await nodeStatus(spec.port);
      return status && { state: status.state, ready: status.ready };
    },
  }));

  const reportTrouble = () => {
    if (!killed) reportLoggedTrouble(specs, logStart);
  };

  const stop = async () => {
    // A cluster no test broke should log no trouble; when it did (a node left, an applier
    // waited long on a lock), the lines go to stderr, where CI's log keeps them. Read before
    // the nodes stop: leaving announces a non-primary view.
    reportTrouble();
    // Joiners first, so that the last node leaves a clean cluster behind it.
    for (const spec of [...specs].reverse()) await stopNode(spec, pidOf(spec), 'SIGTERM');
    // HRM_GALERA_KEEP=1 keeps the data directories and error logs to look at after a failure.
    if (!process.env.HRM_GALERA_KEEP) fs.rmSync(root, { recursive: true, force: true });
  };

  const url = (database: string, order = specs.map((_, i) => i)) =>
    `mysql://root@${order.map((i) => `127.0.0.1:${(specs[i] as NodeSpec).port}`).join(',')}/${database}`;
  return {
    nodes,
    description,
    url,
    createDatabase: async () => {
      // Random: suites in one process (in band) share the cluster and the PID.
      const name = `hrm_g_${process.pid}_${randomBytes(4).toString('hex')}`;
      await onNode(first.port, `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      return { name, url: url(name), drop: () => onNode(first.port, `DROP DATABASE IF EXISTS \`${name}\``) };
    },
    waitUntilWhole: () => waitUntilWhole(specs),
    reportTrouble,
    stop,
    startNode,
  };
}

function configFile(spec: NodeSpec): string {
  return path.join(spec.dir, 'my.cnf');
}

function errorLog(spec: NodeSpec): string {
  return path.join(spec.dir, 'error.log');
}

/**
 * The PID of the node's running mariadbd: its pid file's (left behind by a killed node, the PID
 * maybe reused since), else the one this handle started. Only a process started with the node's
 * own config counts; one that exited and is not yet reaped has an empty command line.
 */
function runningPid(spec: NodeSpec, startedPid: number | undefined): number | undefined {
  let fromFile: number | undefined;
  try {
    fromFile = Number(fs.readFileSync(path.join(spec.dir, 'mysqld.pid'), 'utf8').trim());
  } catch {
    // not written yet, or removed at a clean shutdown
  }
  return [fromFile, startedPid].find((pid) => pid !== undefined && isNodeProcess(pid, spec));
}

function isNodeProcess(pid: number, spec: NodeSpec): boolean {
  try {
    return fs
      .readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .includes(`--defaults-file=${configFile(spec)}`);
  } catch {
    return false;
  }
}

/** Signals the node's mariadbd and waits until it has exited (SIGKILL after 30 s). */
async function stopNode(spec: NodeSpec, pid: number | undefined, signal: NodeJS.Signals): Promise<void> {
  if (pid === undefined || !isNodeProcess(pid, spec)) return;
  signalProcess(pid, signal);
  for (let waited = 0; isNodeProcess(pid, spec); waited += 100) {
    if (waited === 30_000) signalProcess(pid, 'SIGKILL');
    await sleep(100);
  }
}

/** process.kill, except that a process gone meanwhile is no error. */
function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

async function waitUntilWhole(specs: readonly NodeSpec[]): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const statuses = await Promise.all(specs.map((spec) => nodeStatus(spec.port)));
    const whole = statuses.every(
      (status) => status?.state === 'Synced' && status.ready && status.primary && status.clusterSize === specs.length,
    );
    if (whole) return;
    if (Date.now() > deadline) {
      const seen = specs.map((spec, index) => `${spec.name}: ${JSON.stringify(statuses[index] ?? 'no answer')}`);
      throw new Error(`the Galera cluster is not whole within 120 s (${seen.join('; ')})`);
    }
    await sleep(300);
  }
}

/** Error-log lines that tell of a node in trouble: errors, long lock waits, a node suspected or left out. */
const TROUBLE = /\[ERROR\]|BF lock wait long|non-primary|suspecting node|evict|inactive nodes|lock wait timeout/i;

function reportLoggedTrouble(specs: readonly NodeSpec[], from: readonly number[]): void {
  for (const [index, spec] of specs.entries()) {
    let log: string;
    try {
      log = fs.readFileSync(errorLog(spec)).subarray(from[index]).toString('utf8');
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
    `log-error=${errorLog(spec)}`,
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
  fs.writeFileSync(configFile(spec), config);
}

async function waitUntilSynced(spec: NodeSpec, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`mariadbd exited (${child.exitCode ?? child.signalCode})`);
    const status = await nodeStatus(spec.port);
    if (status?.ready && status.state === 'Synced') return;
    await sleep(300);
  }
  throw new Error('not synced within 120 s');
}

interface NodeStatus {
  /** wsrep_local_state_comment: Synced, Joining, Donor/Desynced, ... */
  state: string;
  ready: boolean;
  /** In the primary component (wsrep_cluster_status=Primary). */
  primary: boolean;
  clusterSize: number;
}

async function nodeStatus(port: number): Promise<NodeStatus | undefined> {
  try {
    const connection = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 1000 });
    try {
      const [rows] = await connection.query(
        "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_ready', 'wsrep_cluster_status', 'wsrep_cluster_size')",
      );
      const values = Object.fromEntries(
        (rows as Array<{ Variable_name: string; Value: string }>).map((row) => [row.Variable_name, row.Value]),
      );
      return {
        state: String(values.wsrep_local_state_comment),
        ready: values.wsrep_ready === 'ON',
        primary: values.wsrep_cluster_status === 'Primary',
        clusterSize: Number(values.wsrep_cluster_size),
      };
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

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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
