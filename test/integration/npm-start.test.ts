import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/** Alive and not a zombie (a container's init may be slow to reap an orphan). */
function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function until<T>(read: () => T | Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() - started > timeoutMs) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// What a process manager (systemd, a container runtime, pm2) does with the README's start command:
// it runs `npm start`, and stops it by signalling the one process it started.
describe('npm start under a process manager', () => {
  let dir: string;
  let npm: ChildProcess | undefined;
  let serverPid: number | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-npm-start-'));
  });

  /** `npm start` on a new SQLite file; resolves once it prints where it listens (or exits). */
  async function startNpm(env: Record<string, string>, timeoutMs: number) {
    const started = spawn('npm', ['start'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? dir,
        DATABASE_URL: `sqlite:${path.join(dir, 'hrm.sqlite')}`,
        PORT: '0',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    npm = started;
    const run = { output: '', exited: new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code))) };
    started.stdout?.on('data', (chunk: Buffer) => (run.output += chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => (run.output += chunk.toString()));
    const url = await until(
      () => /listening on (http:\/\/\S+)/.exec(run.output)?.[1],
      (found) => found !== undefined || started.exitCode !== null,
      timeoutMs,
    );
    // The same object: its output keeps growing as the server logs.
    return Object.assign(run, { url, npm: started });
  }
  afterEach(() => {
    for (const pid of [serverPid, npm?.pid]) {
      if (pid !== undefined && isRunning(pid)) process.kill(pid, 'SIGKILL');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stops the server when SIGTERM reaches the npm process, leaving no node process behind', async () => {
    // npm start builds first; the server then logs its pid and prints where it listens.
    const started = await startNpm({ LOG_LEVEL: 'info' }, 90_000);
    const { url } = started;
    serverPid = Number(/"pid":(\d+)[^\n]*"msg":"server listening"/.exec(started.output)?.[1]);
    const port = Number(new URL(url ?? 'http://x').port);
    const health = await fetch(new URL('/healthz', url));
    expect(health.status).toBe(200);
    expect(serverPid).toBeGreaterThan(0);
    expect(serverPid).not.toBe(started.npm.pid);

    process.kill(started.npm.pid as number, 'SIGTERM');
    const signalled = Date.now();
    const code = await started.exited;
    const stillRunning = await until(
      () => isRunning(serverPid as number),
      (running) => !running,
      12_000,
    );

    expect(stillRunning).toBe(false);
    expect(code).toBe(0);
    // Within the shutdown grace period (10 s), with room for a loaded machine.
    expect(Date.now() - signalled).toBeLessThan(12_000);
    expect(await acceptsConnections(port)).toBe(false);
    expect(started.output).toMatch(/"msg":"stopped"/);
  }, 150_000);

  // prepare (npm install) built the server; a start runs that build (support/build-if-stale.mjs).
  it('compiles nothing on a start after a build: the stamp stays as it was and the server answers', async () => {
    const prebuild = spawnSync(process.execPath, ['support/build-if-stale.mjs'], { cwd: ROOT, encoding: 'utf8' });
    expect(prebuild.status).toBe(0);
    const stamp = path.join(ROOT, 'dist', '.build-stamp');
    const stamped = fs.statSync(stamp).mtimeMs;

    const started = await startNpm({}, 60_000);
    const { url } = started;

    expect((await fetch(new URL('/healthz', url))).status).toBe(200);
    expect(started.output).not.toMatch(/compiling/);
    expect(fs.statSync(stamp).mtimeMs).toBe(stamped);
    process.kill(started.npm.pid as number, 'SIGTERM');
    expect(await started.exited).toBe(0);
  }, 300_000);
});
