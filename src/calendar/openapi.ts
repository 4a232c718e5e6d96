import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  COMMON_PROBLEMS,
  DELETE_PROBLEMS,
  ETAG_HEADER,
  idempotencyKeyHeader,
  idString,
  ifNoneMatchHeader,
  jsonResponse,
  NOT_MODIFIED,
  pageSchema,
  problems,
} from '../http/openapi';

const createdAt = z.string().max(40).meta({ format: 'date-time' });
const feedSchema = z.strictObject({ id: idString, created_at: createdAt }).meta({ id: 'CalendarFeed' });

export function describeCalendarFeeds(registry: OpenAPIRegistry): void {
  const tags = ['Schedules'];
  const security = [{ bearer: [] }];
  const params = z.object({ id: idString });
  registry.registerPath({
    method: 'get',
    path: '/employees/{id}/calendar-feeds',
    operationId: 'listCalendarFeeds',
    tags,
    security,
    summary: "An employee's calendar feeds (never their URLs): the employee, their managers, admins",
    request: { params },
    responses: { 200: jsonResponse('The feeds', pageSchema(feedSchema, 'CalendarFeedPage')), ...problems(401, 404, ...COMMON_PROBLEMS) },
  });
  registry.registerPath({
    method: 'post',
    path: '/employees/{id}/calendar-feeds',
    operationId: 'createCalendarFeed',
    tags,
    security,
    summary: 'Make a calendar feed: its secret URL is shown in this answer only',
    request: { params, headers: idempotencyKeyHeader },
    responses: {
      201: jsonResponse(
        'The feed and its URL',
        z.strictObject({ id: idString, url: z.string().max(500), created_at: createdAt }).meta({ id: 'CalendarFeedCreated' }),
      ),
      ...problems(400, 401, 404, 409, 413, 415, 422, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/employees/{id}/calendar-feeds/{feed}',
    operationId: 'deleteCalendarFeed',
    tags,
    security,
    summary: 'Revoke a calendar feed: its URL answers 404 from then on',
    request: { params: z.object({ id: idString, feed: idString }), headers: idempotencyKeyHeader },
    responses: {
      200: jsonResponse('The revoked feed', z.strictObject({ id: idString }).meta({ id: 'CalendarFeedDeleted' })),
      ...problems(401, 404, ...DELETE_PROBLEMS, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/calendar/{file}',
    operationId: 'getCalendar',
    tags,
    security: [],
    summary: "A feed's calendar (RFC 5545): no bearer token, the secret URL is the credential",
    description:
      "The published shifts from 30 days back to 90 days ahead (nothing after the termination date), each a VEVENT with a stable UID, SEQUENCE raised by every change, DTSTART/DTEND in UTC; cancelled shifts as STATUS:CANCELLED. Approved leave and the employee's holidays of the window as all-day events (DTSTART/DTEND dates): a leave named by its type only when the type is not private, else `Time off`. Unknown and revoked tokens: 404 alike.",
    request: {
      params: z.object({
        file: z
          .string()
          .regex(/^[A-Za-z0-9_-]{43}\.ics$/)
          .max(60)
          .meta({ description: '<token>.ics', example: 'q3JmZ0tYc2hWbXJwN0pXU2ZzQ0hKb2RtbUl4d1pQb1E.ics' }),
      }),
      headers: ifNoneMatchHeader,
    },
    responses: {
      200: {
        description: 'The calendar',
        headers: ETAG_HEADER,
        content: { 'text/calendar': { schema: z.string().meta({ description: 'RFC 5545 text, CRLF lines folded at 75 octets' }) } },
      },
      304: NOT_MODIFIED,
      ...problems(404, 405, 429, 500, 503),
    },
  });
}
