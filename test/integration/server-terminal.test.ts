import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../src/cli/program';
import { systemClock } from '../../src/clock';

const MAIN = path.join(__dirname, '..', '..', 'dist', 'src', 'main.js');
// util-linux `script` runs a command on a pseudo-terminal: the server's stdout is then a TTY.
const hasScript = spawnSync('script', ['--version']).status === 0;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until<T>(read: () => T, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = read();
    if (done(value) || Date.now() - started > timeoutMs) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

(hasScript ? describe : describe.skip)('the server on a terminal', () => {
  let directory: string;
  let terminal: ChildProcess | undefined;
  let serverPid: number | undefined;
  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-terminal-'));
  });
  afterEach(() => {
    for (const pid of [serverPid, terminal?.pid]) {
      if (pid !== undefined && isRunning(pid)) process.kill(pid, 'SIGKILL');
    }
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('prints the first admin token (no file) and readable log lines, not JSON', async () => {
    const databaseUrl = `sqlite:${path.join(directory, 'hrm.sqlite')}`;
    const tokenFile = path.join(directory, 'first-admin-token');
    terminal = spawn('script', ['-qec', `"${process.execPath}" "${MAIN}"`, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', DATABASE_URL: databaseUrl, FIRST_ADMIN_TOKEN_FILE: tokenFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    terminal.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    terminal.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => terminal?.once('exit', () => resolve()));

    // The terminal turns \n into \r\n.
    const text = await until(
      () => output.replace(/\r\n/g, '\n'),
      (seen) => seen.includes('Then try:'),
    );
    serverPid = Number(/ INFO \((\d+)\): server listening/.exec(text)?.[1]);
    const apiUrl = /HRM API listening on (http:\/\/\S+)/.exec(text)?.[1] as string;
    const token = /^ {2}(eyJ[\w-]+\.[\w-]+\.[\w-]+)$/m.exec(text)?.[1];

    expect(serverPid).toBeGreaterThan(0);
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(\d+\): server listening \{"url":"http:\/\/127\.0\.0\.1:\d+\/app\/api"/m);
    expect(text).not.toContain('{"level"');
    expect(text).toContain('First start: created the user "admin" (linked to employee 1) and this token for it.');
    expect(token).toBeDefined();
    expect(fs.existsSync(tokenFile)).toBe(false);
    const sink = { write: () => true };
    await runCli(['api', 'enable'], {
      stdout: sink,
      stderr: sink,
      env: { DATABASE_URL: databaseUrl },
      readStdin: async () => '',
      clock: systemClock,
    });
    // Running servers see the setting within 2 seconds.
    let status = 0;
    for (const started = Date.now(); status !== 200 && Date.now() - started < 5000;) {
      status = (await fetch(`${apiUrl}/employees/me`, { headers: { Authorization: `Bearer ${token}` } })).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);

    process.kill(serverPid, 'SIGTERM');
    await exited;
    expect(output.replace(/\r\n/g, '\n')).toMatch(/INFO \(\d+\): stopped$/m);
  }, 60_000);
});
