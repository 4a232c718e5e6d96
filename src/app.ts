import express, { type Express, type RequestHandler, Router } from 'express';
import { requireBearer } from './auth/require-bearer';
import type { Clock } from './clock';
import type { Config } from './config';
import { echoRouter } from './echo/router';
import { employeesRouter } from './employees/router';
import { ServiceUnavailableError } from './errors';
import { setInstance } from './http/context';
import { errorHandler } from './http/error-handler';
import { rejectNonJsonBodies } from './http/json-body';
import { notFound } from './http/not-found';
import type { Instance } from './instance';
import { createHttpLogger, type Logger } from './logger';
import { lookupsRouter } from './lookups/router';
import { requireApiEnabled } from './settings/gate';

export interface AppDependencies {
  config: Config;
  logger: Logger;
  clock: Clock;
  instance: Instance;
}

/** The Express application. It never listens and opens nothing: main.ts and the tests do. */
export function createApp(deps: AppDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  // Every API response is no-store, so ETags would only cost a hash per response.
  app.set('etag', false);
  app.set('trust proxy', deps.config.trustProxy);

  app.use(createHttpLogger(deps.logger));
  // Health checks sit outside the base path and the settings gate (CONTRACT §1).
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      await deps.instance.db.raw('select 1');
    } catch {
      throw new ServiceUnavailableError();
    }
    res.json({ status: 'ready' });
  });
  app.use(deps.config.basePath, apiRouter(deps));
  app.use(notFound());
  app.use(errorHandler());
  return app;
}

/** Everything under the base path, in the order a request meets it. */
function apiRouter({ config, clock, instance }: AppDependencies): Router {
  const api = Router();
  api.use(noStore, useInstance(instance));
  api.use(rejectNonJsonBodies(), express.json({ limit: config.bodyLimitBytes, type: 'application/json' }));
  api.use(requireApiEnabled());
  // Self-hosted GET /echo answers without a token (CONTRACT §3).
  api.use(echoRouter());
  api.use(requireBearer(clock));
  api.use(employeesRouter({ clock }));
  api.use(lookupsRouter());
  api.use(notFound());
  return api;
}

/** Responses carry personal data: no shared or private cache may keep them (CONTRACT §8). */
const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};

function useInstance(instance: Instance): RequestHandler {
  return (_req, res, next) => {
    setInstance(res, instance);
    next();
  };
}
