import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  COMMON_PROBLEMS,
  DELETE_PROBLEMS,
  idempotencyKeyHeader,
  idString,
  int32,
  int64,
  jsonBody,
  jsonResponse,
  problems,
} from '../http/openapi';
import { createDeviceSchema } from './devices';
import { DIRECTIONS, MAX_BATCH_ENTRIES, punchLogBatchSchema, punchLogListQuery, RESULTS } from './schemas';

const instant = z.string().max(30).meta({ format: 'date-time' });
/** What the server says of an entry: a code from the list below, and a sentence. */
const resultCode = z.string().max(50);
const resultMessage = z.string().max(1000);

const deviceSchema = z
  .strictObject({
    id: idString,
    name: z.string().max(100).meta({ example: 'Front door' }),
    timezone: z.string().max(64).meta({ description: 'The wall clock of the times it sends without an offset', example: 'Europe/Berlin' }),
    active: z.boolean(),
    created_at: instant,
    last_used_at: instant.nullable().meta({ description: 'When its token was last used (to the minute)' }),
  })
  .meta({ id: 'AttendanceDevice', description: 'An attendance terminal (docs/terminals.md)' });

const entryResultSchema = z
  .strictObject({
    log_id: z.string().max(100),
    result: z.enum(RESULTS),
    attendance: idString.optional().meta({ description: 'created: the attendance record the entry opened or closed' }),
    action: z.enum(['opened', 'closed']).optional(),
    code: resultCode.optional().meta({
      description:
        'rejected: `unknown_employee`, `invalid_time`, `future_time`, `employee_terminated`, `already_punched_in`, `not_punched_in`, `overlap`, `shift_too_long`, `period_locked` (the record it would open, close or derive again counts in a locked pay period); duplicate: `repeated_punch` (a punch of the same employee within 60 seconds of another)',
    }),
    message: resultMessage.optional(),
  })
  .meta({ id: 'PunchLogResult' });

const punchLogSchema = z
  .strictObject({
    id: idString,
    device: z
      .strictObject({ type: z.literal('AttendanceDevice'), id: idString, display: z.string().max(100).nullable() })
      .nullable()
      .meta({ description: "null: an admin's manual back-fill" }),
    uploaded_by: idString.nullable().meta({ description: 'The admin user who sent it (manual back-fill)' }),
    log_id: z.string().max(100),
    attendance_device_id: z.string().max(100).nullable(),
    employee: idString.nullable().meta({ description: 'The employee the entry named, when found' }),
    time: z.string().max(40).meta({ description: 'As sent' }),
    time_utc: instant.nullable(),
    direction: z.enum(DIRECTIONS),
    result: z.enum(RESULTS),
    action: z.enum(['opened', 'closed']).nullable(),
    attendance: idString.nullable(),
    code: resultCode.nullable(),
    message: resultMessage.nullable(),
    received_at: instant,
    first_result: z.enum(RESULTS).meta({
      description:
        "What the device was answered. It differs from `result` when a punch that arrived later but happened earlier derived the employee's records again (docs/terminals.md)",
    }),
    first_action: z.enum(['opened', 'closed']).nullable(),
    first_code: resultCode.nullable(),
    changed_at: instant.nullable().meta({ description: 'When a later upload last changed the result; null: never' }),
  })
  .meta({ id: 'PunchLogEntry' });

