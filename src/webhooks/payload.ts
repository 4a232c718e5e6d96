import { sqlDateTimeToIso } from '../db/sql-time';
import { PERSONAL_FIELDS } from '../employee-records/fields';
import type { StoredPayload } from './outbox';

/**
 * The body of a delivery (docs/webhooks.md): `{"id", "type", "occurred_at", "instance", "data"}`,
 * with `changed_fields` before `data` for updates. An employee's personal fields are left out for
 * a subscription without include_personal, and named in `restricted_fields` as the API does for
 * readers who may not see them.
 */
export function deliveryBody(
  event: { eventId: string; type: string; occurredAt: string; payload: string },
  options: { instance: string | null; includePersonal: boolean },
): string {
  const stored = JSON.parse(event.payload) as StoredPayload;
  let data = stored.data;
  if (event.type.startsWith('employee.') && !options.includePersonal && event.type !== 'employee.deleted') {
    data = Object.fromEntries(Object.entries(data).filter(([field]) => !PERSONAL_SET.has(field)));
    data.restricted_fields = [...PERSONAL_FIELDS];
  }
  return JSON.stringify({
    id: event.eventId,
    type: event.type,
    occurred_at: sqlDateTimeToIso(event.occurredAt),
    instance: options.instance,
    ...(stored.changed_fields && { changed_fields: stored.changed_fields }),
    data,
  });
}

const PERSONAL_SET = new Set<string>(PERSONAL_FIELDS);
