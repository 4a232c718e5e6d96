import type { Migration } from '../index';
import * as instanceRegistry from './0001_instance_registry';
import * as instanceServers from './0002_instance_servers';

/** Migrations of the cloud control database (DATABASE_URL in cloud mode). Append only. */
export const CONTROL_MIGRATIONS: readonly Migration[] = [
  { name: '0001_instance_registry', ...instanceRegistry },
  { name: '0002_instance_servers', ...instanceServers },
];