export function describeTerminals(registry: OpenAPIRegistry): void {
  const tags = ['Attendance terminals'];
  const security = [{ bearer: [] }];
  const id = z.object({ id: idString });
  registry.registerPath({
    method: 'post',
    path: '/attendance/devices',
    operationId: 'createAttendanceDevice',
    tags,
    security,
    summary: 'Add a terminal (admins); the answer holds its token, shown only here',
    request: { headers: idempotencyKeyHeader, body: jsonBody(createDeviceSchema.meta({ id: 'AttendanceDeviceCreate' })) },
    responses: {
      201: jsonResponse(
        'The device and its token',
        deviceSchema.extend({
          token: z.string().max(2000).meta({ description: 'A bearer token valid only for /attendance/punch-logs; shown only now' }),
        }),
        z.object({ Location: z.string() }),
      ),
      ...problems(400, 401, 409, 413, 415, 422, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/attendance/devices',
    operationId: 'listAttendanceDevices',
    tags,
    security,
    summary: 'The terminals (admins; never their tokens)',
    responses: {
      200: jsonResponse(
        'Every device',
        z.strictObject({ data: z.array(deviceSchema), total: int64(0), nextPage: z.null() }).meta({ id: 'AttendanceDevicePage' }),
      ),
      ...problems(401, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/attendance/devices/{id}',
    operationId: 'getAttendanceDevice',
    tags,
    security,
    summary: 'One terminal (admins)',
    request: { params: id },
    responses: { 200: jsonResponse('The device', deviceSchema), ...problems(400, 401, 404, ...COMMON_PROBLEMS) },
  });
  registry.registerPath({
    method: 'delete',
    path: '/attendance/devices/{id}',
    operationId: 'deleteAttendanceDevice',
    tags,
    security,
    summary: 'Delete a terminal (admins): its token stops working at once; its punch logs stay',
    request: { params: id, headers: idempotencyKeyHeader },
    responses: {
      200: jsonResponse('Deleted', z.strictObject({ id: idString })),
      ...problems(401, 404, ...DELETE_PROBLEMS, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/attendance/punch-logs',
    operationId: 'uploadPunchLogs',
    tags,
    security,
    summary: "Upload a batch of punches (a device's token, or an admin back-filling)",
    description: `1 to ${MAX_BATCH_ENTRIES} entries; bodies up to 1 MB. Each names the employee by \`attendance_device_id\` or \`employee\` (id). \`time\`: ISO-8601 with an offset, or \`YYYY-MM-DD HH:MM:SS\` on the device's wall clock (an admin's: the employee's). \`direction\` defaults to \`auto\`: in when the employee has no open record at that time, else out. Entries are applied per employee in time order; an entry the device sent before (same \`log_id\`) is a \`duplicate\` and changes nothing. The answer is 200 with one result per entry, in the order sent, even when some are rejected; a malformed batch is 400/422 and applies nothing. A device's upload needs no Idempotency-Key (its log ids make a retry safe); an admin's takes one. See docs/terminals.md.`,
    request: { headers: idempotencyKeyHeader, body: jsonBody(punchLogBatchSchema.meta({ id: 'PunchLogBatch' })) },
    responses: {
      200: jsonResponse(
        'One result per entry',
        z.strictObject({ results: z.array(entryResultSchema).max(MAX_BATCH_ENTRIES) }).meta({ id: 'PunchLogResults' }),
      ),
      ...problems(400, 401, 409, 413, 415, 422, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/attendance/punch-logs',
    operationId: 'listPunchLogs',
    tags,
    security,
    summary: 'The raw punch log, newest received first (admins; a device: its own)',
    description:
      "`from`/`to` bound the punch time (ISO-8601 instants, inclusive); `device=manual` is the admins' back-fill. Page with `page`, or by keyset with `before` = the `nextBefore` of the previous page. Entries received before and sent again are not stored twice.",
    request: { query: punchLogListQuery },
    responses: {
      200: jsonResponse(
        'A page of the log',
        z
          .strictObject({
            data: z.array(punchLogSchema).max(1000),
            total: int64(0).meta({ description: 'Entries matching the filters (before aside)' }),
            nextPage: int32(2, 1_000_001).nullable(),
            nextBefore: idString.nullable().meta({ description: 'Pass as `before` for the next page by keyset; null on the last' }),
          })
          .meta({ id: 'PunchLogPage' }),
      ),
      ...problems(400, 401, ...COMMON_PROBLEMS),
    },
  });
}
