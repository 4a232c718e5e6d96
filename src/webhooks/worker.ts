import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Clock } from '../clock';
import { fromSqlDateTime } from '../db/sql-time';
import type { Instance } from '../instances/instance';
import type { InstanceSource } from '../instances/source';
import type { Logger } from '../logger';
import { type Resolve, systemResolve, type UrlPolicy } from './addresses';
import { RETRY_WINDOW_MS } from './outbox';
import { deliveryBody } from './payload';
import {
  type ClaimedDelivery,
  claimDueDeliveries,
  deliveryBacklog,
  disableFailingSubscription,
  findSubscriptions,
  markSubscriptionFailing,
  markSubscriptionHealthy,
  postponeFollowers,
  purgeDeliveries,
  recordAttempt,
  releaseLease,
  type Subscription,
} from './repository';
import { sendWebhook } from './sender';
import { signatureHeader } from './signing';

/** What the worker reports to the metrics (src/metrics/metrics.ts). */
export interface WebhookMetrics {
  delivered(): void;
  attemptFailed(): void;
  givenUp(): void;
  /** Pending deliveries of one instance ('' self-hosted) and when the oldest was created. */
  backlog(instance: string, pending: number, oldest: Date | undefined): void;
}

export interface DeliveryWorkerOptions {
  instances: InstanceSource;
  /** The instances to deliver for: [undefined] self-hosted, the registered names in cloud mode. */
  instanceNames: () => Promise<Array<string | undefined>>;
  clock: Clock;
  logger: Logger;
  policy: UrlPolicy;
  /** One attempt's limit (WEBHOOK_TIMEOUT). */
  timeoutMs: number;
  resolve?: Resolve;
  metrics?: WebhookMetrics;
  /** How long an instance with nothing to send is left before it is looked at again. */
  idleCheckMs?: number;
  /** How long the worker sleeps when no instance had anything to send. */
  pollMs?: number;
  /** Deliveries claimed and sent at once per instance. */
  batchSize?: number;
}

const FIRST_RETRY_MS = 5_000;
const LONGEST_RETRY_MS = 6 * 3600 * 1000;
/**
 * A lease outlives the attempt it covers (WEBHOOK_TIMEOUT, enforced) by this much, for recording
 * the outcome; a worker that died loses its leases then, and another sends them again.
 */
const LEASE_MARGIN_MS = 10_000;
const BACKLOG_EVERY_MS = 10_000;
const PURGE_EVERY_MS = 3600 * 1000;
/** Delivered and failed deliveries (and their events) are kept this long, for GET .../deliveries. */
export const KEEP_DELIVERIES_MS = 30 * 24 * 3600 * 1000;

/**
 * The wait before attempt `attempts + 1`: 5 s doubled per failed attempt, at most 6 h, with
 * "equal jitter" (half fixed, half random), so that receivers coming back are not hit by every
 * sender in step. Over the 3-day window that is about 20 attempts.
 */
export function retryDelayMs(attempts: number, random: () => number = Math.random): number {
  const base = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(base / 2 + random() * (base / 2));
}

/**
 * Sends the outbox's deliveries from the server process (start/serve.ts starts one per process, also
 * in every WORKERS process). Each pass looks at every instance that is due a look, claims due
 * deliveries under a lease (several processes share the work and never send the same delivery
 * at once), sends them in parallel, and records each outcome: delivered, retried later with
 * back-off, or given up after 3 days, which also disables a subscription that failed for as
 * long. A delivery whose worker died is taken over when its lease runs out.
 */
