import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import type { DatabaseConfig } from './db/connect';
import { parseMysqlUrl } from './db/mysql-hosts';

/** A database server (or Galera cluster) instances may live on; its URL names no database. */
export interface DatabaseServer {
  name: string;
  /** mysql://user:pass@host:3306/ (several hosts for a cluster), ending in / */
  url: string;
}

/** The name of the control database's own server, which needs no entry in DATABASE_SERVERS. */
export const DEFAULT_SERVER = 'default';

const SERVER_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export interface Config {
  database: DatabaseConfig;
  /** Cloud mode: the database servers named in DATABASE_SERVERS, besides `default` (docs/scaling.md). */
  databaseServers: readonly DatabaseServer[];
  host: string;
  port: number;
  basePath: string;
  deployment: 'self-hosted' | 'cloud';
  cloudBasePath: string;
  /** Overrides the secret stored in the database (self-hosted only). */
  jwtSecret: string | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bodyLimitBytes: number;
  rateLimit: {
    /** Requests per minute per token; 0 switches the limit off. */
    perToken: number;
    /** Requests per minute per client address without a valid token; 0 switches it off. */
    perIp: number;
    /** Where counts live: this process, Redis, or the database (shared by every process). */
    store: 'memory' | 'redis' | 'database';
  };
  redisUrl: string;
  /** Origins allowed to call the API from a browser; empty: no cross-origin access. */
  corsOrigins: string[];
  /** Port of the Prometheus /metrics listener; undefined: no metrics listener. */
  metricsPort: number | undefined;
  metricsHost: string;
  /** A request not answered by then gets 503 (a hung database must not hang its clients). */
  requestTimeoutMs: number;
  /**
   * Per caller (user, terminal, or client address), the list requests served at once; more wait
   * up to `waitMs`, then 429 too_many_concurrent_requests. Per process. `limit` 0: no budget.
   */
  callerConcurrency: { limit: number; waitMs: number };
  /** MySQL/MariaDB: a list's query is stopped after this long (503 query_timeout); 0: never. */
  listQueryTimeoutMs: number;
  /** Pay-period exports streamed at once per process (per instance in cloud mode); more get 429 too_many_exports. */
  exportConcurrency: number;
  /** Pay-period exports streamed at once in the whole process, all instances together (cloud mode). */
  exportProcessConcurrency: number;
  /** Express's `trust proxy`: the addresses, subnets or proxy-addr names of trusted proxies. */
  trustProxy: string[];
  /** Server processes sharing the port (node:cluster); 1 runs no cluster. */
  workers: number;
  /** Cloud mode: the most connections one process holds to instance databases. */
  cloudMaxConnections: number;
  /** Cloud mode: an instance's idle database connections are closed after this long. */
  cloudIdleTimeoutMs: number;
  /** Where webhooks may be sent, and how long one attempt may take (docs/webhooks.md). */
  webhooks: { allowHttp: boolean; allowPrivate: boolean; timeoutMs: number };
  /** How often old token, idempotency and rate-limit rows are purged; 0: never (docs/security.md). */
  purgeIntervalMs: number;
  /** How often rotations are generated ahead and final absences announced (docs/schedules.md, "Sweeps"). */
  scheduleSweepIntervalMs: number;
  /** Where a first start writes the admin's token when standard output is not a terminal (docs/security.md). */
  firstAdminTokenFile: string;
}

export class ConfigError extends Error {}

const DEFAULT_SQLITE_FILE = path.join('data', 'hrm.sqlite');
const FIRST_ADMIN_TOKEN_FILE_NAME = 'first-admin-token';

const urlPath = z.string().regex(/^(\/[A-Za-z0-9._~-]+)+$/, 'must be a path like /app/api: starts with /, no trailing /');

const byteSize = z
  .string()
  .regex(/^\d+\s*(b|kb|mb)?$/i, 'must be a size such as 100kb, 1mb or 20000')
  .transform(toBytes)
  .refine((bytes) => bytes >= 1024 && bytes <= 50 * 1024 * 1024, 'must be between 1kb and 50mb');

/** A switch: 1/true/yes/on or 0/false/no/off. */
const flag = z
  .string()
  .regex(/^(1|0|true|false|yes|no|on|off)$/i, 'must be 1 or 0')
  .transform((value) => /^(1|true|yes|on)$/i.test(value));

const envSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^(mysql:\/\/.+|sqlite:.+)$/, 'must be mysql://user:pass@host:3306/db or sqlite:<path>')
    .optional(),
  DATABASE_CAUSAL_READS: flag.default(true),
  DATABASE_SERVERS: z.string().optional(),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  BASE_PATH: urlPath.default('/app/api'),
  DEPLOYMENT: z.enum(['self-hosted', 'cloud']).default('self-hosted'),
  CLOUD_BASE_PATH: urlPath.default('/api'),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT: byteSize.default(100 * 1024),
  TRUST_PROXY: z
    .string()
    .refine((value) => value.trim().toLowerCase() !== 'true', 'must list the proxies to trust, not "true"')
    // A hop count trusts whatever is that many hops away, proxy or client: ask for the proxies.
    .refine((value) => !/^\s*\d+\s*$/.test(value), 'must list proxy addresses or subnets; a hop count cannot tell a proxy from a client')
    .refine(
      (value) => /^\s*\d+\s*$/.test(value) || isNone(value) || parseTrustProxy(value).every(isProxySpec),
      'must be none, or a comma-separated list of addresses, subnets (10.0.0.0/8), loopback, linklocal or uniquelocal',
    )
    .default('loopback'),
  RATE_LIMIT_PER_TOKEN: z.coerce.number().int().min(0).max(1_000_000).default(600),
  RATE_LIMIT_PER_IP: z.coerce.number().int().min(0).max(1_000_000).default(60),
  RATE_LIMIT_STORE: z.enum(['memory', 'redis', 'database']).default('memory'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/.+/, 'must be redis://host:6379 or rediss://...')
    .default('redis://127.0.0.1:6379'),
  CORS_ORIGINS: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    )
    .refine(
      (origins) => origins.every((origin) => /^https?:\/\/[^/\s]+$/.test(origin)),
      'must list origins such as https://hr.example.com, comma-separated',
    )
    .default([]),
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  REQUEST_TIMEOUT: z.coerce.number().int().min(1).max(600).default(15),
  CALLER_CONCURRENCY: z.coerce.number().int().min(0).max(1000).default(4),
  CALLER_CONCURRENCY_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(2000),
  LIST_QUERY_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(5000),
  EXPORT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2),
  EXPORT_PROCESS_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(4),
  WORKERS: z.coerce.number().int().min(1).max(64).default(1),
  CLOUD_MAX_CONNECTIONS: z.coerce.number().int().min(2).max(10_000).default(40),
  CLOUD_IDLE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  WEBHOOK_ALLOW_HTTP: flag.default(false),
  WEBHOOK_ALLOW_PRIVATE: flag.default(false),
  WEBHOOK_TIMEOUT: z.coerce.number().int().min(1).max(60).default(10),
  PURGE_INTERVAL: z.coerce
    .number()
    .int()
    .refine((seconds) => seconds === 0 || (seconds >= 60 && seconds <= 7 * 86_400), 'must be 0 (off) or 60 to 604800 seconds')
    .default(3600),
  SCHEDULE_SWEEP_INTERVAL: z.coerce.number().int().min(1).max(86_400).default(900),
  FIRST_ADMIN_TOKEN_FILE: z.string().optional(),
});

/**
 * Reads the configuration from an environment (process.env by default). The only place that
 * reads the environment. Empty values count as unset, so `PORT=` in a .env file means "default".
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = envSchema.safeParse(present);
  if (!result.success) {
    const messages = result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${messages.join('; ')}`);
  }
  const values = result.data;
  if (values.DEPLOYMENT === 'cloud' && values.JWT_SECRET !== undefined) {
    // One secret for every tenant would make the instances' tokens differ only by their rows.
    throw new ConfigError(
      'Invalid configuration: JWT_SECRET is for self-hosted installs; in cloud mode every instance keeps its own secret',
    );
  }
  const database = parseDatabaseUrl(values.DATABASE_URL, values.DATABASE_CAUSAL_READS);
  return Object.freeze({
    database,
    databaseServers: parseDatabaseServers(values.DATABASE_SERVERS, database, values.DEPLOYMENT),
    host: values.HOST,
    port: values.PORT,
    basePath: values.BASE_PATH,
    deployment: values.DEPLOYMENT,
    cloudBasePath: values.CLOUD_BASE_PATH,
    jwtSecret: values.JWT_SECRET,
    logLevel: values.LOG_LEVEL,
    bodyLimitBytes: values.BODY_LIMIT,
    trustProxy: parseTrustProxy(values.TRUST_PROXY),
    rateLimit: { perToken: values.RATE_LIMIT_PER_TOKEN, perIp: values.RATE_LIMIT_PER_IP, store: values.RATE_LIMIT_STORE },
    redisUrl: values.REDIS_URL,
    corsOrigins: values.CORS_ORIGINS,
    metricsPort: values.METRICS_PORT,
    metricsHost: values.METRICS_HOST,
    requestTimeoutMs: values.REQUEST_TIMEOUT * 1000,
    callerConcurrency: { limit: values.CALLER_CONCURRENCY, waitMs: values.CALLER_CONCURRENCY_WAIT_MS },
    listQueryTimeoutMs: values.LIST_QUERY_TIMEOUT_MS,
    exportConcurrency: values.EXPORT_CONCURRENCY,
    exportProcessConcurrency: values.EXPORT_PROCESS_CONCURRENCY,
    workers: values.WORKERS,
    cloudMaxConnections: values.CLOUD_MAX_CONNECTIONS,
    cloudIdleTimeoutMs: values.CLOUD_IDLE_SECONDS * 1000,
    webhooks: {
      allowHttp: values.WEBHOOK_ALLOW_HTTP,
      allowPrivate: values.WEBHOOK_ALLOW_PRIVATE,
      timeoutMs: values.WEBHOOK_TIMEOUT * 1000,
    },
    purgeIntervalMs: values.PURGE_INTERVAL * 1000,
    scheduleSweepIntervalMs: values.SCHEDULE_SWEEP_INTERVAL * 1000,
    firstAdminTokenFile: values.FIRST_ADMIN_TOKEN_FILE ?? defaultTokenFile(database),
  });
}

/** Beside the SQLite database (a directory the server writes anyway), else in ./data/. */
function defaultTokenFile(database: DatabaseConfig): string {
  const directory = database.client === 'sqlite' ? path.dirname(database.filename) : 'data';
  return path.join(directory, FIRST_ADMIN_TOKEN_FILE_NAME);
}

