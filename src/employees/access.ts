import type { Caller } from '../auth/caller';
import { ForbiddenError } from '../errors';

export function assertMayCreateEmployees(caller: Caller): void {
  if (caller.role !== 'admin') throw new ForbiddenError({ detail: 'Only admins may create employees' });
}