export class DeliveryWorker {
  private running: Promise<void> | undefined;
  private readonly stopping = new AbortController();
  private wake: (() => void) | undefined;
  private readonly nextLook = new Map<string, number>();
  private readonly lastBacklog = new Map<string, number>();
  private readonly lastPurge = new Map<string, number>();
  private lastWarningAt = Number.NEGATIVE_INFINITY;
  private readonly agents = { http: new http.Agent({ keepAlive: true, maxSockets: 8 }), https: new https.Agent({ keepAlive: true, maxSockets: 8 }) };
  private readonly resolve: Resolve;
  private readonly idleCheckMs: number;
  private readonly pollMs: number;
  private readonly batchSize: number;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.resolve = options.resolve ?? systemResolve;
    this.idleCheckMs = options.idleCheckMs ?? 0;
    this.pollMs = options.pollMs ?? 500;
    this.batchSize = options.batchSize ?? 20;
  }

  start(): this {
    this.running ??= this.loop();
    return this;
  }

  /** Stops after the attempts in flight end (they are cut short: their leases are released). */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.wake?.();
    await this.running;
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** One pass over the instances due a look; resolves to the number of deliveries attempted. */
  async runOnce(): Promise<number> {
    let attempted = 0;
    const names = await this.options.instanceNames();
    for (const name of names) {
      if (this.stopping.signal.aborted) break;
      const key = name ?? '';
      const now = this.options.clock.now().getTime();
      if ((this.nextLook.get(key) ?? 0) > now) continue;
      let lease;
      try {
        lease = await this.options.instances.acquire(name);
      } catch (error) {
        this.warn(error, name, 'webhook delivery could not open the instance');
        continue;
      }
      if (!lease) continue;
      try {
        const sent = await this.deliverDue(lease.instance);
        attempted += sent;
        this.nextLook.set(key, sent > 0 ? 0 : now + this.idleCheckMs);
        await this.housekeeping(key, lease.instance, now);
      } catch (error) {
        // One instance's database failing does not hold up the others; it is tried on the next pass.
        this.warn(error, name, 'webhook delivery failed to reach the database');
      } finally {
        lease.release();
      }
    }
    return attempted;
  }

  private async loop(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      let attempted = 0;
      try {
        attempted = await this.runOnce();
      } catch (error) {
        this.warn(error, undefined, 'webhook delivery pass failed');
      }
      if (attempted === 0 && !this.stopping.signal.aborted) await this.sleep(this.pollMs);
    }
  }

  /** A database that is down fails every pass: said once a minute, not twice a second. */
  private warn(error: unknown, instance: string | undefined, message: string): void {
    const now = Date.now();
    if (now - this.lastWarningAt < 60_000) return;
    this.lastWarningAt = now;
    this.options.logger.warn({ err: error, instance }, message);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private async deliverDue(instance: Instance): Promise<number> {
    const { db } = instance;
    const now = this.options.clock.now();
    const owner = randomUUID();
    const claimed = await claimDueDeliveries(db, {
      now,
      owner,
      leaseUntil: new Date(now.getTime() + this.options.timeoutMs + LEASE_MARGIN_MS),
      limit: this.batchSize,
    });
    if (claimed.length === 0) return 0;
    const subscriptions = await findSubscriptions(db, [...new Set(claimed.map((delivery) => delivery.webhookId))]);
    await Promise.all(claimed.map((delivery) => this.attempt(instance, delivery, subscriptions.get(delivery.webhookId), owner)));
    return claimed.length;
  }

  private async attempt(instance: Instance, delivery: ClaimedDelivery, subscription: Subscription | undefined, owner: string): Promise<void> {
    const { db } = instance;
    const lease = { id: delivery.id, owner };
    if (!subscription) {
      const now = this.options.clock.now();
      await recordAttempt(db, lease, { status: 'failed', lastStatus: null, lastError: 'the subscription was deleted', nextAttemptAt: now, now });
      return;
    }
    const body = deliveryBody(delivery, { instance: instance.name ?? null, includePersonal: subscription.include_personal });
    // The receiver checks webhook-timestamp against its own clock: the real time, whatever
    // clock schedules the attempts.
    const sentAt = new Date();
    const secrets = [subscription.secret];
    if (subscription.previous_secret && subscription.previous_secret_expires_at && fromSqlDateTime(subscription.previous_secret_expires_at) > this.options.clock.now()) {
      secrets.push(subscription.previous_secret);
    }
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': 'hrm-webhooks/1',
      'webhook-id': delivery.eventId,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signatureHeader(secrets, delivery.eventId, sentAt, body),
    };
    const result = await sendWebhook(
      { url: subscription.url, headers, body },
      { policy: this.options.policy, resolve: this.resolve, timeoutMs: this.options.timeoutMs, agents: this.agents, signal: this.stopping.signal },
    );
    const now = this.options.clock.now();
    if (result.delivered) {
      await recordAttempt(db, lease, { status: 'delivered', lastStatus: result.status, lastError: null, nextAttemptAt: now, now });
      await markSubscriptionHealthy(db, subscription.id);
      this.options.metrics?.delivered();
      return;
    }
    if (this.stopping.signal.aborted && result.status === null) {
      // Cut short by the shutdown, not the receiver's failure: free for the next process at once.
      await releaseLease(db, lease);
      return;
    }
    const giveUp = now >= fromSqlDateTime(delivery.giveUpAt);
    const retryAt = new Date(Math.min(now.getTime() + retryDelayMs(delivery.attempts + 1), fromSqlDateTime(delivery.giveUpAt).getTime()));
    await recordAttempt(db, lease, { status: giveUp ? 'failed' : 'pending', lastStatus: result.status, lastError: result.error, nextAttemptAt: retryAt, now });
    if (giveUp) this.options.metrics?.givenUp();
    else await postponeFollowers(db, delivery, retryAt);
    this.options.metrics?.attemptFailed();
    this.options.logger.info({ webhook: subscription.id, delivery: delivery.id, status: result.status, giveUp }, 'webhook delivery failed');

    const failingSince = await markSubscriptionFailing(db, subscription.id, now);
    if (failingSince !== undefined && now.getTime() - fromSqlDateTime(failingSince).getTime() >= RETRY_WINDOW_MS) {
      const reason = `Disabled at ${now.toISOString()}: every delivery failed for 3 days (since ${fromSqlDateTime(failingSince).toISOString()}); last error: ${result.error ?? 'none'}`;
      await disableFailingSubscription(db, subscription.id, reason.slice(0, 500), now);
      this.options.logger.warn({ webhook: subscription.id }, 'webhook subscription disabled after failing for 3 days');
    }
  }

  /** The backlog for the metrics (every 10 s) and the purge of old deliveries (hourly), per instance. */
  private async housekeeping(key: string, instance: Instance, now: number): Promise<void> {
    if (this.options.metrics && now - (this.lastBacklog.get(key) ?? 0) >= BACKLOG_EVERY_MS) {
      this.lastBacklog.set(key, now);
      const { pending, oldest } = await deliveryBacklog(instance.db);
      this.options.metrics.backlog(key, pending, oldest === null ? undefined : fromSqlDateTime(oldest));
    }
    if (now - (this.lastPurge.get(key) ?? 0) >= PURGE_EVERY_MS) {
      this.lastPurge.set(key, now);
      await purgeDeliveries(instance.db, new Date(now - KEEP_DELIVERIES_MS), 1000);
    }
  }
}
