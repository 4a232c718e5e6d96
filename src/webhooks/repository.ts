import type { Knex } from 'knex';
import { type Db, dialectOf } from '../db/connect';
import { preparedQuery } from '../db/driver-statements';
import { toSqlDateTime } from '../db/sql-time';
import { asListRead } from '../db/statement-time';

/** A `webhooks` row, booleans and the event list mapped. */
export interface Subscription {
  id: number;
  url: string;
  events: string[];
  description: string | null;
  active: boolean;
  include_personal: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  failing_since: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

export type SubscriptionColumns = Omit<Subscription, 'id'>;

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A `webhook_deliveries` row with its event's id and type. */
export interface DeliveryRow {
  id: number;
  event_id: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
}

/** A `webhook_attempts` row: one attempt of a delivery. */
export interface AttemptRow {
  number: number;
  attempted_at: string;
  duration_ms: number;
  delivered: boolean;
  status: number | null;
  error: string | null;
}

/** The most attempts GET .../deliveries/{delivery} shows: the latest ones (about 20 fit in a retry window). */
export const MAX_LISTED_ATTEMPTS = 100;

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: number;
  webhookId: number;
  resourceKey: string;
  attempts: number;
  giveUpAt: string;
  eventId: string;
  type: string;
  occurredAt: string;
  payload: string;
}

function toSubscription(row: Record<string, unknown>): Subscription {
  return {
    ...(row as unknown as Subscription),
    id: Number(row.id),
    events: JSON.parse(String(row.events)) as string[],
    active: Boolean(row.active),
    include_personal: Boolean(row.include_personal),
  };
}

function toColumns(values: Partial<SubscriptionColumns>): Record<string, unknown> {
  const { events, ...rest } = values;
  return events === undefined ? rest : { ...rest, events: JSON.stringify(events) };
}

// Subscriptions.

export async function insertSubscription(db: Db, columns: SubscriptionColumns): Promise<number> {
  const [id] = await db('webhooks').insert(toColumns(columns));
  return Number(id);
}

export async function findSubscription(db: Db, id: number): Promise<Subscription | undefined> {
  const row = (await db('webhooks').where({ id }).first()) as Record<string, unknown> | undefined;
  return row && toSubscription(row);
}

export async function listSubscriptions(db: Db, page: { limit: number; offset: number }): Promise<{ rows: Subscription[]; total: number }> {
  const [rows, count] = await Promise.all([
    db('webhooks').orderBy('id').limit(page.limit).offset(page.offset),
    db('webhooks').count({ n: '*' }).first(),
  ]);
  return { rows: (rows as Array<Record<string, unknown>>).map(toSubscription), total: Number(count?.n ?? 0) };
}

export async function updateSubscription(db: Db, id: number, values: Partial<SubscriptionColumns>): Promise<void> {
  await db('webhooks').where({ id }).update(toColumns(values));
}

/** Deletes a subscription, its deliveries and their attempts (their events go with the last delivery, see purge). */
export async function deleteSubscription(db: Db, id: number): Promise<boolean> {
  await db('webhook_attempts')
    .whereIn('delivery_id', db('webhook_deliveries').where({ webhook_id: id }).select('id'))
    .delete();
  await db('webhook_deliveries').where({ webhook_id: id }).delete();
  return (await db('webhooks').where({ id }).delete()) > 0;
}

/** The active subscriptions and the events each wants: read by every write that records events. */
export async function activeSubscriptionEvents(db: Db): Promise<Array<{ id: number; events: string[] }>> {
  const rows = await selectActiveSubscriptionEvents(db, []);
  return rows.map((row) => ({ id: Number(row.id), events: JSON.parse(String(row.events)) as string[] }));
}

// Prepared: every write that records events reads it, and building it in Knex each time cost
// about a quarter of a punch's CPU. `active = 1`: better-sqlite3 binds no booleans (Knex
// converts them, a prepared statement does not).
const selectActiveSubscriptionEvents = preparedQuery((db) => db('webhooks').where({ active: 1 }).select('id', 'events'));

// The outbox.

export async function insertEvent(
  db: Db,
  row: { event_id: string; type: string; resource_key: string; occurred_at: string; payload: string },
): Promise<number> {
  const [id] = await db('webhook_events').insert(row);
  return Number(id);
}

export async function insertDeliveries(db: Db, rows: Array<Record<string, unknown>>): Promise<void> {
  await db('webhook_deliveries').insert(rows);
}

// Deliveries, as the API lists them.

