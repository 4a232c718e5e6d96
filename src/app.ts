import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { requireBearer } from './auth/require-bearer';
import { registerTokenRoutes } from './auth/token-routes';
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
import type { Metrics } from './metrics/metrics';
import { type RateLimitStore, registerRateLimits } from './rate-limits/limits';
import { requireApiEnabled } from './settings/gate';

export interface AppDependencies {
  config: Config;
  logger: Logger;
  clock: Clock;
  instance: Instance;
  rateLimitStore: RateLimitStore;
  /** Where request counts and latencies go; none when metrics are off. */
  metrics?: Metrics;
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
  if (deps.metrics) {
    const { metrics } = deps;
    app.addHook('onResponse', async (request, reply) => metrics.observe(request, reply));
  }
  app.setErrorHandler(errorHandler({ bodyLimitBytes: config.bodyLimitBytes }));
  app.setNotFoundHandler(notFound);
  app.register(helmet, {
    // An API answers JSON: nothing may be framed, run or loaded from its responses.
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  });
  // Cross-origin browser access only for the configured origins (CORS_ORIGINS); none by default.
  if (config.corsOrigins.length > 0) {
    app.register(cors, {
      origin: config.corsOrigins,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
      exposedHeaders: ['Location', 'X-Request-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'Idempotent-Replayed'],
      maxAge: 600,
    });
  }

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
 * Fastify reads it), the settings gate, the rate limits, bearer authentication (skipped by public
 * routes), then its route or the not-found handler.
 */
async function registerApi(api: FastifyInstance, { clock, config, instance, rateLimitStore }: AppDependencies): Promise<void> {
  api.addHook('onRequest', async (request: FastifyRequest, reply) => {
    // Responses carry personal data: no shared or private cache may keep them (CONTRACT §8).
    reply.header('Cache-Control', 'no-store');
    request.instance = instance;
  });
  api.addHook('preValidation', requireApiEnabled);
  const rateLimits = await registerRateLimits(api, { limits: config.rateLimit, store: rateLimitStore, clock });
  api.addHook('preValidation', rateLimits.enforce);
  api.addHook('preValidation', requireBearer(clock));

  registerEchoRoutes(api, { public: true });
  registerTokenRoutes(api, { clock, login: rateLimits.login });
  registerEmployeeRoutes(api, { clock });
  registerLookupRoutes(api, { clock });
  api.setNotFoundHandler(notFound);
}
