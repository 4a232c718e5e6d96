import type { Request, RequestHandler, Response } from 'express';
import { NotFoundError, ServiceUnavailableError } from '../errors';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
import type { InstanceSource } from './source';

/**
 * Finds the instance a request under the base path is for (self-hosted: the one; cloud: the
 * `:instance` path segment's) and holds it until the response is closed, when its database may
 * be closed to make room for another. An unknown instance is 404 before anything else.
 *
 * A name that costs a query of the control database (not known, not recently found missing)
 * first passes `beforeLookup` (the per-address rate limit): a client trying names cannot make
 * the server query the registry without limit.
 */
export function resolveInstance(instances: InstanceSource, options: { cloud: boolean; beforeLookup?: RequestHandler }): RequestHandler {
  const { beforeLookup } = options;
  return async (req, res, next) => {
    const name = options.cloud && typeof req.params.instance === 'string' ? req.params.instance : undefined;
    if (name !== undefined && beforeLookup && instances.needsLookup?.(name)) await passThrough(beforeLookup, req, res);
    const lease = await instances.acquire(name);
    if (!lease) {
      // The same answer for a malformed and an unregistered name: nothing else is revealed.
      throw new NotFoundError({ code: 'instance_not_found', title: 'No such instance', detail: 'There is no instance by this name' });
    }
    // 'close' comes once the response is sent or the client went away. A client that gave up
    // while this request waited for its instance has already closed: release now, or the lease
    // would never end.
    if (res.destroyed) {
      lease.release();
      return;
    }
    res.once('close', lease.release);
    // `hrm instance move` is copying the database: a write now would be left behind on the old
    // server. Reads go on from the old copy, which stays whole until the switch.
    if (lease.writesPaused && !READS.has(req.method)) {
      throw new ServiceUnavailableError({ detail: 'This instance is moving to another database server; try again in a few seconds' });
    }
    req.instance = lease.instance;
    next();
  };
}

/** Runs a middleware to its end: resolves when it calls next(), rejects with what it passes on. */
function passThrough(middleware: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    Promise.resolve(middleware(req, res, (error?: unknown) => (error ? reject(error) : resolve()))).catch(reject);
  });
}
