import type { RequestHandler } from 'express';
import { NotFoundError } from '../errors';

export function notFound(): RequestHandler {
  return () => {
    throw new NotFoundError({ detail: 'No such endpoint; check the path and the base path' });
  };
}