function parseDatabaseUrl(url: string | undefined, causalReads: boolean): DatabaseConfig {
  if (url === undefined) return { client: 'sqlite', filename: DEFAULT_SQLITE_FILE };
  if (url.startsWith('sqlite:')) return { client: 'sqlite', filename: url.slice('sqlite:'.length) };
  let database: string;
  try {
    database = parseMysqlUrl(url).database;
  } catch {
    throw new ConfigError(
      'Invalid configuration: DATABASE_URL is not a valid URL (mysql://user:pass@host:3306/db, or host:port,host:port for several hosts)',
    );
  }
  if (!database) throw new ConfigError('DATABASE_URL must name a database: mysql://user:pass@host:3306/db');
  return { client: 'mysql', url, causalReads };
}

/**
 * DATABASE_SERVERS=eu1=mysql://user:pass@h1:3306;eu2=mysql://user:pass@h2:3306,h3:3306: names and
 * credentials of the servers cloud instances may be placed on (`;` between servers, as `,`
 * separates a cluster's hosts). The credentials stay here: the registry stores only the name.
 */
function parseDatabaseServers(value: string | undefined, database: DatabaseConfig, deployment: Config['deployment']): DatabaseServer[] {
  if (value === undefined) return [];
  const fail = (reason: string): never => {
    throw new ConfigError(`Invalid configuration: DATABASE_SERVERS ${reason}`);
  };
  if (deployment !== 'cloud' || database.client !== 'mysql')
    fail('is for cloud mode on MySQL/MariaDB (DEPLOYMENT=cloud, DATABASE_URL=mysql://...)');
  const servers: DatabaseServer[] = [];
  for (const entry of value
    .split(';')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const separator = entry.indexOf('=');
    const name = entry.slice(0, Math.max(separator, 0));
    const url = entry.slice(separator + 1).replace(/\/+$/, '');
    if (!SERVER_NAME.test(name))
      fail(
        `must be name=mysql://user:pass@host:3306;... with names of lower-case letters, digits, - and _ (got "${name || entry.replace(/\/\/[^@]*@/, '//')}")`,
      );
    if (name === DEFAULT_SERVER) fail(`cannot name a server "${DEFAULT_SERVER}": that is the control database's own server (DATABASE_URL)`);
    if (servers.some((server) => server.name === name)) fail(`names the server ${name} twice`);
    try {
      if (parseMysqlUrl(`${url}/`).database !== '') throw new Error('a database');
    } catch {
      fail(`has an invalid URL for ${name}: mysql://user:pass@host:3306 (no database; several hosts for a cluster)`);
    }
    servers.push({ name, url: `${url}/` });
  }
  return servers;
}

function parseTrustProxy(value: string): string[] {
  // none: no proxy is trusted, not even on loopback (a local tunnel that passes X-Forwarded-For
  // through would let clients choose their address): every request is its socket's address.
  if (isNone(value)) return [];
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

function isNone(value: string): boolean {
  return value.trim().toLowerCase() === 'none';
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** What proxy-addr accepts: a name, an address, or an address with a prefix length or netmask. */
function isProxySpec(spec: string): boolean {
  if (PROXY_NAMES.has(spec)) return true;
  const [address = '', range, ...rest] = spec.split('/');
  if (rest.length > 0 || isIP(address) === 0) return false;
  if (range === undefined) return true;
  if (isIP(range) !== 0) return true;
  const bits = Number(range);
  return /^\d{1,3}$/.test(range) && bits <= (isIP(address) === 4 ? 32 : 128);
}

function toBytes(value: string): number {
  const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(value);
  const amount = Number(match?.[1]);
  const unit = (match?.[2] ?? 'b').toLowerCase();
  return amount * (unit === 'mb' ? 1024 * 1024 : unit === 'kb' ? 1024 : 1);
}
