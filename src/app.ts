import cors from '@fastify/cors';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { registerAttendanceRoutes } from './attendance/routes';
import { requireBearer } from './auth/require-bearer';
import { registerTokenRoutes } from './auth/token-routes';
import type { Clock } from './clock';
import type { Config } from './config';
import { registerEchoRoutes } from './echo/routes';
import { registerEmployeeRoutes } from './employees/routes';
import { NotFoundError, ServiceUnavailableError } from './errors';
import { answerClientError } from './http/client-error';
import { errorHandler } from './http/error-handler';
import { acceptJsonBodiesOnly } from './http/json-body';
import { notFound } from './http/not-found';
import { securityHeaders } from './http/security-headers';
import type { InstanceSource } from './instances/source';
import { AccessLog, type Logger, requestIdFor } from './logger';
import { registerLookupRoutes } from './lookups/routes';
import type { Metrics } from './metrics/metrics';
import { registerDocsRoutes } from './openapi/routes';
import { type RateLimitStore, registerRateLimits } from './rate-limits/limits';
import { requireApiEnabled } from './settings/gate';

export interface AppDependencies {
  config: Config;
  logger: Logger;
  clock: Clock;
  /** The instance of each request: self-hosted, always the one (singleInstance); cloud, by name. */
  instances: InstanceSource;
  rateLimitStore: RateLimitStore;
  /** Where request counts and latencies go; none when metrics are off. */
  metrics?: Metrics;
}

/** The HTTP application. It never listens and opens nothing: main.ts and the tests do. */
export function createApp(deps: AppDependencies): FastifyInstance {
  const { config } = deps;
  const handleError = errorHandler({ bodyLimitBytes: config.bodyLimitBytes });
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    logController: new AccessLog(),
    genReqId: requestIdFor,
    requestIdHeader: false,
    // Never `true`: only the configured proxies may set the client address (TRUST_PROXY).
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    handlerTimeout: config.requestTimeoutMs,
    routerOptions: { ignoreTrailingSlash: true },
    // A request Node's parser refuses (unknown method, broken request line) never reaches Fastify,
    // and a path Fastify cannot route (broken percent-encoding, an over-long segment) is refused
    // before any hook runs: both get the same problem body as every other error.
    clientErrorHandler: answerClientError,
    frameworkErrors: (error, request, reply) => {
      reply.header('X-Request-Id', request.id).header('Cache-Control', 'no-store');
      return handleError(error, request, reply);
    },
  });
  app.decorateRequest('instance', null);
  app.decorateRequest('caller', null);
  app.decorateRequest('callerEmployee', null);
  acceptJsonBodiesOnly(app);
  const security = securityHeaders();
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(security).header('X-Request-Id', request.id);
  });
  if (deps.metrics) {
    const { metrics } = deps;
    app.addHook('onResponse', async (request, reply) => metrics.observe(request, reply));
  }
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(notFound);
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

  // Health checks sit outside the base path and the settings gate (CONTRACT §1). In cloud mode
  // readiness is the control database's: instance databases open on demand.
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async () => {
    try {
      await deps.instances.checkReady();
    } catch {
      throw new ServiceUnavailableError();
    }
    return { status: 'ready' };
  });

  const prefix = config.deployment === 'cloud' ? `${config.cloudBasePath}/:instance` : config.basePath;
  app.register(async (api) => registerApi(api, deps), { prefix });
  return app;
}

/**
 * Everything under the base path. A request meets, in order: its instance (cloud: 404 for an
 * unknown one), the body rules (415, 413, 400 while Fastify reads it), the settings gate, the rate
 * limits, bearer authentication (skipped by public routes), then its route or the not-found handler.
 */
async function registerApi(api: FastifyInstance, { config, clock, instances, rateLimitStore }: AppDependencies): Promise<void> {
  const cloud = config.deployment === 'cloud';
  api.addHook('onRequest', async (request: FastifyRequest, reply) => {
    // Responses carry personal data: no shared or private cache may keep them (CONTRACT §8).
    reply.header('Cache-Control', 'no-store');
    const name = cloud ? (request.params as { instance?: string }).instance : undefined;
    const lease = await instances.acquire(name);
    if (!lease) {
      // The same answer for a malformed and an unregistered name: nothing else is revealed.
      throw new NotFoundError({ code: 'instance_not_found', title: 'No such instance', detail: 'There is no instance by this name' });
    }
    // 'close' comes once the response is sent or the client went away: the instance's database
    // may then be closed to make room for another. A client that gave up while this request
    // waited for its instance has already closed: release now, or the lease would never end.
    if (reply.raw.destroyed) {
      lease.release();
      return reply.send();
    }
    reply.raw.once('close', lease.release);
    request.instance = lease.instance;
  });
  api.addHook('preValidation', requireApiEnabled);
  const rateLimits = await registerRateLimits(api, { limits: config.rateLimit, store: rateLimitStore, clock });
  api.addHook('preValidation', rateLimits.enforce);
  api.addHook('preValidation', requireBearer(clock));

  // CONTRACT §3: echo is public only when self-hosted.
  registerEchoRoutes(api, { public: !cloud });
  registerTokenRoutes(api, { clock, login: rateLimits.login });
  registerDocsRoutes(api, { config });
  registerEmployeeRoutes(api, { clock });
  registerLookupRoutes(api, { clock });
  registerAttendanceRoutes(api, { clock });
  api.setNotFoundHandler(notFound);
}
