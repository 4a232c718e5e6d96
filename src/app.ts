import cors from 'cors';
import express, { type Express, Router } from 'express';
import { attendanceRoutes } from './attendance/routes';
import { requireBearer, signedUserOf } from './auth/require-bearer';
import { oauthRoutes, tokenRoutes } from './auth/token-routes';
import type { Clock } from './clock';
import type { Config } from './config';
import { calendarFeedRoutes, calendarRoutes } from './calendar/routes';
import { dayRoutes } from './days/routes';
import { docsRoutes } from './docs/routes';
import { echoRoutes } from './echo/routes';
import { exportProfileRoutes } from './export-profiles/routes';
import { payGroupRoutes } from './pay-groups/routes';
import { employeeRoutes } from './employees/routes';
import { ServiceUnavailableError } from './errors';
import { errorHandler } from './http/error-handler';
import { acceptBodies } from './http/json-body';
import { notFound } from './http/not-found';
import { refuseMalformedPaths } from './http/paths';
import { requestTimeout } from './http/request-timeout';
import { type Routes, routesNeeding, type ServedRoute } from './http/routes';
import { sendJson } from './http/send';
import { securityHeaders } from './http/security-headers';
import { scheduleRoutes } from './shifts/routes';
import { resolveInstance } from './instances/resolve-instance';
import type { InstanceSource } from './instances/source';
import { type Logger, requestLogging } from './logger';
import { leaveRoutes } from './leave/routes';
import { lookupRoutes } from './lookups/routes';
import { payPeriodRoutes } from './pay-periods/routes';
import { forgetSheetTotals } from './pay-periods/sheet-list';
import { reopenForGroupRules } from './period-guard/reopen';
import type { Metrics } from './metrics/metrics';
import { openApiDocumentFor } from './openapi';
import { limitCallerConcurrency } from './rate-limits/concurrency';
import { createRateLimits, type RateLimitStore } from './rate-limits/limits';
import { requireApiEnabled } from './http/settings-gate';
import { terminalRoutes } from './terminals/routes';
import { webhookRoutes } from './webhooks/routes';

interface AppDependencies {
  config: Config;
  logger: Logger;
  clock: Clock;
  /** The instance of each request: self-hosted, always the one (singleInstance); cloud, by name. */
  instances: InstanceSource;
  rateLimitStore: RateLimitStore;
  /** Where request counts and latencies go; none when metrics are off. */
  metrics?: Metrics;
}

