import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  COMMON_PROBLEMS,
  DELETE_PROBLEMS,
  idempotencyKeyHeader,
  idString,
  int32,
  jsonBody,
  jsonResponse,
  pageSchema,
  problems,
} from '../http/openapi';
import { paginationFields } from '../http/pagination';
import { ALL_EVENTS, EVENT_TYPES } from './events';
import { MAX_LISTED_ATTEMPTS } from './repository';
import { createWebhookSchema, updateWebhookSchema } from './subscriptions';

const instant = z.string().max(30).meta({ format: 'date-time', example: '2026-11-22T11:00:00.000Z' });

const webhookSchema = z
  .strictObject({
    id: idString,
    url: z.string().max(2000).meta({ example: 'https://payroll.example.com/hrm-events' }),
    events: z.array(z.enum([...EVENT_TYPES, ALL_EVENTS])).max(EVENT_TYPES.length + 1),
    description: z.string().max(500).nullable(),
    active: z.boolean().meta({ description: 'Off: no new deliveries are queued for it, pending ones wait' }),
    include_personal: z
      .boolean()
      .meta({ description: 'Employee events carry the personal fields (else they are left out and named in restricted_fields)' }),
    created_at: instant,
    failing_since: instant.nullable().meta({ description: 'When its deliveries started failing (null while they go through)' }),
    disabled_reason: z
      .string()
      .max(500)
      .nullable()
      .meta({ description: 'Why the server turned it off (failing for 3 days); null otherwise' }),
  })
  .meta({ id: 'Webhook', description: 'A webhook subscription (never its secret)' });

const withSecret = webhookSchema
  .extend({
    secret: z.string().max(100).meta({
      description: 'The signing secret (Standard Webhooks `whsec_<base64>`), shown only here',
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    }),
  })
  .meta({ id: 'WebhookWithSecret' });

const deliverySchema = z
  .strictObject({
    id: idString,
    event_id: z.string().max(40).meta({
      description: 'The event (the webhook-id header), the same on every attempt',
      example: 'evt_3f1c0d0e5b3a4a4c9d7e2b1a0c9f8e7d',
    }),
    type: z.enum(EVENT_TYPES),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: int32(0, 100_000),
    next_attempt_at: instant.nullable().meta({ description: 'When it is tried next; null unless pending' }),
    last_status: int32(100, 599)
      .nullable()
      .meta({ description: "The receiver's HTTP status at the last attempt; null if it did not answer" }),
    last_error: z.string().max(500).nullable().meta({ description: 'Why the last attempt failed, with a short excerpt of the answer' }),
    created_at: instant,
  })
  .meta({ id: 'WebhookDelivery' });

const attemptSchema = z
  .strictObject({
    number: int32(1, 100_000).meta({ description: 'The first attempt is 1' }),
    attempted_at: instant.meta({ description: 'When the attempt started' }),
    duration_ms: int32(0, 600_000).meta({ description: 'How long it took: resolving the host, connecting, sending and the answer' }),
    delivered: z.boolean().meta({ description: 'The receiver answered 2xx' }),
    status: int32(100, 599)
      .nullable()
      .meta({ description: "The receiver's HTTP status; null if it did not answer (refused, unreachable, timed out)" }),
    error: z.string().max(500).nullable().meta({ description: 'Why it failed, with a short excerpt of the answer; null when delivered' }),
  })
  .meta({ id: 'WebhookAttempt' });

const deliveryWithAttemptsSchema = deliverySchema
  .extend({
    attempt_log: z
      .array(attemptSchema)
      .max(MAX_LISTED_ATTEMPTS)
      .meta({ description: `Every attempt, oldest first (the latest ${MAX_LISTED_ATTEMPTS} when there were more)` }),
  })
  .meta({ id: 'WebhookDeliveryWithAttempts' });

const webhookId = z.object({ id: idString });
const DESCRIPTION_URL =
  'The URL must be https:// (http:// only with WEBHOOK_ALLOW_HTTP=1) and its host must not be or resolve to a loopback, private, link-local, CGNAT, metadata or other non-public address (unless WEBHOOK_ALLOW_PRIVATE=1): else 422 naming `url`.';

/**
 * The subscription API and the deliveries; `payloads` are the read shapes the features' events
 * carry (their own openapi.ts declares them).
 */
