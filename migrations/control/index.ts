import type { Migration } from '../index';
import * as instanceRegistry from './0001_instance_registry';
import * as instanceServers from './0002_instance_servers';
import * as rateLimits from './0003_rate_limits';

/** Migrations of the cloud control database (DATABASE_URL in cloud mode). Append only. */
export const CONTROL_MIGRATIONS: readonly Migration[] = [
  { name: '0001_instance_registry', ...instanceRegistry },
  { name: '0002_instance_servers', ...instanceServers },
  { name: '0003_rate_limits', ...rateLimits },
];
