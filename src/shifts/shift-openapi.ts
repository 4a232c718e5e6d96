import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { deletionFeedQuery } from '../deletions/tombstones';
import {
  COMMON_PROBLEMS,
  DELETE_PROBLEMS,
  ETAG_HEADER,
  idempotencyKeyHeader,
  idString,
  ifMatchHeader,
  int64,
  ifNoneMatchHeader,
  jsonBody,
  jsonResponse,
  NOT_MODIFIED,
  pageSchema,
  problems,
  referenceSchema,
} from '../http/openapi';
import { date, idSchema, reference } from '../http/field-schemas';
import { PUBLISH_FIELDS } from './publishing';
import { localDateTime } from './shift-fields';
import { SHIFT_STATUSES } from './shift-model';
import { employeeShiftsQuery, queryDate, shiftListQuery } from './shift-queries';
import { MAX_BATCH } from './shift-writes';
import { SHIFT_RULE_FIELDS } from './type-fields';
import { ruleReadFields } from './type-openapi';

const isoInstant = z.string().max(40).meta({ format: 'date-time' });

export const shiftSchema = z
  .strictObject({
    id: idString,
    employee: referenceSchema('Employee').meta({ description: 'null: an open shift' }),
    shift_type: referenceSchema('ShiftType'),
    date: queryDate.meta({ description: 'The business date: the local date of the start' }),
    start_local: localDateTime,
    end_local: localDateTime,
    timezone: z.string().max(64),
    start: isoInstant.meta({
      description:
        'Read-only: the start as an instant (a local time the zone skips moves forward by the gap; one it shows twice is its first occurrence)',
    }),
    end: isoInstant.meta({ description: 'Read-only: the end as an instant' }),
    planned_hours: z.number().min(0).max(24).meta({ description: 'Elapsed hours minus the unpaid break' }),
    ...ruleReadFields,
    status: z.enum(SHIFT_STATUSES),
    rotation: idString.nullable().meta({ description: 'The rotation that generated it, if any' }),
    notes: z.string().max(2000).nullable(),
    created_at: isoInstant,
    updated_at: isoInstant,
  })
  .meta({ id: 'Shift', description: 'A planned shift (CONTRACT 6.7, docs/schedules.md)' });

// The write fields as the server parses them (shift-fields.ts): ids as text, numbers or references.
const requiredReference = (what: string) => reference(what).meta({ 'x-accepts': 'employee' });
const optionalRules = Object.fromEntries(Object.entries(SHIFT_RULE_FIELDS).map(([name, schema]) => [name, schema.optional()]));
const shiftWriteFields = {
  employee: reference('an employee').optional().meta({ description: 'The employee (null or absent: an open shift, admins only)' }),
  shift_type: reference('a shift type').optional().meta({ description: "Copies the type's rules; with `date`, its times too" }),
  date: date.optional(),
  start_local: localDateTime.optional(),
  end_local: localDateTime.optional(),
  timezone: z
    .string()
    .max(64)
    .optional()
    .meta({ description: "IANA zone (default: the employee's; an open shift's: the instance's default_timezone)" }),
  ...optionalRules,
  status: z.enum(SHIFT_STATUSES).optional().meta({ description: 'Default draft' }),
  notes: z.string().max(2000).nullable().optional(),
};
// A new shift needs its times: start_local and end_local, or a shift_type and a date that give them.
const shiftCreate = z
  .union([
    z.strictObject({ ...shiftWriteFields, start_local: localDateTime, end_local: localDateTime }),
    z.strictObject({ ...shiftWriteFields, shift_type: requiredReference('a shift type'), date: queryDate }),
  ])
  .meta({ id: 'ShiftCreate' });
const shiftBatch = z.strictObject({ shifts: z.array(shiftCreate).min(1).max(MAX_BATCH) }).meta({ id: 'ShiftBatch' });
const shiftUpdate = z
  .strictObject({
    id: idSchema('this shift').meta({ 'x-accepts': 'id', description: 'Read-only: must match the path' }).optional(),
    ...shiftWriteFields,
    start: isoInstant.optional(),
    end: isoInstant.optional(),
    planned_hours: z.number().optional(),
    rotation: idString.nullable().optional(),
    created_at: isoInstant.optional(),
    updated_at: isoInstant.optional(),
  })
  .meta({ id: 'ShiftUpdate', description: 'Only the fields sent change; the read-only members of the read shape may be sent back' });
const switchBody = z
  .strictObject({
    from: queryDate,
    to: queryDate.meta({ description: 'At most 62 days after from, both included' }),
    employees: PUBLISH_FIELDS.employees
      .optional()
      .meta({ description: 'Only these employees (default: everyone the caller schedules; admins: open shifts too)' }),
  })
  .meta({ id: 'ShiftRange' });
const idParam = z.object({ id: idString });
const RULES =
  "A shift lasts more than 0 and at most 24 hours (422 on `end_local`); one employee's published shifts never overlap (409 `shift_overlap`, also under concurrent requests); a date in a locked pay period: 409 `period_locked`.";