/** The columns of a delivery as answered (DeliveryRow). */
const DELIVERY_COLUMNS = [
  'd.id',
  'e.event_id',
  'e.type',
  'd.status',
  'd.attempts',
  'd.next_attempt_at',
  'd.last_status',
  'd.last_error',
  'd.created_at',
];

export async function listDeliveries(
  db: Db,
  webhookId: number,
  criteria: { status?: DeliveryStatus; limit: number; offset: number },
): Promise<{ rows: DeliveryRow[]; total: number }> {
  const where = (query: Knex.QueryBuilder) => {
    asListRead(query).where('d.webhook_id', webhookId);
    if (criteria.status) query.where('d.status', criteria.status);
    return query;
  };
  const [rows, count] = await Promise.all([
    where(db('webhook_deliveries as d').join('webhook_events as e', 'e.id', 'd.event_id'))
      .orderBy('d.id', 'desc')
      .limit(criteria.limit)
      .offset(criteria.offset)
      .select(DELIVERY_COLUMNS),
    where(db('webhook_deliveries as d')).count({ n: '*' }).first(),
  ]);
  return {
    rows: (rows as DeliveryRow[]).map((row) => ({ ...row, id: Number(row.id), attempts: Number(row.attempts) })),
    total: Number(count?.n ?? 0),
  };
}

export async function findDelivery(db: Db, webhookId: number, id: number): Promise<DeliveryRow | undefined> {
  const row = (await db('webhook_deliveries as d')
    .join('webhook_events as e', 'e.id', 'd.event_id')
    .where({ 'd.id': id, 'd.webhook_id': webhookId })
    .first(DELIVERY_COLUMNS)) as DeliveryRow | undefined;
  return row && { ...row, id: Number(row.id), attempts: Number(row.attempts) };
}

/** A delivery's attempts, oldest first: the latest MAX_LISTED_ATTEMPTS of them. */
export async function listAttempts(db: Db, deliveryId: number): Promise<AttemptRow[]> {
  const rows: Array<Record<string, unknown>> = await db('webhook_attempts')
    .where({ delivery_id: deliveryId })
    .orderBy('number', 'desc')
    .limit(MAX_LISTED_ATTEMPTS)
    .select('number', 'attempted_at', 'duration_ms', 'delivered', 'status', 'error');
  return rows.reverse().map((row) => ({
    number: Number(row.number),
    attempted_at: String(row.attempted_at),
    duration_ms: Number(row.duration_ms),
    delivered: Boolean(row.delivered),
    status: row.status === null ? null : Number(row.status),
    error: row.error === null ? null : String(row.error),
  }));
}

/** POST .../retry: pending again, due now, with a new retry window. */
export async function requeueDelivery(db: Db, id: number, now: Date, giveUpAt: Date): Promise<void> {
  await db('webhook_deliveries')
    .where({ id })
    .update({ status: 'pending', next_attempt_at: toSqlDateTime(now), give_up_at: toSqlDateTime(giveUpAt) });
}

// Deliveries, as the worker sends them.

/**
 * Leases up to `limit` deliveries that are due, to `owner` until `leaseUntil`: pending, of an
 * active subscription, not leased by a live worker, and each the oldest pending delivery of its
 * subscription and resource (a resource's later event waits until the earlier one is delivered
 * or given up). On MySQL/MariaDB the rows are locked FOR UPDATE SKIP LOCKED, so that workers in
 * other processes take other rows instead of waiting; SQLite has one writer at a time.
 */
