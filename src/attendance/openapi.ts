import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { CALENDAR_DATE } from '../http/field-schemas';
import {
  COMMON_PROBLEMS,
  DELETE_PROBLEMS,
  ETAG_HEADER,
  NOT_MODIFIED,
  idempotencyKeyHeader,
  ifMatchHeader,
  ifNoneMatchHeader,
  idString,
  int64,
  jsonBody,
  jsonResponse,
  pageSchema,
  problems,
  requiredReferenceSchema,
} from '../http/openapi';
import {
  attendanceListQuery,
  attendanceSummaryQuery,
  correctionDocumentSchema,
  employeeAttendanceQuery,
  newRecordSchema,
  punchInSchema,
  punchOutSchema,
} from './schemas';
import { deletionFeedQuery } from '../deletions/tombstones';

const wallClock = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
  .max(19)
  .meta({ description: "Wall-clock time in the record's time zone", example: '2026-03-02 08:00:00' });
const utcInstant = z.string().max(20).meta({ format: 'date-time', example: '2026-03-02T07:00:00Z' });
const coordinate = (limit: number) => z.number().min(-limit).max(limit).nullable();
const ip = z.string().max(45).nullable().meta({ description: 'The client address (IPv4 or IPv6)' });

/** The record's read shape (docs/api.md, "Attendance"). */
export const attendanceSchema = z
  .strictObject({
    id: idString,
    employee: requiredReferenceSchema('Employee'),
    in_time: wallClock,
    out_time: wallClock.nullable().meta({ description: 'null while the record is open' }),
    note: z.string().max(1000).nullable(),
    out_note: z.string().max(1000).nullable(),
    timezone: z.string().max(64).meta({ description: "The employee's time zone when the record was made", example: 'Europe/Berlin' }),
    in_time_utc: utcInstant,
    out_time_utc: utcInstant.nullable(),
    hours: z.number().min(0).nullable().meta({ description: 'Rounded to 2 decimals; null while open', example: 8.5 }),
    latitude: coordinate(90),
    longitude: coordinate(180),
    out_latitude: coordinate(90),
    out_longitude: coordinate(180),
    in_ip: ip,
    out_ip: ip,
    missed_punch_out: z.boolean().optional().meta({
      default: false,
      description:
        'Present (true) only on a record left without an out_time when its pay period was locked with `allow_open_records=true` (absent: false). It counts no hours and is not the open record: the next punch-in opens a new one, no punch-out closes it; a correction that sets out_time ends it (docs/pay-periods.md, "Period end, step by step")',
    }),
    created_at: z.string().max(30).meta({ format: 'date-time' }),
    updated_at: z.string().max(30).meta({ format: 'date-time' }),
  })
  .meta({ id: 'Attendance', description: 'An attendance record' });

const TIME_INPUT = "A time `YYYY-MM-DD HH:MM:SS` (in the employee's time zone) or ISO-8601 with an offset; default: now";
const id = z.object({ id: idString });
const location = z.object({ Location: z.string().max(2048) });
const conditionalWriteHeaders = idempotencyKeyHeader.extend(ifMatchHeader.shape);

/** GET /attendance/deleted: one deleted record. */
const deletedAttendanceSchema = z
  .strictObject({
    id: idString.meta({ description: "The deleted record's id" }),
    deleted_at: z.string().max(30).meta({ format: 'date-time', example: '2026-11-22T11:00:00.000Z' }),
  })
  .meta({ id: 'DeletedAttendance', description: 'An attendance record deleted (a tombstone, kept at least 90 days)' });
const rulesConflict =
  "409 codes: `already_punched_in`, `not_punched_in`, `overlap`, `period_locked` (the record counts on a date of a locked pay period, before or after the write: docs/pay-periods.md) (and `idempotency_key_in_use`); 422 `employee_terminated` for a time after the employee's termination_date on their wall clock";

