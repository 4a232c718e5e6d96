import path from 'node:path';
import { type Child, type Children, freePort, waitUntilAnswering } from './children';
import { UNLIMITED } from './limits';

export const HOST = '127.0.0.1';
export const BASE_PATH = '/app/api';
const SERVER_SCRIPT = path.join(__dirname, '..', 'src', 'main.js');

/**
 * This build's server on `databaseUrl`, on a free port, started the way the side benchmarks
 * (terminals, pay periods, fairness) measure it: production, warnings only in its log, the rate
 * limits out of the way (`UNLIMITED`, then `env`), and answering before this returns. `api` is
 * its base URL.
 */
export async function startApiServer(
  children: Children,
  name: string,
  options: { databaseUrl: string; workDir: string; logFile: string; env?: NodeJS.ProcessEnv },
): Promise<{ child: Child; api: string }> {
  const port = await freePort(HOST);
  const child = children.start(name, SERVER_SCRIPT, {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      DATABASE_URL: options.databaseUrl,
      HOST,
      PORT: String(port),
      BASE_PATH,
      LOG_LEVEL: 'warn',
      ...UNLIMITED,
      ...options.env,
    },
    cwd: options.workDir,
    logFile: options.logFile,
  });
  await waitUntilAnswering(child, `http://${HOST}:${port}/healthz`);
  return { child, api: `http://${HOST}:${port}${BASE_PATH}` };
}