export async function claimDueDeliveries(
  db: Db,
  options: {
    now: Date;
    owner: string;
    leaseUntil: Date;
    limit: number;
    /** Subscriptions that may not have more in flight: none of theirs is claimed. */
    fullWebhooks?: number[];
    /** How many more of a subscription's deliveries may be claimed (the rest wait for a later pass). */
    roomPerWebhook?: (webhookId: number) => number;
  },
): Promise<ClaimedDelivery[]> {
  const now = toSqlDateTime(options.now);
  const ids = await db.transaction(async (trx) => {
    const query = trx('webhook_deliveries as d')
      .join('webhooks as w', 'w.id', 'd.webhook_id')
      .where('w.active', true)
      .where('d.status', 'pending')
      .where('d.next_attempt_at', '<=', now)
      .where((free) => free.whereNull('d.lease_until').orWhere('d.lease_until', '<', now))
      .whereNotExists(
        trx('webhook_deliveries as p')
          .select(trx.raw('1'))
          .whereRaw('p.webhook_id = d.webhook_id')
          .whereRaw('p.resource_key = d.resource_key')
          .where('p.status', 'pending')
          .whereRaw('p.id < d.id'),
      )
      .orderBy('d.id')
      // Room for the subscriptions' bounds: a busy subscription's rows are passed over, not claimed.
      .limit(options.roomPerWebhook ? options.limit * 4 : options.limit)
      .select('d.id', 'd.webhook_id');
    if (options.fullWebhooks && options.fullWebhooks.length > 0) query.whereNotIn('d.webhook_id', options.fullWebhooks);
    const candidates: Array<{ id: number; webhook_id: number }> = await query;
    if (candidates.length === 0) return [];
    let claimed = pickWithinBounds(candidates, options.limit, options.roomPerWebhook);
    if (claimed.length === 0) return [];
    if (dialectOf(db) === 'mysql') {
      // A locking read sees the latest committed rows: one another worker took meanwhile is skipped.
      const locked: Array<{ id: number }> = await trx('webhook_deliveries')
        .whereIn('id', claimed)
        .where('status', 'pending')
        .where((free) => free.whereNull('lease_until').orWhere('lease_until', '<', now))
        .forUpdate()
        .skipLocked()
        .select('id');
      claimed = locked.map((row) => Number(row.id));
      if (claimed.length === 0) return [];
    }
    await trx('webhook_deliveries')
      .whereIn('id', claimed)
      .update({ lease_owner: options.owner, lease_until: toSqlDateTime(options.leaseUntil) });
    return claimed;
  });
  if (ids.length === 0) return [];
  const rows: Array<Record<string, unknown>> = await db('webhook_deliveries as d')
    .join('webhook_events as e', 'e.id', 'd.event_id')
    .whereIn('d.id', ids)
    .where('d.lease_owner', options.owner)
    .orderBy('d.id')
    .select('d.id', 'd.webhook_id', 'd.resource_key', 'd.attempts', 'd.give_up_at', 'e.event_id', 'e.type', 'e.occurred_at', 'e.payload');
  return rows.map((row) => ({
    id: Number(row.id),
    webhookId: Number(row.webhook_id),
    resourceKey: String(row.resource_key),
    attempts: Number(row.attempts),
    giveUpAt: String(row.give_up_at),
    eventId: String(row.event_id),
    type: String(row.type),
    occurredAt: String(row.occurred_at),
    payload: String(row.payload),
  }));
}

/** The first `limit` candidates, oldest first, taking no more of a subscription than it has room for. */
function pickWithinBounds(
  candidates: Array<{ id: number; webhook_id: number }>,
  limit: number,
  roomPerWebhook?: (webhookId: number) => number,
): number[] {
  const taken = new Map<number, number>();
  const picked: number[] = [];
  for (const { id, webhook_id } of candidates) {
    if (picked.length >= limit) break;
    const webhookId = Number(webhook_id);
    const count = taken.get(webhookId) ?? 0;
    if (roomPerWebhook && count >= roomPerWebhook(webhookId)) continue;
    taken.set(webhookId, count + 1);
    picked.push(Number(id));
  }
  return picked;
}

/** The subscriptions of claimed deliveries, for their URL, secrets and include_personal. */
export async function findSubscriptions(db: Db, ids: number[]): Promise<Map<number, Subscription>> {
  const rows: Array<Record<string, unknown>> = await db('webhooks').whereIn('id', ids);
  return new Map(rows.map((row) => [Number(row.id), toSubscription(row)]));
}

/** An attempt's outcome, written only if this worker still holds the lease. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: Date;
  now: Date;
  /** The attempt itself, for the delivery's attempts: its number (1 for the first), when it started and how long it took. */
  attempt: { number: number; startedAt: Date; durationMs: number };
}

/** Records an attempt: the delivery's new state and the attempt's row, together. */
export async function recordAttempt(db: Db, delivery: { id: number; owner: string }, outcome: AttemptOutcome): Promise<boolean> {
  const now = toSqlDateTime(outcome.now);
  return db.transaction(async (trx) => {
    const changed = await trx('webhook_deliveries')
      .where({ id: delivery.id, lease_owner: delivery.owner })
      .update({
        status: outcome.status,
        attempts: trx.raw('attempts + 1'),
        last_status: outcome.lastStatus,
        last_error: outcome.lastError,
        last_attempt_at: now,
        next_attempt_at: toSqlDateTime(outcome.nextAttemptAt),
        delivered_at: outcome.status === 'delivered' ? now : null,
        lease_owner: null,
        lease_until: null,
      });
    // The lease was lost (taken over after it ran out): the other worker records its own attempt.
    if (changed === 0) return false;
    await trx('webhook_attempts').insert({
      delivery_id: delivery.id,
      number: outcome.attempt.number,
      attempted_at: toSqlDateTime(outcome.attempt.startedAt),
      duration_ms: Math.max(0, Math.round(outcome.attempt.durationMs)),
      delivered: outcome.status === 'delivered',
      status: outcome.lastStatus,
      error: outcome.lastError,
    });
    return true;
  });
}

