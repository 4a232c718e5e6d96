import type { Request } from 'express';
import type { Caller, DeviceCaller } from '../caller';
import type { EmployeeRecord } from '../employee-records/record';
import type { Instance } from '../instances/instance';

// Per-request state, set by the middleware in front of the routers and read by handlers through
// accessors that fail loudly when a handler runs without the middleware that should have set it.
// The HTTP server creates every request with these fields already present (src/http/server.ts),
// so all requests share one shape.
declare global {
  namespace Express {
    interface Request {
      /** The instance the request is for: resolveInstance. */
      instance: Instance | undefined;
      /** The user behind the bearer token: requireBearer. */
      caller: Caller | undefined;
      /** The attendance terminal behind a device token (then there is no caller): requireBearer. */
      device: DeviceCaller | undefined;
      /**
       * The caller's employee record, read by requireBearer in the same query as the token for
       * the routes that declare `callerEmployee` (GET /employees/me); undefined otherwise, and for
       * a user without one.
       */
      callerEmployee: EmployeeRecord | undefined;
      /** The client address as the trusted proxies report it (TRUST_PROXY), read once. */
      clientIp: string;
    }
    interface Locals {
      /** The matched route's pattern under the API base (e.g. /employees/:id), set by route(). */
      route?: string;
    }
  }
}

export function instanceOf(request: Request): Instance {
  if (!request.instance) throw new Error('No instance on this request: resolveInstance did not run');
  return request.instance;
}

export function callerOf(request: Request): Caller {
  if (!request.caller) throw new Error('No caller on this request: requireBearer did not run');
  return request.caller;
}

/** The request's id (X-Request-Id): the caller's when sane, else a new UUID (see logger.ts). */
export function requestIdOf(request: Request): string {
  return String(request.id);
}
