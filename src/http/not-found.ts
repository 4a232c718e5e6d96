import { NotFoundError } from '../errors';

export function notFound(): never {
  throw new NotFoundError({ detail: 'No such endpoint; check the path and the base path' });
}
