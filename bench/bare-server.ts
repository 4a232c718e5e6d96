import type { Server } from 'node:http';

// What the bare servers the benchmarks measure against share (ceilings and baselines): their
// settings from the environment, and how they listen and stop. Nothing of src/ on purpose.

/** An environment variable the bench sets for the script `script`; missing is a setup error. */
export function requiredEnv(script: string, name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${script} needs ${name}`);
  return value;
}

/** Listens on HOST:PORT; on SIGTERM stops taking connections and then closes the pool. */
export function serveUntilTerminated(script: string, server: Server, pool: { end(callback: () => void): void }): void {
  server.listen(Number(requiredEnv(script, 'PORT')), requiredEnv(script, 'HOST'));
  process.once('SIGTERM', () => {
    server.close(() => pool.end(() => undefined));
    server.closeIdleConnections();
  });
}