/** /shifts and the employee paths. */
export function describeShifts(registry: OpenAPIRegistry): void {
  const tags = ['Schedules'];
  const security = [{ bearer: [] }];
  const writeProblems = problems(400, 401, 403, 404, 409, 412, 413, 415, 422, ...COMMON_PROBLEMS);
  const page = pageSchema(shiftSchema, 'ShiftPage');
  registry.registerPath({
    method: 'get',
    path: '/shifts',
    operationId: 'listShifts',
    tags,
    security,
    summary: 'Shifts the caller may read, by start',
    description:
      "Admins all; managers their direct reports' shifts, and their own and open ones when published; employees their own and open ones when published.",
    request: { query: shiftListQuery },
    responses: { 200: jsonResponse('A page of shifts', page), ...problems(400, 401, ...COMMON_PROBLEMS) },
  });
  registry.registerPath({
    method: 'post',
    path: '/shifts',
    operationId: 'createShifts',
    tags,
    security,
    summary: `Create a shift, or \`{"shifts": [...]}\` of up to ${MAX_BATCH}, all or nothing (admins; managers for direct reports)`,
    description: `${RULES} Without start_local/end_local, a shift_type and a date give them. A batch names fields \`shifts.<index>.<field>\`.`,
    request: { headers: idempotencyKeyHeader, body: jsonBody(z.union([shiftCreate, shiftBatch])) },
    responses: {
      201: jsonResponse(
        'The shift (a batch: {"data": [shifts]})',
        z.union([shiftSchema, z.strictObject({ data: z.array(shiftSchema).max(MAX_BATCH) }).meta({ id: 'ShiftBatchCreated' })]),
        z.object({ Location: z.string().optional(), ETag: z.string().optional() }),
      ),
      ...writeProblems,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/shifts/deleted',
    operationId: 'listDeletedShifts',
    tags,
    security,
    summary: 'Shifts deleted since an instant, oldest first (the visibility of the live shifts)',
    request: { query: deletionFeedQuery },
    responses: {
      200: jsonResponse('A page of deletions', pageSchema(z.strictObject({ id: idString, deleted_at: isoInstant }), 'DeletedShiftPage')),
      ...problems(400, 401, ...COMMON_PROBLEMS),
    },
  });
  for (const [path, operationId, summary] of [
    ['/shifts/publish', 'publishShifts', 'Publish the draft shifts dated from..to'],
    ['/shifts/unpublish', 'unpublishShifts', 'Set the published shifts dated from..to back to draft'],
  ] as const) {
    registry.registerPath({
      method: 'post',
      path,
      operationId,
      tags,
      security,
      summary: `${summary} (admins; managers for direct reports), all or nothing`,
      description: RULES,
      request: { headers: idempotencyKeyHeader, body: jsonBody(switchBody) },
      responses: {
        200: jsonResponse('How many shifts changed', z.strictObject({ count: int64(0) }).meta({ id: 'ShiftCount' })),
        ...writeProblems,
      },
    });
  }
  registry.registerPath({
    method: 'get',
    path: '/shifts/{id}',
    operationId: 'getShift',
    tags,
    security,
    summary: 'One shift, with a strong ETag',
    request: { params: idParam, headers: ifNoneMatchHeader },
    responses: {
      200: jsonResponse('The shift', shiftSchema, ETAG_HEADER),
      304: NOT_MODIFIED,
      ...problems(401, 404, ...COMMON_PROBLEMS),
    },
  });
  for (const method of ['put', 'patch'] as const) {
    registry.registerPath({
      method,
      path: '/shifts/{id}',
      operationId: method === 'put' ? 'replaceShift' : 'updateShift',
      tags,
      security,
      summary: 'Change a shift (only the fields sent change; a new date alone moves both times)',
      description: `${RULES} If-Match with a stale ETag: 412, nothing written.`,
      request: { params: idParam, headers: idempotencyKeyHeader.merge(ifMatchHeader), body: jsonBody(shiftUpdate) },
      responses: { 200: jsonResponse('The shift', shiftSchema, ETAG_HEADER), ...writeProblems },
    });
  }
  registry.registerPath({
    method: 'delete',
    path: '/shifts/{id}',
    operationId: 'deleteShift',
    tags,
    security,
    summary: 'Delete a shift (it shows in GET /shifts/deleted)',
    request: { params: idParam, headers: idempotencyKeyHeader.merge(ifMatchHeader) },
    responses: {
      200: jsonResponse('The deleted shift', z.strictObject({ id: idString }).meta({ id: 'ShiftDeleted' })),
      ...problems(401, 404, 412, ...DELETE_PROBLEMS, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/shifts/{id}/assign',
    operationId: 'assignShift',
    tags,
    security,
    summary: 'Give an open shift its employee (admins)',
    description:
      "A shift that has an employee: 409 `shift_not_open`. An overlap with the employee's published shifts: 409 `shift_overlap`.",
    request: {
      params: idParam,
      headers: idempotencyKeyHeader.merge(ifMatchHeader),
      body: jsonBody(z.strictObject({ employee: requiredReference('an employee') }).meta({ id: 'ShiftAssignment' })),
    },
    responses: { 200: jsonResponse('The shift', shiftSchema, ETAG_HEADER), ...writeProblems },
  });
  registry.registerPath({
    method: 'get',
    path: '/employees/{id}/shifts',
    operationId: 'listEmployeeShifts',
    tags,
    security,
    summary: "An employee's shifts the caller may read",
    request: { params: idParam, query: employeeShiftsQuery },
    responses: { 200: jsonResponse('A page of shifts', page), ...problems(400, 401, 404, ...COMMON_PROBLEMS) },
  });
  registry.registerPath({
    method: 'get',
    path: '/employees/me/shifts',
    operationId: 'listMyShifts',
    tags,
    security,
    summary: "The caller's own shifts (published ones; managers and admins as GET /shifts shows them)",
    request: { query: employeeShiftsQuery },
    responses: { 200: jsonResponse('A page of shifts', page), ...problems(400, 401, 404, ...COMMON_PROBLEMS) },
  });
}
