import type { RequestHandler } from 'express';
import { ForbiddenError } from '../errors';
import { instanceOf } from '../http/context';

/**
 * The "Enable REST Api" gate (CONTRACT §2): while the setting is off, every request under the
 * base path is refused before any token is looked at.
 */
export function requireApiEnabled(): RequestHandler {
  return async (_req, res, next) => {
    const { settings } = instanceOf(res);
    const current = settings.fresh() ?? (await settings.get());
    if (!current.restApiEnabled) {
      throw new ForbiddenError({
        code: 'api_disabled',
        title: 'The REST API is disabled',
        detail:
          'An administrator must enable it: run "hrm api enable" on the server, or set rest_api_enabled to 1 in the settings table',
      });
    }
    next();
  };
}
