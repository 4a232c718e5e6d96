import { randomInt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { route } from '../http/routes';

/**
 * GET /echo: proves routing works and the API is enabled (IceHrm's "Echo <number>"). It needs no
 * token when self-hosted (CONTRACT §3); cloud mode registers it as a protected route.
 */
export function registerEchoRoutes(app: FastifyInstance, options: { public: boolean }): void {
  route(
    app,
    '/echo',
    {
      get: async (_request, reply) => reply.type('text/plain; charset=utf-8').send(`Echo ${randomInt(1, 2 ** 31)}`),
    },
    { public: options.public },
  );
}
