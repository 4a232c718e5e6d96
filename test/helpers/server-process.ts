import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MAIN = path.join(__dirname, '..', '..', 'dist', 'src', 'main.js');

export interface ServerProcess {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** The API base URL, once the server printed it. */
  apiUrl: string;
  /** Where a first start writes the admin token (stdout is a pipe, never a terminal). */
  tokenFile: string;
  /** The first admin token from that file, once a first start wrote it. */
  firstAdminToken(): string | undefined;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/**
 * Starts the compiled server (npm test builds it first) and waits until it listens or exits. Its
 * first admin token goes to a file of a temporary directory of its own, removed when it exits,
 * unless `env` names FIRST_ADMIN_TOKEN_FILE (empty: the server's default place).
 */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  if (!fs.existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first (npm test does)`);
  const tokenDirectory = env.FIRST_ADMIN_TOKEN_FILE === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-token-')) : undefined;
  const tokenFile = tokenDirectory === undefined ? (env.FIRST_ADMIN_TOKEN_FILE ?? '') : path.join(tokenDirectory, 'first-admin-token');
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'silent', FIRST_ADMIN_TOKEN_FILE: tokenFile, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      if (tokenDirectory !== undefined) fs.rmSync(tokenDirectory, { recursive: true, force: true });
      resolve(code);
    }),
  );

  const apiUrl = await new Promise<string>((resolve) => {
    const timer = setInterval(() => {
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) {
        clearInterval(timer);
        resolve(url);
      }
    }, 20);
    void exited.then(() => {
      clearInterval(timer);
      resolve('');
    });
  });
  return {
    child,
    output: () => output,
    apiUrl,
    tokenFile,
    firstAdminToken: () => (tokenFile !== '' && fs.existsSync(tokenFile) ? fs.readFileSync(tokenFile, 'utf8').trim() : undefined),
    exited,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
