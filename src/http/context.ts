import type { Response } from 'express';
import type { Caller } from '../auth/caller';
import type { Instance } from '../instance';

// Per-request state set by middleware and read by handlers, kept in res.locals behind typed
// accessors so a handler that runs without its middleware fails loudly instead of reading undefined.

export function setInstance(res: Response, instance: Instance): void {
  res.locals.instance = instance;
}

export function instanceOf(res: Response): Instance {
  const instance = res.locals.instance as Instance | undefined;
  if (!instance) throw new Error('No instance on this request: the instance middleware did not run');
  return instance;
}

export function setCaller(res: Response, caller: Caller): void {
  res.locals.caller = caller;
}

export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (!caller) throw new Error('No caller on this request: requireBearer did not run');
  return caller;
}
