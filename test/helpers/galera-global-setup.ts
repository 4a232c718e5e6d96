import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type GaleraCluster, galeraMissing, startGaleraCluster } from '../../support/galera';

// The serial project's one Galera cluster, shared by the suites that use one (useGaleraCluster in
// galera-suite.ts), each on a database of its own: three cluster starts and stops were much of
// their time (issue 40). It starts in the background: the serial files run meanwhile, and a Galera
// suite waits for it when it gets there. galera-global-teardown.ts stops it.

/**
 * The environment variable naming the file where the cluster's start is published, once it ended:
 * `{ description }` (JSON) when it runs, `{ failed }` when it did not start (the suites then fail
 * with that reason instead of each trying again).
 */
export const SHARED_CLUSTER_FILE = 'HRM_GALERA_CLUSTER_FILE';
export type SharedClusterStart = { description: GaleraCluster['description'] } | { failed: string };
/** The start under way, for the teardown (it runs in this same process). */
const STARTING = Symbol.for('hrm.galera.starting');
export const startingCluster = (): Promise<GaleraCluster | undefined> | undefined =>
  (globalThis as Record<symbol, Promise<GaleraCluster | undefined> | undefined>)[STARTING];

/** The suites that use a cluster. One missing here still runs: it starts a cluster of its own. */
const GALERA_SUITES = ['galera-cluster', 'galera-node-failure', 'pay-period-lock-race'];

/** Jest's global and project configs, the fields read here. */
interface RunConfig {
  maxWorkers: number;
  testPathPattern: string;
}

export default async function startSharedGaleraCluster(run: RunConfig, project: { rootDir: string }): Promise<void> {
  // Only a run in band has the suites take turns: in parallel workers, the node one suite kills
  // would fail the others, so each starts its own cluster as before.
  if (run.maxWorkers !== 1 || galeraMissing() !== undefined) return;
  // Jest matches its path arguments as one case-insensitive pattern; with none it is empty.
  const selected = new RegExp(run.testPathPattern, 'i');
  const files = GALERA_SUITES.map((name) => path.join(project.rootDir, 'test', 'integration', `${name}.test.ts`));
  if (!files.some((file) => selected.test(file))) return;
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-galera-shared-')), 'cluster.json');
  const publish = (start: SharedClusterStart) => {
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(start));
    fs.renameSync(`${file}.tmp`, file);
  };
  process.env[SHARED_CLUSTER_FILE] = file;
  (globalThis as Record<symbol, Promise<GaleraCluster | undefined>>)[STARTING] = startGaleraCluster().then(
    (cluster) => {
      publish({ description: cluster.description });
      return cluster;
    },
    (error: Error) => {
      publish({ failed: error.message });
      return undefined;
    },
  );
}
