import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Clock } from '../clock';
import type { Db } from '../db/connect';
import { fromSqlDateTime } from '../db/sql-time';
import type { Instance } from '../instances/instance';
import type { InstanceSource } from '../instances/source';
import type { Logger } from '../logger';
import { type Resolve, systemResolve, type UrlPolicy } from './addresses';
import { RETRY_WINDOW_MS } from './outbox';
import { deliveryBody } from './payload';
import {
  type AttemptOutcome,
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
import { type SendResult, sendWebhook } from './sender';
import { signatureHeader } from './signing';

/** What the worker reports to the metrics (src/metrics/metrics.ts). */
export interface WebhookMetrics {
  delivered(): void;
  attemptFailed(): void;
  givenUp(): void;
  /** Pending deliveries of one instance ('' self-hosted) and when the oldest was created. */
  backlog(instance: string, pending: number, oldest: Date | undefined): void;
}

interface DeliveryWorkerOptions {
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
  /** Deliveries claimed at once per instance (more are claimed on the next pass, without waiting). */
  batchSize?: number;
  /** The most attempts in flight at once; defaults in DEFAULT_CONCURRENCY. */
  concurrency?: Partial<Concurrency>;
}

/** Bounds on the attempts a process has in flight (each holds a socket until its answer or WEBHOOK_TIMEOUT). */
export interface Concurrency {
  total: number;
  perInstance: number;
  perSubscription: number;
}

/**
 * A receiver that never answers holds an attempt for WEBHOOK_TIMEOUT; these bounds let many of
 * them hang at once without holding up the others' deliveries (docs/webhooks.md, "Slow
 * receivers"). Per instance below the total, so that one cloud tenant cannot take every slot;
 * per subscription as many as the 8 sockets per receiver of before, so that one receiver is not
 * sent a flood at once.
 */
const DEFAULT_CONCURRENCY: Concurrency = { total: 256, perInstance: 64, perSubscription: 8 };

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
const KEEP_DELIVERIES_MS = 30 * 24 * 3600 * 1000;

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
 * at once) and starts sending them, without waiting for the answers: a pass only claims, so a
 * receiver that hangs holds its own attempt and nobody else's. Each attempt records its outcome
 * when it ends (delivered, retried later with back-off, or given up after 3 days, which also
 * disables a subscription that failed for as long) and wakes the loop for what became due. A
 * delivery whose worker died is taken over when its lease runs out.
 */
