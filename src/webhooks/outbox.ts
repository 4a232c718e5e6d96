import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import { type EventType, resourceKindOf, wantsEvent } from './events';
import { activeSubscriptionEvents, insertDeliveries, insertEvent } from './repository';

/** How long a delivery is retried before it is given up (and a failing subscription disabled). */
export const RETRY_WINDOW_MS = 3 * 24 * 3600 * 1000;

/** An event about to be recorded: its payload is built only if a subscription wants it. */
export interface OutboxEvent {
  type: EventType;
  /** The id of the employee or attendance record the event is about. */
  resourceId: number;
  occurredAt: Date;
  /** The resource's read shape with every field (personal ones too: the sender leaves them out per subscription). */
  data: () => Promise<Record<string, unknown>> | Record<string, unknown>;
  /** employee.updated and .terminated, attendance.corrected: the fields the write changed. */
  changedFields?: readonly string[];
}

/** employee.deleted or attendance.deleted: the data is the id alone. */
export function deletionEvent(type: 'employee.deleted' | 'attendance.deleted', id: number, occurredAt: Date): OutboxEvent {
  return { type, resourceId: id, occurredAt, data: () => ({ id: String(id) }) };
}

/** The stored payload of an event, before the sender adds id, type, time and instance. */
export interface StoredPayload {
  data: Record<string, unknown>;
  changed_fields?: string[];
}

/**
 * Writes events to the outbox in the transaction `trx` of the change they describe, one delivery
 * per active subscription that wants each: they commit with the change, or not at all. An event
 * no subscription wants is not written. Call it after the write that locks the resource's row,
 * so that events of one resource are numbered in the order their writes commit.
 */
export async function recordEvents(trx: Db, events: readonly OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  const subscriptions = await activeSubscriptionEvents(trx);
  if (subscriptions.length === 0) return;
  for (const event of events) {
    const wanting = subscriptions.filter((subscription) => wantsEvent(subscription.events, event.type));
    if (wanting.length === 0) continue;
    const payload: StoredPayload = { data: await event.data() };
    if (event.changedFields) payload.changed_fields = [...event.changedFields];
    const resourceKey = `${resourceKindOf(event.type)}:${event.resourceId}`;
    const occurredAt = toSqlDateTime(event.occurredAt);
    const id = await insertEvent(trx, {
      event_id: `evt_${randomUUID().replace(/-/g, '')}`,
      type: event.type,
      resource_key: resourceKey,
      occurred_at: occurredAt,
      payload: JSON.stringify(payload),
    });
    await insertDeliveries(
      trx,
      wanting.map((subscription) => ({
        event_id: id,
        webhook_id: subscription.id,
        resource_key: resourceKey,
        status: 'pending',
        attempts: 0,
        next_attempt_at: occurredAt,
        give_up_at: toSqlDateTime(new Date(event.occurredAt.getTime() + RETRY_WINDOW_MS)),
        created_at: occurredAt,
      })),
    );
  }
}
