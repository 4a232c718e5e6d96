import type { RequestHandler } from 'express';
import { NotFoundError } from '../errors';
import type { InstanceSource } from './source';

/**
 * Finds the instance a request under the base path is for (self-hosted: the one; cloud: the
 * `:instance` path segment's) and holds it until the response is closed, when its database may
 * be closed to make room for another. An unknown instance is 404 before anything else.
 */
export function resolveInstance(instances: InstanceSource, options: { cloud: boolean }): RequestHandler {
  return async (req, res, next) => {
    const name = options.cloud ? req.params.instance : undefined;
    const lease = await instances.acquire(typeof name === 'string' ? name : undefined);
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
    req.instance = lease.instance;
    next();
  };
}
