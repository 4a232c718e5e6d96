import path from 'node:path';
import { z } from 'zod';

export type DatabaseConfig =
  | { client: 'sqlite'; filename: string }
  | { client: 'mysql'; url: string };

export interface Config {
  database: DatabaseConfig;
  host: string;
  port: number;
  basePath: string;
  deployment: 'self-hosted' | 'cloud';
  cloudBasePath: string;
  /** Overrides the secret stored in the database (self-hosted only). */
  jwtSecret: string | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bodyLimitBytes: number;
  /** Proxies whose X-Forwarded-* headers are believed: addresses/subnets/names, or a hop count. */
  trustProxy: string[] | number;
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
}

export class ConfigError extends Error {}

export const DEFAULT_SQLITE_FILE = path.join('data', 'hrm.sqlite');

const urlPath = z
  .string()
  .regex(/^(\/[A-Za-z0-9._~-]+)+$/, 'must be a path like /app/api: starts with /, no trailing /');

const byteSize = z
  .string()
  .regex(/^\d+\s*(b|kb|mb)?$/i, 'must be a size such as 100kb, 1mb or 20000')
  .transform(toBytes)
  .refine((bytes) => bytes >= 1024 && bytes <= 50 * 1024 * 1024, 'must be between 1kb and 50mb');

const envSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^(mysql:\/\/.+|sqlite:.+)$/, 'must be mysql://user:pass@host:3306/db or sqlite:<path>')
    .optional(),
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
    .default('loopback'),
  RATE_LIMIT_PER_TOKEN: z.coerce.number().int().min(0).max(1_000_000).default(600),
  RATE_LIMIT_PER_IP: z.coerce.number().int().min(0).max(1_000_000).default(60),
  RATE_LIMIT_STORE: z.enum(['memory', 'redis', 'database']).default('memory'),
  REDIS_URL: z.string().regex(/^rediss?:\/\/.+/, 'must be redis://host:6379 or rediss://...').default('redis://127.0.0.1:6379'),
  CORS_ORIGINS: z
    .string()
    .transform((value) => value.split(',').map((origin) => origin.trim()).filter(Boolean))
    .refine((origins) => origins.every((origin) => /^https?:\/\/[^/\s]+$/.test(origin)), 'must list origins such as https://hr.example.com, comma-separated')
    .default([]),
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
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
  return Object.freeze({
    database: parseDatabaseUrl(values.DATABASE_URL),
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
  });
}

function parseDatabaseUrl(url: string | undefined): DatabaseConfig {
  if (url === undefined) return { client: 'sqlite', filename: DEFAULT_SQLITE_FILE };
  if (url.startsWith('sqlite:')) return { client: 'sqlite', filename: url.slice('sqlite:'.length) };
  try {
    const parsed = new URL(url);
    if (parsed.pathname.length <= 1) throw new ConfigError('DATABASE_URL must name a database: mysql://user:pass@host:3306/db');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError('Invalid configuration: DATABASE_URL is not a valid URL');
  }
  return { client: 'mysql', url };
}

function parseTrustProxy(value: string): string[] | number {
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  return trimmed.split(',').map((part) => part.trim()).filter(Boolean);
}

function toBytes(value: string): number {
  const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(value);
  const amount = Number(match?.[1]);
  const unit = (match?.[2] ?? 'b').toLowerCase();
  return amount * (unit === 'mb' ? 1024 * 1024 : unit === 'kb' ? 1024 : 1);
}
