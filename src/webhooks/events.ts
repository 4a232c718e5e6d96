/** The events a subscription may ask for (docs/webhooks.md says when each is sent). */
export const EVENT_TYPES = [
  'employee.created',
  'employee.updated',
  'employee.terminated',
  'employee.deleted',
  'attendance.punched_in',
  'attendance.punched_out',
  'attendance.corrected',
  'attendance.deleted',
  'timesheet.reopened',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** What a subscription lists: event types, or "*" alone for every one. */
export const ALL_EVENTS = '*';

type ResourceKind = 'employee' | 'attendance' | 'timesheet';

/** The kind of resource an event type is about (a timesheet's events name its employee's id). */
export function resourceKindOf(type: EventType): ResourceKind {
  if (type.startsWith('employee.')) return 'employee';
  return type.startsWith('timesheet.') ? 'timesheet' : 'attendance';
}

/** Whether a subscription listing `events` wants events of `type`. */
export function wantsEvent(events: readonly string[], type: EventType): boolean {
  return events.includes(ALL_EVENTS) || events.includes(type);
}
