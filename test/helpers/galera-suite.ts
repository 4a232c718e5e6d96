import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { openDatabase, type DatabaseConfig } from '../../src/db/connect';
import type { TestDatabase } from './databases';
import { attachGaleraCluster, galeraMissing, type GaleraCluster, startGaleraCluster, startingAt } from '../../support/galera';
import { SHARED_CLUSTER_FILE, type SharedClusterStart } from './galera-global-setup';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app';

// The Galera cluster tests' suite helpers (the cluster itself is in galera.ts, shared with the bench).

let reported = false;

/**
 * Defines `body` when the cluster can run here. When it cannot: under CI=true a failing test says
 * why (CI must run these tests; .ci/run installs galera-4 and rsync), otherwise the tests are
 * skipped with a warning, like the MySQL half of the suite and the web-server tests.
 */
export function whenGaleraAvailable(body: () => void): void {
  const missing = galeraMissing();
  if (!missing) {
    body();
    return;
  }
  if (process.env.CI === 'true') {
    it('runs on a Galera cluster', () => {
      throw new Error(`${missing}; CI=true requires the Galera cluster tests, so the run fails`);
    });
    return;
  }
  if (!reported) {
    reported = true;
    process.stderr.write(`\n*** Galera cluster tests SKIPPED: ${missing}. ***\n`);
  }
  it.skip(`runs on a Galera cluster (${missing})`, () => undefined);
}

/** The handles on the run's shared cluster: releaseGaleraCluster leaves those running. */
const sharedHandles = new WeakSet<GaleraCluster>();

/**
 * The suite's cluster: the run's shared one (galera-global-setup.ts) once all its nodes are synced
 * again, or, when the run has none (workers in parallel, or a run outside the serial project's
 * setup), one of the suite's own.
 */
export async function useGaleraCluster(): Promise<GaleraCluster> {
  const file = process.env[SHARED_CLUSTER_FILE];
  if (!file) return startGaleraCluster();
  const start = await sharedClusterStart(file);
  if ('failed' in start) throw new Error(`the run's Galera cluster did not start: ${start.failed}`);
  const cluster = attachGaleraCluster(start.description);
  sharedHandles.add(cluster);
  await cluster.waitUntilWhole();
  return cluster;
}

/** The shared cluster's start, once the global setup published how it ended (it starts in the background). */
async function sharedClusterStart(file: string): Promise<SharedClusterStart> {
  const deadline = Date.now() + 300_000;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`the run's Galera cluster was still starting after 5 minutes (${file})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')) as SharedClusterStart;
}

/**
 * Stops a cluster of the suite's own. The shared one is left whole for the next suite: a node
 * the suite killed and left down is restarted, and all nodes must be synced again, or this fails.
 */
export async function releaseGaleraCluster(cluster: GaleraCluster | undefined): Promise<void> {
  if (!cluster) return;
  if (!sharedHandles.has(cluster)) return cluster.stop();
  cluster.reportTrouble();
  for (const node of cluster.nodes) if (node.pid() === undefined) await node.restart();
  await cluster.waitUntilWhole();
}

/** A TestDatabase (test/helpers/databases.ts) on the cluster, its connections preferring `order`. */
export function clusterTestDatabase(
  cluster: GaleraCluster,
  database: { name: string; drop(): Promise<void> },
  order: number[],
  options: { causalReads?: boolean } = {},
): TestDatabase {
  const config: DatabaseConfig = { client: 'mysql', url: cluster.url(database.name, order), causalReads: options.causalReads ?? true };
  return { config, url: config.url, open: () => openDatabase(config), drop: database.drop };
}

/**
 * One listening test app per node of `nodes`, each with its connections preferring that node, and
 * the origin to send it requests: requests sent to different apps run on different nodes.
 */
export async function startNodeApps(
  cluster: GaleraCluster,
  database: { name: string; drop(): Promise<void> },
  nodes: number[],
  options: Omit<TestAppOptions, 'database'> = {},
): Promise<Array<{ app: TestApp; origin: string }>> {
  const started: Array<{ app: TestApp; origin: string }> = [];
  for (const node of nodes) {
    const app = await startTestApp('mysql', { ...options, database: clusterTestDatabase(cluster, database, startingAt(node)) });
    await new Promise<void>((resolve) => app.app.listen(0, '127.0.0.1', resolve));
    started.push({ app, origin: `http://127.0.0.1:${(app.app.address() as AddressInfo).port}` });
  }
  return started;
}

/** Stops the apps of startNodeApps; the first drops the database they share. */
export async function stopNodeApps(apps: readonly TestApp[]): Promise<void> {
  for (const [index, app] of apps.entries()) {
    await new Promise((resolve) => app.app.close(resolve));
    await app.close({ keepDatabase: index > 0 });
  }
}
