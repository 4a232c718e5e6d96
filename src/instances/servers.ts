import type { DatabaseServer } from '../config';
import { type Db, openDatabase, type DatabaseConfig } from '../db/connect';
import { serversOf, UnknownServerError } from './registry';

/**
 * A connection to a database server itself (no database selected), for creating and dropping
 * instance databases there. MySQL only; the caller destroys it.
 */
export function openServer(control: DatabaseConfig, configured: readonly DatabaseServer[], name: string): Db {
  if (control.client !== 'mysql') throw new Error('Database servers are MySQL/MariaDB only');
  const server = serversOf(control, configured).find((candidate) => candidate.name === name);
  if (!server) throw new UnknownServerError(`The database server ${name} is not configured (DATABASE_SERVERS)`);
  return openDatabase({ ...control, url: server.url }, { poolMax: 1 });
}
