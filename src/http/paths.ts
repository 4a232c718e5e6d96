import type { RequestHandler } from 'express';
import { AppError, BadRequestError } from '../errors';

/** No id, key or name in a path is longer; a longer segment is a probe or a mistake. */
export const MAX_SEGMENT_LENGTH = 100;
const LONG_SEGMENT = new RegExp(`[^/]{${MAX_SEGMENT_LENGTH + 1}}`);

/**
 * Refuses paths no route could name before anything else looks at them: a segment longer than
 * any id or key (414 uri_too_long) and broken percent-encoding (400).
 */
export const refuseMalformedPaths: RequestHandler = (req, _res, next) => {
  const path = req.path;
  if (LONG_SEGMENT.test(path)) {
    throw new AppError(414, { code: 'uri_too_long', title: 'URI too long' }, { detail: 'A path segment is longer than any id or key' });
  }
  if (path.includes('%')) {
    try {
      decodeURIComponent(path);
    } catch {
      throw new BadRequestError({ detail: 'The request is malformed' });
    }
  }
  next();
};