export function describeWebhooks(
  registry: OpenAPIRegistry,
  payloads: {
    employee: z.ZodType;
    attendance: z.ZodType;
    timesheet: z.ZodType;
    payPeriod: z.ZodType;
    lockedPayPeriod: z.ZodType;
    leave: z.ZodType;
    shift: z.ZodType;
    day: z.ZodType;
  },
): void {
  const tags = ['Webhooks'];
  const security = [{ bearer: [] }];
  const writeProblems = problems(400, 401, 404, 409, 413, 415, 422, ...COMMON_PROBLEMS);
  registry.registerPath({
    method: 'post',
    path: '/webhooks',
    operationId: 'createWebhook',
    tags,
    security,
    summary: 'Subscribe a receiver to events (admins); the answer holds the signing secret, shown only here',
    description: DESCRIPTION_URL,
    request: { headers: idempotencyKeyHeader, body: jsonBody(createWebhookSchema.meta({ id: 'WebhookCreate' })) },
    responses: { 201: jsonResponse('The subscription and its secret', withSecret, z.object({ Location: z.string() })), ...writeProblems },
  });
  registry.registerPath({
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    tags,
    security,
    summary: 'The subscriptions (admins)',
    request: { query: z.strictObject(paginationFields({ defaultLimit: 50, maxLimit: 200 })) },
    responses: {
      200: jsonResponse('A page of subscriptions', pageSchema(webhookSchema, 'WebhookPage')),
      ...problems(400, 401, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/webhooks/{id}',
    operationId: 'getWebhook',
    tags,
    security,
    summary: 'One subscription (admins)',
    request: { params: webhookId },
    responses: { 200: jsonResponse('The subscription', webhookSchema), ...problems(401, 404, ...COMMON_PROBLEMS) },
  });
  registry.registerPath({
    method: 'patch',
    path: '/webhooks/{id}',
    operationId: 'updateWebhook',
    tags,
    security,
    summary: 'Change a subscription (admins); `"active": true` turns a disabled one on again',
    description: DESCRIPTION_URL,
    request: { params: webhookId, headers: idempotencyKeyHeader, body: jsonBody(updateWebhookSchema.meta({ id: 'WebhookUpdate' })) },
    responses: { 200: jsonResponse('The subscription', webhookSchema), ...writeProblems },
  });
  registry.registerPath({
    method: 'delete',
    path: '/webhooks/{id}',
    operationId: 'deleteWebhook',
    tags,
    security,
    summary: 'Delete a subscription and its deliveries (admins)',
    request: { params: webhookId, headers: idempotencyKeyHeader },
    responses: {
      200: jsonResponse('Deleted', z.strictObject({ id: idString })),
      ...problems(401, 404, ...DELETE_PROBLEMS, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/webhooks/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    tags,
    security,
    summary: 'A new signing secret (admins); the previous one keeps signing alongside it for 24 hours',
    request: { params: webhookId, headers: idempotencyKeyHeader },
    responses: { 200: jsonResponse('The subscription and its new secret', withSecret), ...writeProblems },
  });
  registry.registerPath({
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    tags,
    security,
    summary: "A subscription's deliveries, newest first (admins); kept 30 days",
    request: {
      params: webhookId,
      query: z.strictObject({
        ...paginationFields({ defaultLimit: 50, maxLimit: 200 }),
        status: z.enum(['pending', 'delivered', 'failed']).optional(),
      }),
    },
    responses: {
      200: jsonResponse('A page of deliveries', pageSchema(deliverySchema, 'WebhookDeliveryPage')),
      ...problems(400, 401, 404, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/webhooks/{id}/deliveries/{delivery}',
    operationId: 'getWebhookDelivery',
    tags,
    security,
    summary: 'One delivery with every attempt: when, how long, the status and why it failed (admins)',
    request: { params: z.object({ id: idString, delivery: idString }) },
    responses: {
      200: jsonResponse('The delivery and its attempts', deliveryWithAttemptsSchema),
      ...problems(401, 404, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/webhooks/{id}/deliveries/{delivery}/retry',
    operationId: 'retryWebhookDelivery',
    tags,
    security,
    summary: 'Send a delivery again now, whatever its status (admins); 409 `webhook_inactive` while the subscription is off',
    request: { params: z.object({ id: idString, delivery: idString }), headers: idempotencyKeyHeader },
    responses: { 202: jsonResponse('Queued: the delivery, pending and due now', deliverySchema), ...writeProblems },
  });
  describeDeliveries(registry, payloads);
}

/** What receivers get: OpenAPI 3.1's `webhooks`, one entry per event type. */
function describeDeliveries(
  registry: OpenAPIRegistry,
  payloads: {
    employee: z.ZodType;
    attendance: z.ZodType;
    timesheet: z.ZodType;
    payPeriod: z.ZodType;
    lockedPayPeriod: z.ZodType;
    leave: z.ZodType;
    shift: z.ZodType;
    day: z.ZodType;
  },
): void {
  const { employee: employeeSchema, attendance: attendanceSchema } = payloads;
  const headers = z.object({
    'webhook-id': z.string().meta({ description: 'The event id, the same on every attempt: receivers dedupe by it' }),
    'webhook-timestamp': z.string().meta({ description: 'Unix seconds when this attempt was signed' }),
    'webhook-signature': z.string().meta({
      description: 'Space-separated `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, one per valid secret (two during a rotation)',
    }),
  });
  const envelope = (type: string, data: z.ZodType, changed: 'always' | 'sometimes' | 'never') =>
    z.strictObject({
      id: z.string(),
      type: z.literal(type),
      occurred_at: instant,
      instance: z.string().nullable().meta({ description: 'The instance name in cloud mode; null when self-hosted' }),
      ...(changed === 'never' ? {} : { changed_fields: changedFields[changed] }),
      data,
    });
  const deleted = z.strictObject({ id: idString });
  const changedFields = {
    always: z.array(z.string()).meta({ description: 'The fields the write changed (personal ones by name only, unless include_personal)' }),
    sometimes: z
      .array(z.string())
      .optional()
      .meta({ description: 'The fields a correction changed; absent for a record added whole (POST /attendance)' }),
  };
  const bodies: Record<string, z.ZodType> = {
    'employee.created': envelope('employee.created', employeeSchema, 'never'),
    'employee.updated': envelope('employee.updated', employeeSchema, 'always'),
    'employee.terminated': envelope('employee.terminated', employeeSchema, 'always'),
    'employee.deleted': envelope('employee.deleted', deleted, 'never'),
    'attendance.punched_in': envelope('attendance.punched_in', attendanceSchema, 'never'),
    'attendance.punched_out': envelope('attendance.punched_out', attendanceSchema, 'never'),
    'attendance.corrected': envelope('attendance.corrected', attendanceSchema, 'sometimes'),
    'attendance.deleted': envelope('attendance.deleted', deleted, 'never'),
    'timesheet.approved': envelope('timesheet.approved', payloads.timesheet, 'never'),
    'timesheet.reopened': envelope('timesheet.reopened', payloads.timesheet, 'never'),
    'pay_period.locked': envelope('pay_period.locked', payloads.lockedPayPeriod, 'never'),
    'pay_period.unlocked': envelope('pay_period.unlocked', payloads.payPeriod, 'never'),
    'leave.requested': envelope('leave.requested', payloads.leave, 'never'),
    'leave.approved': envelope('leave.approved', payloads.leave, 'never'),
    'leave.rejected': envelope('leave.rejected', payloads.leave, 'never'),
    'leave.cancelled': envelope('leave.cancelled', payloads.leave, 'never'),
    'shift.published': envelope('shift.published', payloads.shift, 'never'),
    'shift.updated': envelope('shift.updated', payloads.shift, 'always'),
    'shift.cancelled': envelope('shift.cancelled', payloads.shift, 'never'),
    'day.absent': envelope('day.absent', payloads.day, 'never'),
  };
  for (const [type, body] of Object.entries(bodies)) {
    registry.registerWebhook({
      method: 'post',
      path: type,
      // receiveEmployeeCreated, receiveAttendancePunchedIn, ...
      operationId: `receive${type.replace(/(^|[._])(\w)/g, (_, __, letter: string) => letter.toUpperCase())}`,
      tags: ['Webhooks'],
      summary: `${type}: sent to subscriptions listing it or "*"`,
      description:
        'Signed as the Standard Webhooks specification says (docs/webhooks.md). Answer 2xx within 10 s; anything else is retried.',
      request: { headers, body: jsonBody(body) },
      responses: { 200: { description: 'Received (any 2xx)' } },
    });
  }
}
