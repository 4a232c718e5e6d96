import { randomInt } from 'node:crypto';
import { Routes } from '../http/routes';
import { sendText } from '../http/send';

/**
 * GET /echo: proves routing works and the API is enabled (IceHrm's "Echo <number>"). Public when
 * self-hosted, behind a token in cloud mode (docs/api.md, "Authentication"): app.ts mounts it before or after
 * requireBearer.
 */
export function echoRoutes(): Routes {
  return new Routes('/echo').route('/', {
    get: (_req, res) => sendText(res, 200, 'text/plain; charset=utf-8', `Echo ${randomInt(1, 2 ** 31)}`),
  });
}