export class DeliveryWorker {
  private running: Promise<void> | undefined;
  private readonly stopping = new AbortController();
  private wake: (() => void) | undefined;
  /** An attempt ended while no pass was asleep: the next sleep is skipped. */
  private woken = false;
  private readonly nextLook = new Map<string, number>();
  private readonly lastBacklog = new Map<string, number>();
  private readonly lastPurge = new Map<string, number>();
  private lastWarningAt = Number.NEGATIVE_INFINITY;
  // No per-host socket limit: the worker bounds its attempts itself, and a limit per host would
  // make one tenant's hanging receiver hold up another tenant's receiver on the same host.
  private readonly agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  private readonly resolve: Resolve;
  private readonly idleCheckMs: number;
  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly concurrency: Concurrency;
  private readonly inFlight = new Set<Promise<void>>();
  /** Attempts in flight per instance ('' self-hosted) and per subscription of an instance. */
  private readonly instanceLoad = new Map<string, number>();
  private readonly subscriptionLoad = new Map<string, Map<number, number>>();
  /** Which instance a pass starts with: each in turn, so that none is always served first. */
  private rotation = 0;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.resolve = options.resolve ?? systemResolve;
    this.idleCheckMs = options.idleCheckMs ?? 0;
    this.pollMs = options.pollMs ?? 500;
    this.batchSize = options.batchSize ?? 20;
    this.concurrency = { ...DEFAULT_CONCURRENCY, ...options.concurrency };
  }

  start(): this {
    this.running ??= this.loop();
    return this;
  }

  /** Stops after the attempts in flight end (they are cut short: their leases are released). */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.wakeUp();
    await this.running;
    await Promise.allSettled([...this.inFlight]);
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /**
   * One pass over the instances due a look, then waits for the attempts it started (tests run
   * passes one by one); resolves to the number of deliveries attempted.
   */
  async runOnce(): Promise<number> {
    const { started } = await this.dispatch();
    await Promise.all(started);
    return started.length;
  }

  /** Attempts in flight now, all instances together. */
  get attemptsInFlight(): number {
    return this.inFlight.size;
  }

  private async loop(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      let more = false;
      try {
        ({ more } = await this.dispatch());
      } catch (error) {
        this.warn(error, undefined, 'webhook delivery pass failed');
      }
      if (!more && !this.stopping.signal.aborted) await this.sleep(this.pollMs);
    }
  }

  /**
   * Claims what each instance has room for and starts sending it; returns the attempts started,
   * and whether an instance filled its room (more may be due at once).
   */
  private async dispatch(): Promise<{ started: Array<Promise<void>>; more: boolean }> {
    const started: Array<Promise<void>> = [];
    let more = false;
    const names = await this.options.instanceNames();
    const first = names.length === 0 ? 0 : this.rotation++ % names.length;
    for (const name of [...names.slice(first), ...names.slice(0, first)]) {
      if (this.stopping.signal.aborted || this.inFlight.size >= this.concurrency.total) break;
      const key = name ?? '';
      const now = this.options.clock.now().getTime();
      if ((this.nextLook.get(key) ?? 0) > now) continue;
      const room = Math.min(
        this.batchSize,
        this.concurrency.perInstance - (this.instanceLoad.get(key) ?? 0),
        this.concurrency.total - this.inFlight.size,
      );
      if (room <= 0) continue;
      let lease;
      try {
        lease = await this.options.instances.acquire(name);
      } catch (error) {
        this.warn(error, name, 'webhook delivery could not open the instance');
        continue;
      }
      if (!lease) continue;
      try {
        const attempts = await this.claimAndSend(name, lease.instance, room);
        started.push(...attempts);
        if (attempts.length === room) more = true;
        // An instance with attempts in flight is looked at again soon: their followers become due when they end.
        this.nextLook.set(key, attempts.length > 0 || (this.instanceLoad.get(key) ?? 0) > 0 ? 0 : now + this.idleCheckMs);
        await this.housekeeping(key, lease.instance, now);
      } catch (error) {
        // One instance's database failing does not hold up the others; it is tried on the next pass.
        this.warn(error, name, 'webhook delivery failed to reach the database');
      } finally {
        lease.release();
      }
    }
    return { started, more };
  }

  /** A database that is down fails every pass: said once a minute, not twice a second. */
  private warn(error: unknown, instance: string | undefined, message: string): void {
    const now = Date.now();
    if (now - this.lastWarningAt < 60_000) return;
    this.lastWarningAt = now;
    this.options.logger.warn({ err: error, instance }, message);
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private wakeUp(): void {
    this.woken = true;
    this.wake?.();
  }

  /** Claims up to `room` due deliveries, at most perSubscription in flight per subscription, and starts them. */
  private async claimAndSend(name: string | undefined, instance: Instance, room: number): Promise<Array<Promise<void>>> {
    const { db } = instance;
    const key = name ?? '';
    const now = this.options.clock.now();
    const owner = randomUUID();
    const load = this.subscriptionLoad.get(key) ?? new Map<number, number>();
    const claimed = await claimDueDeliveries(db, {
      now,
      owner,
      leaseUntil: new Date(now.getTime() + this.options.timeoutMs + LEASE_MARGIN_MS),
      limit: room,
      roomPerWebhook: (webhookId) => this.concurrency.perSubscription - (load.get(webhookId) ?? 0),
      fullWebhooks: [...load].filter(([, count]) => count >= this.concurrency.perSubscription).map(([webhookId]) => webhookId),
    });
    if (claimed.length === 0) return [];
    const subscriptions = await findSubscriptions(db, [...new Set(claimed.map((delivery) => delivery.webhookId))]);
    return claimed.map((delivery) =>
      this.track(key, delivery.webhookId, this.attempt(name, instance, delivery, subscriptions.get(delivery.webhookId), owner)),
    );
  }

  /** Counts an attempt against the bounds until it ends, then wakes the loop for what became due. */
  private track(key: string, webhookId: number, attempt: Promise<void>): Promise<void> {
    const load = this.subscriptionLoad.get(key) ?? new Map<number, number>();
    this.subscriptionLoad.set(key, load);
    load.set(webhookId, (load.get(webhookId) ?? 0) + 1);
    this.instanceLoad.set(key, (this.instanceLoad.get(key) ?? 0) + 1);
    const tracked = attempt
      .catch((error: unknown) => this.warn(error, key || undefined, 'webhook delivery could not record an attempt'))
      .finally(() => {
        this.inFlight.delete(tracked);
        const left = (load.get(webhookId) ?? 1) - 1;
        if (left > 0) load.set(webhookId, left);
        else load.delete(webhookId);
        if (load.size === 0) this.subscriptionLoad.delete(key);
        const instanceLeft = (this.instanceLoad.get(key) ?? 1) - 1;
        if (instanceLeft > 0) this.instanceLoad.set(key, instanceLeft);
        else this.instanceLoad.delete(key);
        // A claim per ended attempt would cost a write transaction per delivery: the loop is woken
        // once half of the subscription's slots are free (or its last attempt ended), else the poll comes.
        if (left <= this.concurrency.perSubscription / 2) this.wakeUp();
      });
    this.inFlight.add(tracked);
    return tracked;
  }

  /**
   * Sends one delivery and records the outcome. The instance is not held while the receiver is
   * waited for (in cloud mode a held instance keeps a connection slot): it is acquired again to
   * record the outcome.
   */
  private async attempt(
    name: string | undefined,
    claimedFrom: Instance,
    delivery: ClaimedDelivery,
    subscription: Subscription | undefined,
    owner: string,
  ): Promise<void> {
    const lease = { id: delivery.id, owner };
    const startedAt = this.options.clock.now();
    const started = performance.now();
    if (!subscription) {
      await this.withInstance(name, async (db) => {
        const now = this.options.clock.now();
        const attempt = { number: delivery.attempts + 1, startedAt, durationMs: 0 };
        await recordAttempt(db, lease, {
          status: 'failed',
          lastStatus: null,
          lastError: 'the subscription was deleted',
          nextAttemptAt: now,
          now,
          attempt,
        });
      });
      return;
    }
    const body = deliveryBody(delivery, { instance: claimedFrom.name ?? null, includePersonal: subscription.include_personal });
    // The receiver checks webhook-timestamp against its own clock: the real time, whatever
    // clock schedules the attempts.
    const sentAt = new Date();
    const secrets = [subscription.secret];
    if (
      subscription.previous_secret &&
      subscription.previous_secret_expires_at &&
      fromSqlDateTime(subscription.previous_secret_expires_at) > this.options.clock.now()
    ) {
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
      {
        policy: this.options.policy,
        resolve: this.resolve,
        timeoutMs: this.options.timeoutMs,
        agents: this.agents,
        signal: this.stopping.signal,
      },
    );
    const attempt = { number: delivery.attempts + 1, startedAt, durationMs: performance.now() - started };
    await this.withInstance(name, (db) => this.recordOutcome(db, delivery, subscription, lease, result, attempt));
  }

  /** Runs `work` on the instance's database, held meanwhile; nothing when the instance is gone (deleted). */
  private async withInstance(name: string | undefined, work: (db: Db) => Promise<void>): Promise<void> {
    const lease = await this.options.instances.acquire(name);
    if (!lease) return;
    try {
      await work(lease.instance.db);
    } finally {
      lease.release();
    }
  }

  private async recordOutcome(
    db: Db,
    delivery: ClaimedDelivery,
    subscription: Subscription,
    lease: { id: number; owner: string },
    result: SendResult,
    attempt: AttemptOutcome['attempt'],
  ): Promise<void> {
    const now = this.options.clock.now();
    if (result.delivered) {
      await recordAttempt(db, lease, { status: 'delivered', lastStatus: result.status, lastError: null, nextAttemptAt: now, now, attempt });
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
    await recordAttempt(db, lease, {
      status: giveUp ? 'failed' : 'pending',
      lastStatus: result.status,
      lastError: result.error,
      nextAttemptAt: retryAt,
      now,
      attempt,
    });
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