export function describeAttendance(registry: OpenAPIRegistry): void {
  const tags = ['Attendance'];
  const security = [{ bearer: [] }];
  const writeProblems = problems(400, 401, 404, 409, 413, 415, 422, ...COMMON_PROBLEMS);
  registry.registerPath({
    method: 'post',
    path: '/attendance/punch-in',
    operationId: 'punchIn',
    tags,
    security,
    summary: 'Punch in (the caller, a direct report for managers, anyone for admins)',
    description: `${TIME_INPUT}. ${rulesConflict}. The body may be empty: the caller punches in now.`,
    request: { headers: idempotencyKeyHeader, body: { ...jsonBody(punchInSchema.meta({ id: 'PunchIn' })), required: false } },
    responses: { 201: jsonResponse('The new, open record', attendanceSchema, location), ...writeProblems },
  });
  registry.registerPath({
    method: 'post',
    path: '/attendance/punch-out',
    operationId: 'punchOut',
    tags,
    security,
    summary: "Punch out: closes the employee's open record (its note stays; the note sent here is out_note)",
    description: `${TIME_INPUT}. ${rulesConflict}.`,
    request: { headers: idempotencyKeyHeader, body: { ...jsonBody(punchOutSchema.meta({ id: 'PunchOut' })), required: false } },
    responses: { 200: jsonResponse('The closed record', attendanceSchema), ...writeProblems },
  });
  registry.registerPath({
    method: 'get',
    path: '/attendance',
    operationId: 'listAttendance',
    tags,
    security,
    summary: 'The records the caller may read, newest first',
    description:
      '`updated_since` keeps the records created or changed at or after that instant (corrections included): with GET /attendance/deleted, a delta sync.',
    request: { query: attendanceListQuery },
    responses: {
      200: jsonResponse('A page of records', pageSchema(attendanceSchema, 'AttendancePage')),
      ...problems(400, 401, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/attendance',
    operationId: 'createAttendance',
    tags,
    security,
    summary: 'Add a complete record (admins, or managers for direct reports)',
    description: rulesConflict,
    request: { headers: idempotencyKeyHeader, body: jsonBody(newRecordSchema.meta({ id: 'AttendanceCreate' })) },
    responses: { 201: jsonResponse('The new record', attendanceSchema, location), ...writeProblems },
  });
  registry.registerPath({
    method: 'get',
    path: '/attendance/{id}',
    operationId: 'getAttendance',
    tags,
    security,
    summary: 'One record, with its ETag',
    description:
      'The answer carries a strong `ETag` that changes with every change of the record. Send it back in `If-None-Match` to be answered 304 without a body while nothing changed, or in `If-Match` on a correction or deletion.',
    request: { params: id, headers: ifNoneMatchHeader },
    responses: {
      200: jsonResponse('The record', attendanceSchema, ETAG_HEADER),
      304: NOT_MODIFIED,
      ...problems(401, 404, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/attendance/deleted',
    operationId: 'listDeletedAttendance',
    tags,
    security,
    summary: 'Attendance records deleted since an instant, oldest first (the deletion feed of a copy kept in sync)',
    description:
      "Every deletion counts: DELETE /attendance/{id}, an employee's deletion (their records go with them), a terminal upload that derives an employee's records again, an IceHrm import that withdraws a record. Visibility as for the live records, as it was at the deletion: admins see every deletion; managers those of their own records and of the employees whose supervisor they were then; employees their own. Kept at least 90 days.",
    request: { query: deletionFeedQuery },
    responses: {
      200: jsonResponse('A page of deleted records', pageSchema(deletedAttendanceSchema, 'DeletedAttendancePage')),
      ...problems(400, 401, ...COMMON_PROBLEMS),
    },
  });
  for (const method of ['put', 'patch'] as const) {
    registry.registerPath({
      method,
      path: '/attendance/{id}',
      operationId: method === 'put' ? 'updateAttendance' : 'patchAttendance',
      tags,
      security,
      summary: "Correct a record (admins, or managers for direct reports' records): only the sent fields change",
      description: `out_time null reopens the record. ${rulesConflict}. With \`If-Match\` (an ETag of the record, or \`*\`) the correction is made only if the record is still as read, else 412 and nothing is written; the answer carries the new ETag.`,
      request: {
        params: id,
        headers: conditionalWriteHeaders,
        body: jsonBody(correctionDocumentSchema.meta({ id: 'AttendanceCorrection' })),
      },
      responses: {
        200: jsonResponse('The corrected record', attendanceSchema, ETAG_HEADER),
        ...problems(400, 401, 404, 409, 412, 413, 415, 422, ...COMMON_PROBLEMS),
      },
    });
  }
  registry.registerPath({
    method: 'delete',
    path: '/attendance/{id}',
    operationId: 'deleteAttendance',
    tags,
    security,
    summary: 'Delete a record (admins)',
    description:
      'With `If-Match` the record is deleted only if it is still as read, else 412 and nothing is deleted. 409 `period_locked` for a record that counts on a date of a locked pay period (docs/pay-periods.md).',
    request: { params: id, headers: conditionalWriteHeaders },
    responses: {
      200: jsonResponse('Deleted', z.strictObject({ id: idString })),
      ...problems(401, 403, 404, 412, ...DELETE_PROBLEMS, ...COMMON_PROBLEMS),
    },
  });
  for (const path of ['/employees/{id}/attendance', '/employee/{id}/attendance']) {
    registry.registerPath({
      method: 'get',
      path,
      operationId: path.startsWith('/employee/') ? 'listEmployeeAttendanceIceHrm' : 'listEmployeeAttendance',
      tags,
      security,
      summary: `An employee's records, newest first${path.startsWith('/employee/') ? " (IceHrm's path)" : ''}`,
      description: "`from` and `to` are calendar dates, both included, in the employee's time zone.",
      request: { params: id, query: employeeAttendanceQuery },
      responses: {
        200: jsonResponse('A page of records', pageSchema(attendanceSchema, 'AttendancePage')),
        ...problems(400, 401, 404, ...COMMON_PROBLEMS),
      },
    });
  }
  registry.registerPath({
    method: 'get',
    path: '/employees/{id}/attendance/summary',
    operationId: 'getAttendanceSummary',
    tags,
    security,
    summary: "Totals of an employee's records, as IceHrm counts them",
    description:
      "A record belongs to the date its in_time shows. `total`, `totalHours`, `thisMonth` and `avgHours` have IceHrm's meaning; `closed` and `thisMonthHours` are this server's own. Hours are summed from whole seconds and rounded to 2 decimals.",
    request: { params: id, query: attendanceSummaryQuery },
    responses: {
      200: jsonResponse(
        'The summary',
        z
          .strictObject({
            total: int64(0).meta({
              description: 'Records whose in_time falls in from..to (all without a range), open ones included',
              example: 4,
            }),
            totalHours: z.number().meta({ description: 'Hours of the closed ones among them', example: 25.17 }),
            thisMonth: int64(0).meta({
              description:
                "Records whose in_time falls in the current calendar month of the employee's zone, open ones included, whatever the range",
              example: 3,
            }),
            avgHours: z
              .number()
              .meta({ description: 'totalHours / total (open records count in total); 0 without records', example: 6.29 }),
            closed: int64(0).meta({ description: 'The closed records among total', example: 3 }),
            thisMonthHours: z.number().meta({ description: 'Hours of the closed records among thisMonth', example: 16.67 }),
          })
          .meta({ id: 'AttendanceSummary' }),
      ),
      ...problems(400, 401, 404, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/employee/{id}/open-punch-in/{date}',
    operationId: 'getOpenPunchIn',
    tags,
    security,
    summary: "The employee's open record begun on or before a date (or today), and their wall-clock time now",
    request: {
      params: z.object({
        id: idString,
        date: z
          .string()
          .regex(/^(\d{4}-\d{2}-\d{2}|today)$/)
          .max(10)
          .meta({ pattern: `^(?:${CALENDAR_DATE}|today)$` })
          .meta({ description: 'YYYY-MM-DD or today', example: 'today' }),
      }),
    },
    responses: {
      200: jsonResponse(
        'The open record, if any',
        z.strictObject({ attendance: z.union([attendanceSchema, z.null()]), time: wallClock }).meta({ id: 'OpenPunchIn' }),
      ),
      ...problems(400, 401, 404, ...COMMON_PROBLEMS),
    },
  });
}
