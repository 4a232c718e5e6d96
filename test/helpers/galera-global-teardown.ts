import fs from 'node:fs';
import path from 'node:path';
import { SHARED_CLUSTER_FILE, startingCluster } from './galera-global-setup';

/**
 * Stops the serial project's shared Galera cluster (galera-global-setup.ts), each node by its PID,
 * once its start has ended (a run may end before the start does).
 */
export default async function stopSharedGaleraCluster(): Promise<void> {
  const starting = startingCluster();
  if (!starting) return;
  const file = process.env[SHARED_CLUSTER_FILE];
  delete process.env[SHARED_CLUSTER_FILE];
  await (await starting)?.stop();
  if (file) fs.rmSync(path.dirname(file), { recursive: true, force: true });
}
