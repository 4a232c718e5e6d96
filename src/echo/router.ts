import { randomInt } from 'node:crypto';
import { Router } from 'express';
import { route } from '../http/routes';

/** GET /echo: proves routing works and the API is enabled (IceHrm's "Echo <number>"). */
export function echoRouter(): Router {
  const router = Router();
  route(router, '/echo', {
    get: (_req, res) => {
      res.type('text/plain').send(`Echo ${randomInt(1, 2 ** 31)}`);
    },
  });
  return router;
}
