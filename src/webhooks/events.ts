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
  'timesheet.approved',
  'timesheet.reopened',
  'pay_period.locked',
  'pay_period.unlocked',
  'leave.requested',
  'leave.approved',
  'leave.rejected',
  'leave.cancelled',
  'shift.published',
  'shift.updated',
  'shift.cancelled',
  'day.absent',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** What a subscription lists: event types, or "*" alone for every one. */
export const ALL_EVENTS = '*';

type ResourceKind = 'employee' | 'attendance' | 'timesheet' | 'pay_period' | 'leave' | 'shift' | 'day';

/**
 * The kind of resource an event type is about: the part before the dot. A timesheet's resource id
 * is its employee's; a pay period's is its start date as a number (20260101).
 */
export function resourceKindOf(type: EventType): ResourceKind {
  return type.slice(0, type.indexOf('.')) as ResourceKind;
}

/** Whether a subscription listing `events` wants events of `type`. */
export function wantsEvent(events: readonly string[], type: EventType): boolean {
  return events.includes(ALL_EVENTS) || events.includes(type);
}