/** The HTTP application. It never listens and opens nothing: start/ and the tests do. */
export function createApp(deps: AppDependencies): Express {
  const { config } = deps;
  const cloud = config.deployment === 'cloud';
  const base = cloud ? `${config.cloudBasePath}/:instance` : config.basePath;
  const app = express();
  // Nothing a client could use to fingerprint the framework; not Express's weak ETags (the API
  // sends its own strong ones where a client can use them, src/http/conditional.ts);
  // only the configured proxies may set the client address (TRUST_PROXY; never `true`).
  app.disable('x-powered-by');
  app.set('etag', false);
  // Node's querystring: flat keys (filters[x] is a key of its own, refused as unknown), no objects.
  app.set('query parser', 'simple');
  app.set('trust proxy', config.trustProxy);

  // 1. The request id, the client address and the access-log line; the metrics.
  app.use(requestLogging(deps.logger));
  if (deps.metrics) app.use(deps.metrics.observe(base));
  // 2. Security headers, the same on every response; a deadline for every request.
  app.use(securityHeaders());
  app.use(requestTimeout(config.requestTimeoutMs));
  app.use(refuseMalformedPaths);
  // Cross-origin browser access only for the configured origins (CORS_ORIGINS); none by default.
  if (config.corsOrigins.length > 0) {
    app.use(
      cors({
        origin: config.corsOrigins,
        methods: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
        allowedHeaders: 'Authorization, Content-Type, Idempotency-Key, X-Request-Id, If-Match, If-None-Match',
        exposedHeaders: 'Location, X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, Idempotent-Replayed, ETag',
        maxAge: 600,
        optionsSuccessStatus: 204,
      }),
    );
  }

  // Health checks sit outside the base path and the settings gate (docs/api.md, "Health checks"). In cloud mode
  // readiness is the control database's: instance databases open on demand.
  app.get('/healthz', (_req, res) => sendJson(res, { status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    try {
      await deps.instances.checkReady();
    } catch {
      throw new ServiceUnavailableError();
    }
    sendJson(res, { status: 'ready' });
  });

  const api = apiRouter(deps);
  app.use(base, api.router);
  routesOf.set(app, api.served);
  // 9. Unknown paths outside the base, and every error, answered with a problem body.
  app.use(notFound);
  app.use(errorHandler({ bodyLimitBytes: config.bodyLimitBytes }));
  return app;
}

/**
 * Everything under the base path, in the order a request meets it. `served` lists its routes
 * (tests and the docs check read it).
 */
function apiRouter({ config, clock, instances, rateLimitStore, logger }: AppDependencies): { router: Router; served: ServedRoute[] } {
  const cloud = config.deployment === 'cloud';
  // Cloud mode: resolveInstance reads the :instance of the base path.
  const api = Router({ mergeParams: cloud });
  const rateLimits = createRateLimits({ limits: config.rateLimit, store: rateLimitStore, logger, signedUserOf: signedUserOf(clock) });
  // Public routes: no token needed (echo only when self-hosted, docs/api.md "Tokens").
  const publicRoutes = [
    oauthRoutes({ clock, login: rateLimits.login }),
    ...docsRoutes({ document: () => openApiDocumentFor(config) }),
    // Calendar clients send no bearer token: the feed's secret URL is the credential.
    calendarRoutes({ clock }),
    ...(cloud ? [] : [echoRoutes()]),
  ];
  const features = [
    ...(cloud ? [echoRoutes()] : []),
    employeeRoutes({ clock }),
    // Before /attendance/:id, which would take /attendance/devices for a record's id.
    ...terminalRoutes({ clock }),
    ...attendanceRoutes({ clock }),
    ...lookupRoutes({ clock }),
    ...payPeriodRoutes({
      clock,
      exportConcurrency: config.exportConcurrency,
      exportProcessConcurrency: config.exportProcessConcurrency,
    }),
    exportProfileRoutes({ clock }),
    ...leaveRoutes({ clock }),
    ...scheduleRoutes({ clock }),
    ...dayRoutes({ clock }),
    calendarFeedRoutes({ clock }),
    payGroupRoutes({ clock, rulesChanged: reopenForGroupRules, afterRulesChanged: forgetSheetTotals }),
    tokenRoutes({ clock }),
    webhookRoutes({ clock, config }),
  ];
  // What the middleware needs of each route, as the routes declare it (RouteNeeds).
  const served = [...publicRoutes, ...features].flatMap((feature) => feature.served);
  const paths = (need: 'callerEmployee' | 'formBody' | 'deviceToken') => new Set(routesNeeding(served, need).keys());
  const mount = (routes: Routes[]) => {
    for (const feature of routes) api.use(feature.prefix, feature.router);
  };

  // 2. Answers carry personal data: no shared or private cache may keep them (docs/security.md).
  api.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  // 3. The instance (cloud: 404 for an unknown one; a registry lookup counts against the client
  // address first).
  api.use(resolveInstance(instances, { cloud, beforeLookup: rateLimits.beforeInstanceLookup }));
  // 4. Bodies: JSON only (415 for others), at most BODY_LIMIT (413), well-formed (400).
  api.use(
    acceptBodies({ limitBytes: config.bodyLimitBytes, formPaths: paths('formBody'), largeBodies: routesNeeding(served, 'bodyLimitBytes') }),
  );
  // 5. The settings gate: 403 api_disabled while the API is off.
  api.use(requireApiEnabled);
  // 6. Rate limits: per user when a token is correctly signed, else per client address.
  api.use(rateLimits.perRequest);
  mount(publicRoutes);
  // 7. Every other route needs a bearer token, and so does an unknown path: without a token
  // the API's routes cannot be probed.
  api.use(requireBearer(clock, { callerEmployeeAt: paths('callerEmployee'), devicePaths: paths('deviceToken') }));
  // At most CALLER_CONCURRENCY lists of one caller at a time: one token cannot hold the database.
  api.use(limitCallerConcurrency(config.callerConcurrency, [...routesNeeding(served, 'heavy').keys()]));
  // 8. One router per feature and prefix: a request meets only the routes under its own prefix.
  mount(features);
  // 9. A path under the base that no route serves.
  api.use(notFound);
  return { router: api, served };
}

const routesOf = new WeakMap<Express, ServedRoute[]>();

/** The routes an app serves, as patterns under its base path, with their methods. */
export function servedRoutes(app: Express): readonly ServedRoute[] {
  return routesOf.get(app) ?? [];
}