/** An attempt the worker cut short when stopping: the delivery is due again at once, for anyone. */
export async function releaseLease(db: Db, delivery: { id: number; owner: string }): Promise<void> {
  await db('webhook_deliveries').where({ id: delivery.id, lease_owner: delivery.owner }).update({ lease_owner: null, lease_until: null });
}

/**
 * A failed head of a resource's queue: its later deliveries wait at least as long, so that the
 * worker does not look at them again and again meanwhile.
 */
export async function postponeFollowers(db: Db, head: { id: number; webhookId: number; resourceKey: string }, until: Date): Promise<void> {
  const at = toSqlDateTime(until);
  await db('webhook_deliveries')
    .where({ webhook_id: head.webhookId, resource_key: head.resourceKey, status: 'pending' })
    .where('id', '>', head.id)
    .where('next_attempt_at', '<', at)
    .update({ next_attempt_at: at });
}

/** A delivery went through: the subscription is not failing (any more). */
export async function markSubscriptionHealthy(db: Db, webhookId: number): Promise<void> {
  await db('webhooks').where({ id: webhookId }).whereNotNull('failing_since').update({ failing_since: null });
}

/** A delivery failed: since when the subscription has been failing (set now if it was not). */
export async function markSubscriptionFailing(db: Db, webhookId: number, now: Date): Promise<string | undefined> {
  await db('webhooks')
    .where({ id: webhookId })
    .whereNull('failing_since')
    .update({ failing_since: toSqlDateTime(now) });
  const row: { failing_since: string | null } | undefined = await db('webhooks').where({ id: webhookId }).first('failing_since');
  return row?.failing_since ?? undefined;
}

/** Disables a subscription that kept failing, and gives up its pending deliveries, saying why. */
export async function disableFailingSubscription(db: Db, webhookId: number, reason: string, now: Date): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('webhooks')
      .where({ id: webhookId })
      .update({ active: false, disabled_reason: reason, updated_at: toSqlDateTime(now) });
    await trx('webhook_deliveries')
      .where({ webhook_id: webhookId, status: 'pending' })
      .update({ status: 'failed', last_error: reason.slice(0, 500), lease_owner: null, lease_until: null });
  });
}

/** Pending deliveries and the creation time of the oldest, for the metrics. */
export async function deliveryBacklog(db: Db): Promise<{ pending: number; oldest: string | null }> {
  const row = (await db('webhook_deliveries')
    .where({ status: 'pending' })
    .first(db.raw('count(*) as pending'), db.raw('min(created_at) as oldest'))) as
    { pending: number | string; oldest: string | null } | undefined;
  return { pending: Number(row?.pending ?? 0), oldest: row?.oldest ?? null };
}

/**
 * Forgets delivered and failed deliveries created before `before` and those whose subscription is
 * gone, with their attempts, then events left without deliveries; at most `limit` of each per call.
 */
export async function purgeDeliveries(db: Db, before: Date, limit: number): Promise<number> {
  const cutoff = toSqlDateTime(before);
  const old: Array<{ id: number }> = await db('webhook_deliveries')
    .where('created_at', '<', cutoff)
    .whereNot('status', 'pending')
    .limit(limit)
    .select('id');
  const orphans: Array<{ id: number }> = await db('webhook_deliveries as d')
    .leftJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .whereNull('w.id')
    .limit(limit)
    .select('d.id');
  const ids = [...old, ...orphans].map((row) => Number(row.id));
  if (ids.length > 0) {
    await db('webhook_attempts').whereIn('delivery_id', ids).delete();
    await db('webhook_deliveries').whereIn('id', ids).delete();
  }
  const events: Array<{ id: number }> = await db('webhook_events as e')
    .where('e.occurred_at', '<', cutoff)
    .whereNotExists(db('webhook_deliveries as d').select(db.raw('1')).whereRaw('d.event_id = e.id'))
    .limit(limit)
    .select('e.id');
  if (events.length > 0)
    await db('webhook_events')
      .whereIn(
        'id',
        events.map((row) => Number(row.id)),
      )
      .delete();
  return ids.length + events.length;
}
