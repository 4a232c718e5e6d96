import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { registerAttendanceRoutes } from './attendance/routes';
import { requireBearer } from './auth/require-bearer';
import type { Clock } from './clock';
import type { Config } from './config';
import { registerEchoRoutes } from './echo/routes';
import { registerEmployeeRoutes } from './employees/routes';
import { ServiceUnavailableError } from './errors';
import { errorHandler } from './http/error-handler';
import { acceptJsonBodiesOnly } from './http/json-body';
import { notFound } from './http/not-found';
import type { Instance } from './instance';
import { AccessLog, type Logger, requestIdFor } from './logger';
import { registerLookupRoutes } from './lookups/routes';
import { requireApiEnabled } from './settings/gate';

export interface AppDependencies {
  config: Config;
  logger: Logger;
  clock: Clock;
  instance: Instance;
}

/** The HTTP application. It never listens and opens nothing: main.ts and the tests do. */
export function createApp(deps: AppDependencies): FastifyInstance {
  const { config } = deps;
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    logController: new AccessLog(),
    genReqId: requestIdFor,
    requestIdHeader: false,
    // Never `true`: only the configured proxies may set the client address (TRUST_PROXY).
    trustProxy: config.trustProxy as string[],
    bodyLimit: config.bodyLimitBytes,
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.decorateRequest('instance', null);
  app.decorateRequest('caller', null);
  app.decorateRequest('callerEmployee', null);
  acceptJsonBodiesOnly(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  app.setErrorHandler(errorHandler({ bodyLimitBytes: config.bodyLimitBytes }));
  app.setNotFoundHandler(notFound);

  // Health checks sit outside the base path and the settings gate (CONTRACT §1).
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async () => {
    try {
      await deps.instance.db.raw('select 1');
    } catch {
      throw new ServiceUnavailableError();
    }
    return { status: 'ready' };
  });

  app.register(async (api) => registerApi(api, deps), { prefix: config.basePath });
  return app;
}

/**
 * Everything under the base path. A request meets, in order: the body rules (415, 413, 400 while
 * Fastify reads it), the settings gate, bearer authentication (skipped by public routes), then
 * its route or the not-found handler.
 */
function registerApi(api: FastifyInstance, { clock, instance }: AppDependencies): void {
  api.addHook('onRequest', async (request: FastifyRequest, reply) => {
    // Responses carry personal data: no shared or private cache may keep them (CONTRACT §8).
    reply.header('Cache-Control', 'no-store');
    request.instance = instance;
  });
  api.addHook('preValidation', requireApiEnabled);
  api.addHook('preValidation', requireBearer(clock));

  registerEchoRoutes(api, { public: true });
  registerEmployeeRoutes(api, { clock });
  registerLookupRoutes(api, { clock });
  registerAttendanceRoutes(api, { clock });
  api.setNotFoundHandler(notFound);
}
