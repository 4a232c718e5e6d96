import { z } from 'zod';
import type { Db } from '../db/connect';
import { sqlDateTimeToIso, toSqlDateTime } from '../db/sql-time';
import { ValidationError } from '../errors';
import { checkUrlShape, RefusedUrlError, type Resolve, resolveAllowedAddresses, systemResolve, type UrlPolicy } from './addresses';
import { ALL_EVENTS, EVENT_TYPES } from './events';
import {
  type AttemptRow,
  type DeliveryRow,
  insertSubscription,
  type Subscription,
  type SubscriptionColumns,
  updateSubscription,
} from './repository';
import { newSigningSecret } from './signing';

/** How long the secret replaced by a rotation still signs (both are sent meanwhile). */
const PREVIOUS_SECRET_VALID_MS = 24 * 3600 * 1000;

const EVENT_NAMES = [...EVENT_TYPES, ALL_EVENTS] as const;
const eventsError = `must be a list of event types (${EVENT_TYPES.join(', ')}) or ["*"]`;

// The URLs checkUrlShape (addresses.ts) takes, as the document states them: https, a host name
// whose last label starts with a letter (new URL reads a.1 as an IPv4 address and refuses it), no
// "--" (xn-- labels must be valid punycode), or an IPv4 address; a port up to 65535, no user
// name, no #fragment. IPv6 literals are taken but not stated: their form is more than a pattern.
const LABEL = '[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*';
const PORT = '(?::(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?';
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const HOST = `(?:(?:${LABEL}\\.)*[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*|${OCTET}(?:\\.${OCTET}){3})`;
const WEBHOOK_URL_PATTERN = `^https://${HOST}${PORT}(?:[/?][^\\s#]*)?$`;

const fields = {
  url: z
    .string({ error: 'must be an https:// URL' })
    .max(2000, { error: 'must be at most 2000 characters' })
    // No `format: uri`: new URL takes (and percent-encodes) path characters RFC 3986 forbids.
    .meta({ pattern: WEBHOOK_URL_PATTERN }),
  events: z
    .array(z.enum(EVENT_NAMES, { error: eventsError }), { error: eventsError })
    .min(1, { error: eventsError })
    .max(EVENT_NAMES.length, { error: eventsError })
    .refine((events) => !events.includes(ALL_EVENTS) || events.length === 1, { error: '"*" means every event and stands alone' })
    // What the refinement adds, for the document: ["*"] alone, or event types without "*".
    .meta({
      anyOf: [
        { type: 'array', items: { type: 'string', enum: [ALL_EVENTS] }, minItems: 1, maxItems: 1 },
        { type: 'array', items: { type: 'string', enum: [...EVENT_TYPES] }, minItems: 1, maxItems: EVENT_NAMES.length },
      ],
    })
    .transform((events) => [...new Set(events)]),
  description: z
    .string({ error: 'must be text' })
    .max(500, { error: 'must be at most 500 characters' })
    .nullable()
    .transform((text) => (text === '' ? null : text)),
  active: z.boolean({ error: 'must be true or false' }),
  include_personal: z.boolean({ error: 'must be true or false' }),
};

export const createWebhookSchema = z.strictObject({
  url: fields.url,
  events: fields.events,
  description: fields.description.optional(),
  active: fields.active.optional(),
  include_personal: fields.include_personal.optional(),
});

export const updateWebhookSchema = z.strictObject({
  url: fields.url.optional(),
  events: fields.events.optional(),
  description: fields.description.optional(),
  active: fields.active.optional(),
  include_personal: fields.include_personal.optional(),
});

type CreateWebhookInput = z.output<typeof createWebhookSchema>;
type UpdateWebhookInput = z.output<typeof updateWebhookSchema>;

/**
 * A receiver URL the policy allows (scheme, and every address its host resolves to), or 422
 * naming `url`. Checked before the write's transaction: resolving may take a while.
 */
export async function checkWebhookUrl(url: string, policy: UrlPolicy, resolve: Resolve = systemResolve): Promise<string> {
  try {
    const parsed = checkUrlShape(url, policy);
    await resolveAllowedAddresses(parsed, policy, resolve);
    return parsed.toString();
  } catch (error) {
    if (error instanceof RefusedUrlError) throw new ValidationError([{ field: 'url', message: error.message }]);
    throw error;
  }
}

