import type { Server } from 'node:http';
import type { DestinationStream } from 'pino';
import { createApp, servedRoutes } from '../../src/app';
import { createServer } from '../../src/http/server';
import type { Clock } from '../../src/clock';
import { type Config, loadConfig } from '../../src/config';
import type { Db } from '../../src/db/connect';
import { openInstance, type Instance } from '../../src/instances/instance';
import { singleInstance } from '../../src/instances/source';
import type { Metrics } from '../../src/metrics/metrics';
import type { RateLimitStore } from '../../src/rate-limits/limits';
import { createLogger } from '../../src/logger';
import { SETTING, writeSetting } from '../../src/settings/repository';
import { createTestDatabase, type TestDatabase, type TestDialect } from './databases';
import { checkResponsesAgainstDocument } from './openapi-check';
import { TestClock } from './test-clock';

export interface TestApp {
  dialect: TestDialect;
  /** The app's HTTP server (not listening), for supertest. */
  app: Server;
  db: Db;
  instance: Instance;
  config: Config;
  clock: TestClock;
  database: TestDatabase;
  /** A path under the API base path: api('/echo') -> '/app/api/echo'. */
  api(path: string): string;
  setApiEnabled(enabled: boolean): Promise<void>;
  /** Stops the app; drops its database unless another app still uses it. */
  close(options?: { keepDatabase?: boolean }): Promise<void>;
}

export interface TestAppOptions {
  /** The API is enabled unless a test says otherwise. */
  apiEnabled?: boolean;
  env?: Record<string, string>;
  clock?: Clock;
  /** Where log lines go (with env LOG_LEVEL); the default logger is silent. */
  logDestination?: DestinationStream;
  rateLimitStore?: RateLimitStore;
  /** Use this database (another app's) instead of a new one. */
  database?: TestDatabase;
  metrics?: Metrics;
  /** Told of every route the app serves (its path pattern, with the base path). */
  onRoute?: (route: { method: string | string[]; url: string }) => void;
}

/** The real app on a new database of the given dialect, migrated, with a silent logger. */
export async function startTestApp(dialect: TestDialect, options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase(dialect));
  const clock = new TestClock();
  // Rate limits are off unless a test turns them on: most tests send many requests from one address.
  const config = loadConfig({
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_TOKEN: '0',
    RATE_LIMIT_PER_IP: '0',
    ...options.env,
  });
  // As main.ts opens it.
  const db = database.open({ listStatementTimeoutMs: config.listQueryTimeoutMs });
  const instance = await openInstance(db, { clock: options.clock ?? clock, jwtSecret: config.jwtSecret });
  const logger = createLogger(config, options.logDestination);
  const rateLimitStore: RateLimitStore =
    options.rateLimitStore ?? (config.rateLimit.store === 'database' ? { kind: 'database', db } : { kind: 'memory' });
  const app = createApp({
    config,
    logger,
    clock: options.clock ?? clock,
    instances: singleInstance(instance),
    rateLimitStore,
    metrics: options.metrics,
  });
  const responses = checkResponsesAgainstDocument(app, config.basePath);
  const server = createServer(app, responses.listener);
  for (const route of servedRoutes(app)) options.onRoute?.({ method: route.methods, url: `${config.basePath}${route.path}` });

  const setApiEnabled = async (enabled: boolean) => {
    await writeSetting(db, SETTING.restApiEnabled, enabled ? '1' : '0', clock.now());
    instance.settings.invalidate();
  };
  await setApiEnabled(options.apiEnabled ?? true);

  return {
    dialect,
    app: server,
    db,
    instance,
    config,
    clock,
    database,
    api: (path) => `${config.basePath}${path}`,
    setApiEnabled,
    close: async ({ keepDatabase = false } = {}) => {
      server.closeAllConnections();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.destroy();
      if (!keepDatabase) await database.drop();
      const mismatches = responses.mismatches();
      if (mismatches.length > 0) throw new Error(`Responses the OpenAPI document does not describe:\n${mismatches.join('\n')}`);
    },
  };
}

/**
 * The real app for the tests of the enclosing describe: started in a beforeAll hook, closed (its
 * database dropped) in an afterAll hook. The returned object is filled in when the app has
 * started, so read it in hooks and tests, not while describing. Hooks run in the order they are
 * declared: a beforeAll declared after this call sees the app, and so does an afterAll declared
 * before it; one declared after it runs once the app is closed.
 */
export function useTestApp(dialect: TestDialect, options: TestAppOptions = {}): TestApp {
  const t = { dialect } as TestApp;
  beforeAll(async () => {
    Object.assign(t, await startTestApp(dialect, options));
  });
  // A start that failed left nothing to close; its own error is the one to read.
  afterAll(async () => {
    if (t.close) await t.close();
  });
  return t;
}

/**
 * What `create` makes once before the enclosing describe's tests (after the app of a useTestApp
 * declared before it), copied into the returned object: a user, an org.
 */
export function useFixture<T extends object>(create: () => Promise<T>): T {
  const fixture = {} as T;
  beforeAll(async () => {
    Object.assign(fixture, await create());
  });
  return fixture;
}
