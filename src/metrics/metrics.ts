import http from 'node:http';
import type { RequestHandler } from 'express';
import { type AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Db } from '../db/connect';
import type { WebhookMetrics } from '../webhooks/worker';

/** Knex's pool (tarn), as far as metrics read it. */
interface PoolStats {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/**
 * Prometheus metrics: requests and their latency by route and status, database pool use, and
 * Node's own process metrics. Served on a listener of their own (METRICS_PORT), never on the
 * API port: the numbers describe the installation, not any one caller.
 */
export class Metrics {
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  /** What the webhook delivery worker of this process reports (src/webhooks/worker.ts). */
  readonly webhooks: WebhookMetrics;

  /**
   * `registry`: prom-client's process-wide one in the server (a cluster's primary collects it
   * from every worker), a fresh one in tests.
   */
  constructor(
    readonly registry: Registry,
    databases: () => Array<{ name: string; db: Db }>,
  ) {
    this.requests = new Counter({
      name: 'hrm_http_requests_total',
      help: 'HTTP requests answered, by method, route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'hrm_http_request_duration_seconds',
      help: 'Time to answer HTTP requests, by method, route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });
    collectDefaultMetrics({ register: registry, prefix: 'hrm_' });
    const pools = (read: (pool: PoolStats) => number) =>
      function collect(this: Gauge<'database'>) {
        this.reset();
        for (const { name, db } of databases()) {
          const pool = (db.client as { pool?: PoolStats }).pool;
          if (pool) this.set({ database: name }, read(pool));
        }
      };
    new Gauge({
      name: 'hrm_db_pool_used',
      help: 'Database connections in use',
      labelNames: ['database'],
      registers: [registry],
      collect: pools((p) => p.numUsed()),
    });
    new Gauge({
      name: 'hrm_db_pool_free',
      help: 'Idle database connections',
      labelNames: ['database'],
      registers: [registry],
      collect: pools((p) => p.numFree()),
    });
    new Gauge({
      name: 'hrm_db_pool_waiting',
      help: 'Queries waiting for a database connection',
      labelNames: ['database'],
      registers: [registry],
      collect: pools((p) => p.numPendingAcquires()),
    });
    this.webhooks = webhookMetrics(registry);
  }

  /**
   * The middleware that counts and times every request when its response is sent, labelled by
   * the matched route's pattern under `basePattern` (the base path, `/api/:instance` in cloud
   * mode), so that ids never become labels.
   */
  observe(basePattern: string): RequestHandler {
    return (req, res, next) => {
      const started = performance.now();
      res.once('finish', () => {
        const route = res.locals.route === undefined ? 'unmatched' : `${basePattern}${res.locals.route}`;
        const labels = { method: req.method, route, status: String(res.statusCode) };
        this.requests.inc(labels);
        this.duration.observe(labels, (performance.now() - started) / 1000);
      });
      next();
    };
  }
}

/**
 * Webhook deliveries: counters of what this process sent, and the backlog (pending deliveries,
 * age of the oldest) as the worker last read it from each instance's database. Every process
 * reads the same databases, so a cluster's primary takes the largest backlog, not the sum.
 */
function webhookMetrics(registry: Registry): WebhookMetrics {
  const delivered = new Counter({
    name: 'hrm_webhook_deliveries_delivered_total',
    help: 'Webhook deliveries a receiver accepted (2xx)',
    registers: [registry],
  });
  const failedAttempts = new Counter({
    name: 'hrm_webhook_attempts_failed_total',
    help: 'Webhook delivery attempts that failed (refused, no answer, not 2xx); most are retried',
    registers: [registry],
  });
  const givenUp = new Counter({
    name: 'hrm_webhook_deliveries_failed_total',
    help: 'Webhook deliveries given up after 3 days of retries',
    registers: [registry],
  });
  const backlogs = new Map<string, { pending: number; oldest: Date | undefined }>();
  new Gauge({
    name: 'hrm_webhook_deliveries_queued',
    help: 'Webhook deliveries waiting to be sent (pending), all instances',
    registers: [registry],
    aggregator: 'max',
    collect() {
      this.set([...backlogs.values()].reduce((sum, backlog) => sum + backlog.pending, 0));
    },
  });
  new Gauge({
    name: 'hrm_webhook_oldest_undelivered_seconds',
    help: 'Age of the oldest webhook delivery still pending (0 when none)',
    registers: [registry],
    aggregator: 'max',
    collect() {
      const oldest = Math.min(...[...backlogs.values()].map((backlog) => backlog.oldest?.getTime() ?? Number.POSITIVE_INFINITY));
      this.set(Number.isFinite(oldest) ? Math.max(0, (Date.now() - oldest) / 1000) : 0);
    },
  });
  return {
    delivered: () => delivered.inc(),
    attemptFailed: () => failedAttempts.inc(),
    givenUp: () => givenUp.inc(),
    backlog: (instance, pending, oldest) => backlogs.set(instance, { pending, oldest }),
  };
}

/** The /metrics listener: plain text for Prometheus, nothing else. */
export async function startMetricsServer(
  registry: Registry | AggregatorRegistry<'text/plain; version=0.0.4; charset=utf-8'>,
  options: { host: string; port: number },
): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    const text = 'clusterMetrics' in registry ? registry.clusterMetrics() : registry.metrics();
    text.then(
      (text) => response.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return server;
}
