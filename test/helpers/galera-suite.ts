import type { DatabaseConfig } from '../../src/config';
import { openDatabase } from '../../src/db/connect';
import type { TestDatabase } from './databases';
import { galeraMissing, type GaleraCluster } from './galera';

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

