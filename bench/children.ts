import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SERVER_NODE_FLAGS } from '../src/node-flags';

const STOP_TIMEOUT_MS = 5000;
const READY_TIMEOUT_MS = 30_000;

export interface Child {
  name: string;
  pid: number;
  logFile: string;
  process: ChildProcess;
}

/**
 * The processes this benchmark started. Each is stopped by its own PID, never by name, so
 * nothing else on the machine is touched.
 */
export class Children {
  private readonly running = new Set<Child>();

  /**
   * Starts `node <script>` with the server's Node flags (the ceiling gets them too, so that both
   * run on the same tuning) and exactly `env`, its stdout and stderr appended to `logFile`.
   */
  start(name: string, script: string, options: { env: NodeJS.ProcessEnv; cwd: string; logFile: string }): Child {
    const log = fs.openSync(options.logFile, 'a');
    try {
      const spawned = spawn(process.execPath, [...SERVER_NODE_FLAGS, script], {
        env: options.env,
        cwd: options.cwd,
        stdio: ['ignore', log, log],
      });
      if (spawned.pid === undefined) throw new Error(`Could not start ${name}`);
      const child = { name, pid: spawned.pid, logFile: options.logFile, process: spawned };
      this.running.add(child);
      spawned.once('exit', () => this.running.delete(child));
      return child;
    } finally {
      fs.closeSync(log);
    }
  }

  /** SIGTERM, then SIGKILL if it has not exited within the timeout. */
  async stop(child: Child): Promise<void> {
    if (hasExited(child)) return;
    const exited = new Promise<void>((resolve) => child.process.once('exit', () => resolve()));
    signal(child.pid, 'SIGTERM');
    const killer = setTimeout(() => signal(child.pid, 'SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(killer);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.running].map((child) => this.stop(child)));
  }

  /** Last resort from a synchronous 'exit' handler, where no waiting is possible. */
  killAllNow(): void {
    for (const child of this.running) signal(child.pid, 'SIGKILL');
  }
}

/** Polls `url` until it answers 200; fails early, pointing at the log, if the child dies first. */
export async function waitUntilAnswering(child: Child, url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (hasExited(child)) throw new Error(`${child.name} exited before answering ${url}; see ${child.logFile}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`${child.name} did not answer ${url} within ${READY_TIMEOUT_MS / 1000} s; see ${child.logFile}`);
}

/** A port nothing listens on right now (the OS picks it). */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('No port'))));
    });
  });
}

/**
 * The peak resident set size (VmHWM) in MB of the process and its child processes (a server's
 * WORKERS), summed; undefined where /proc is not available.
 */
export function peakRssMb(pid: number): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kilobytes = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
    if (kilobytes === undefined) return undefined;
    return childPidsOf(pid).reduce((sum, child) => sum + (peakRssMb(child) ?? 0), Number(kilobytes) / 1024);
  } catch {
    return undefined;
  }
}

/**
 * CPU time (user + system, in seconds) a process and its children have used so far: what a
 * request costs the server, whatever else shares the machine.
 */
export function cpuSeconds(pid: number): number {
  try {
    // After the command name (which may hold spaces, in parentheses): utime and stime are fields 14 and 15.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return ticks / CLOCK_TICKS_PER_SECOND + childPidsOf(pid).reduce((sum, child) => sum + cpuSeconds(child), 0);
  } catch {
    return Number.NaN;
  }
}

/** The kernel's USER_HZ, 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

function childPidsOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return []; // a kernel without /proc/<pid>/task/<tid>/children
  }
}

function hasExited(child: Child): boolean {
  return child.process.exitCode !== null || child.process.signalCode !== null;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    // Already gone: nothing to stop.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * The end of a benchmark that ran servers from `workDir`: on failure (`failed`), the last lines of
 * each of its `logs` (what the servers said, before their directory goes); always, its children
 * stopped by PID and the directory removed.
 */
export async function endBench(
  children: Children,
  workDir: string,
  failed: boolean,
  logs: readonly string[] = ['server.log'],
): Promise<void> {
  if (failed) {
    for (const log of logs) {
      const file = path.join(workDir, log);
      if (fs.existsSync(file)) process.stderr.write(`--- ${log}\n${fs.readFileSync(file, 'utf8').slice(-3000)}\n`);
    }
  }
  await children.stopAll();
  fs.rmSync(workDir, { recursive: true, force: true });
}
