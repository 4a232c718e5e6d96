import { attachGaleraCluster } from '../../support/galera';
import { SHARED_CLUSTER } from './galera-global-setup';

/** Stops the serial project's shared Galera cluster (galera-global-setup.ts), each node by its PID. */
export default async function stopSharedGaleraCluster(): Promise<void> {
  const shared = process.env[SHARED_CLUSTER];
  if (!shared) return;
  delete process.env[SHARED_CLUSTER];
  await attachGaleraCluster(JSON.parse(shared)).stop();
}
