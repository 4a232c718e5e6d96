import type { RequestHandler } from 'express';
import { NotFoundError } from '../errors';

/** A path no route serves: 404 problem. */
export const notFound: RequestHandler = () => {
  throw new NotFoundError({ detail: 'No such endpoint; check the path and the base path' });
};
