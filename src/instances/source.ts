import type { Instance } from './instance';

/** An instance held for one request; its database stays open until `release`. */
export interface InstanceLease {
  instance: Instance;
  /** The instance is being moved to another database server: its writes are refused (503). */
  writesPaused?: boolean;
  release(): void;
}

/**
 * Where the app finds the instance a request is for: always the one when self-hosted, the
 * `:instance` path segment's in cloud mode (an InstanceDirectory).
 */
export interface InstanceSource {
  /** The instance named `name` (ignored when self-hosted), or undefined when there is none. */
  acquire(name: string | undefined): Promise<InstanceLease | undefined>;
  /** Throws when the database the server depends on does not answer (GET /readyz). */
  checkReady(): Promise<void>;
  /**
   * Whether acquiring `name` would cost a query of the control database (cloud mode: a name
   * neither known nor recently found missing). Absent: never.
   */
  needsLookup?(name: string): boolean;
}

/** A self-hosted server: one instance, opened by start/open.ts, never closed per request. */
export function singleInstance(instance: Instance): InstanceSource {
  const lease: InstanceLease = { instance, release: () => undefined };
  return {
    acquire: async () => lease,
    checkReady: async () => {
      await instance.db.raw('select 1');
    },
  };
}
