import type { FastifyRequest } from 'fastify';
import type { Caller } from '../auth/caller';
import type { EmployeeRecord } from '../employees/repository';
import type { Instance } from '../instance';

// Per-request state, set by hooks and read by handlers. Declared as request decorators (set to
// null in app.ts, so every request object has the same shape) and read through accessors that
// fail loudly when a handler runs without the hook that should have set them.
declare module 'fastify' {
  interface FastifyRequest {
    instance: Instance | null;
    caller: Caller | null;
    callerEmployee: EmployeeRecord | null;
  }
}

export function instanceOf(request: FastifyRequest): Instance {
  if (!request.instance) throw new Error('No instance on this request: the instance hook did not run');
  return request.instance;
}

export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error('No caller on this request: requireBearer did not run');
  return request.caller;
}

/** The caller's employee record, loaded by authentication for routes that declare `callerEmployee`. */
export function callerEmployeeOf(request: FastifyRequest): EmployeeRecord | undefined {
  if (!request.routeOptions.config.callerEmployee) throw new Error('This route did not ask authentication for the caller employee');
  return request.callerEmployee ?? undefined;
}