/** A subscription as the API answers it: never its secrets. */
export function toWebhookResponse(subscription: Subscription): Record<string, unknown> {
  return {
    id: String(subscription.id),
    url: subscription.url,
    events: subscription.events,
    description: subscription.description,
    active: subscription.active,
    include_personal: subscription.include_personal,
    created_at: sqlDateTimeToIso(subscription.created_at),
    failing_since: subscription.failing_since === null ? null : sqlDateTimeToIso(subscription.failing_since),
    disabled_reason: subscription.disabled_reason,
  };
}

/** A delivery as GET .../deliveries answers it. */
export function toDeliveryResponse(delivery: DeliveryRow): Record<string, unknown> {
  return {
    id: String(delivery.id),
    event_id: delivery.event_id,
    type: delivery.type,
    status: delivery.status,
    attempts: delivery.attempts,
    next_attempt_at: delivery.status === 'pending' ? sqlDateTimeToIso(delivery.next_attempt_at) : null,
    last_status: delivery.last_status === null ? null : Number(delivery.last_status),
    last_error: delivery.last_error,
    created_at: sqlDateTimeToIso(delivery.created_at),
  };
}

/** A delivery with its attempts, oldest first (GET .../deliveries/{delivery}). */
export function toDeliveryWithAttemptsResponse(delivery: DeliveryRow, attempts: AttemptRow[]): Record<string, unknown> {
  return {
    ...toDeliveryResponse(delivery),
    attempt_log: attempts.map((attempt) => ({
      number: attempt.number,
      attempted_at: sqlDateTimeToIso(attempt.attempted_at),
      duration_ms: attempt.duration_ms,
      delivered: attempt.delivered,
      status: attempt.status,
      error: attempt.error,
    })),
  };
}

/** Creates a subscription (its URL already checked) with a new secret; the secret is in the answer only. */
export async function createWebhook(db: Db, input: CreateWebhookInput, now: Date): Promise<{ subscription: Subscription; secret: string }> {
  const at = toSqlDateTime(now);
  const columns: SubscriptionColumns = {
    url: input.url,
    events: input.events,
    description: input.description ?? null,
    active: input.active ?? true,
    include_personal: input.include_personal ?? false,
    secret: newSigningSecret(),
    previous_secret: null,
    previous_secret_expires_at: null,
    failing_since: null,
    disabled_reason: null,
    created_at: at,
    updated_at: at,
  };
  const id = await insertSubscription(db, columns);
  return { subscription: { id, ...columns }, secret: columns.secret };
}

/**
 * Changes the sent fields. Turning a subscription on again clears why it was disabled and its
 * failing streak: its next failures count from then.
 */
export async function changeWebhook(db: Db, existing: Subscription, input: UpdateWebhookInput, now: Date): Promise<Subscription> {
  const changes: Partial<SubscriptionColumns> = {};
  for (const field of ['url', 'events', 'description', 'active', 'include_personal'] as const) {
    if (input[field] !== undefined && JSON.stringify(input[field]) !== JSON.stringify(existing[field]))
      Object.assign(changes, { [field]: input[field] });
  }
  if (changes.active === true) Object.assign(changes, { disabled_reason: null, failing_since: null });
  if (Object.keys(changes).length === 0) return existing;
  changes.updated_at = toSqlDateTime(now);
  await updateSubscription(db, existing.id, changes);
  return { ...existing, ...changes };
}

/** A new secret; the one it replaces keeps signing (alongside) for 24 hours. */
export async function rotateWebhookSecret(
  db: Db,
  existing: Subscription,
  now: Date,
): Promise<{ subscription: Subscription; secret: string }> {
  const changes = {
    secret: newSigningSecret(),
    previous_secret: existing.secret,
    previous_secret_expires_at: toSqlDateTime(new Date(now.getTime() + PREVIOUS_SECRET_VALID_MS)),
    updated_at: toSqlDateTime(now),
  };
  await updateSubscription(db, existing.id, changes);
  return { subscription: { ...existing, ...changes }, secret: changes.secret };
}
