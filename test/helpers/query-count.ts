import type { Db } from '../../src/db/connect';

/**
 * What `work` returned and how many connections the pool handed out while it ran: one per query
 * outside a transaction, so the number of queries a batching read sent.
 */
export async function countingConnections<T>(db: Db, work: () => Promise<T>): Promise<{ result: T; queries: number }> {
  const client = db.client as { acquireConnection(): Promise<unknown> };
  const acquire = client.acquireConnection;
  let queries = 0;
  client.acquireConnection = function counted(this: unknown) {
    queries++;
    return acquire.call(this);
  };
  try {
    return { result: await work(), queries };
  } finally {
    client.acquireConnection = acquire;
  }
}
