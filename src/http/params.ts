import { NotFoundError } from '../errors';

/**
 * A database id from a path segment. Anything else names no record, so it is a 404 like a
 * missing record, not a 400.
 */
export function pathId(value: unknown, what: string): number {
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,9}$/.test(value) || Number(value) > 4294967295) {
    throw new NotFoundError({ detail: `No such ${what}` });
  }
  return Number(value);
}
