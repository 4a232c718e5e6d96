import type { RequestHandler } from 'express';
import { ForbiddenError } from '../errors';
import { instanceOf } from './context';

/**
 * The "Enable REST Api" gate (docs/api.md, "The first five requests"): while the setting is off, every request under the
 * base path is refused before any token is looked at. The settings are cached (1 s), so an
 * enabled API costs no database round trip here.
 */
export const requireApiEnabled: RequestHandler = async (req, _res, next) => {
  const { settings, name } = instanceOf(req);
  const current = settings.fresh() ?? (await settings.get());
  if (!current.restApiEnabled) {
    const command = name === undefined ? 'hrm api enable' : `hrm --instance ${name} api enable`;
    throw new ForbiddenError({
      code: 'api_disabled',
      title: 'The REST API is disabled',
      detail: `An administrator must enable it: run "${command}" on the server, or set rest_api_enabled to 1 in the settings table`,
    });
  }
  next();
};
