/**
 * The Node flags the server runs with: `npm start`, the systemd unit of docs/deployment.md and
 * the benchmark pass them, and with WORKERS > 1 the primary gives them to its workers.
 *
 * A 64 MB young generation instead of Node 20's 16 MB. Every request in flight keeps its rows
 * and response text alive across its awaits (a list page: 51 rows and 70 kB of text), so with 64
 * concurrent requests 16 MB fills every few milliseconds while most of it is still in use, and
 * each scavenge copies it again. Measured on a page of 50 employees: a quarter less CPU per
 * request and a quarter of the time in scavenges, for about 100 MB more peak memory under load.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];

/** `execArgv` with the server's flags added where the same option is not already given. */
export function withServerNodeFlags(execArgv: readonly string[]): string[] {
  const given = new Set(execArgv.map((arg) => arg.split('=')[0]));
  return [...SERVER_NODE_FLAGS.filter((flag) => !given.has(flag.split('=')[0])), ...execArgv];
}
