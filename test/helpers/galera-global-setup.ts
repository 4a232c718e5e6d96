import path from 'node:path';
import { galeraMissing, startGaleraCluster } from '../../support/galera';

// The serial project's one Galera cluster, shared by the suites that use one (useGaleraCluster in
// galera-suite.ts), each on a database of its own: three cluster starts and stops were much of
// their time (issue 40). galera-global-teardown.ts stops it.

/** Where the cluster's description (JSON) is published to the suites and the teardown. */
export const SHARED_CLUSTER = 'HRM_GALERA_CLUSTER';
/** Why the shared cluster did not start: the suites fail with it instead of each trying again. */
export const SHARED_CLUSTER_FAILED = 'HRM_GALERA_CLUSTER_FAILED';

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
  try {
    process.env[SHARED_CLUSTER] = JSON.stringify((await startGaleraCluster()).description);
  } catch (error) {
    process.env[SHARED_CLUSTER_FAILED] = (error as Error).message;
  }
}
