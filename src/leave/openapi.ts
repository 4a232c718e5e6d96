import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { deletionFeedQuery } from '../deletions/tombstones';
import {
  COMMON_PROBLEMS,
  DELETE_PROBLEMS,
  ETAG_HEADER,
  idempotencyKeyHeader,
  idString,
  int32,
  ifMatchHeader,
  ifNoneMatchHeader,
  jsonBody,
  jsonResponse,
  NOT_MODIFIED,
  pageSchema,
  problems,
  requiredReferenceSchema,
} from '../http/openapi';
import {
  calendarDate,
  employeeLeaveQuery,
  holidayCreate,
  holidayImport,
  holidayListQuery,
  LEAVE_STATUS_VALUES,
  leaveCode,
  leaveCreate,
  leaveListQuery,
  leaveReplace,
  leaveTypeCreate,
  leaveTypeListQuery,
  leaveTypeReplace,
  PORTIONS,
} from './schemas';
import { leaveSettingsSchema, leaveSettingsUpdate } from './settings';

const timestamp = z.string().max(30).meta({ format: 'date-time', example: '2026-11-22T11:00:00.000Z' });

export const leaveTypeSchema = z
  .strictObject({
    id: idString,
    name: z.string().max(100),
    paid: z.boolean(),
    code: leaveCode.nullable(),
    private: z.boolean(),
    include_holidays: z.boolean(),
  })
  .meta({ id: 'LeaveType', description: 'A kind of leave (docs/leave.md)' });

export const leaveSchema = z
  .strictObject({
    id: idString,
    employee: requiredReferenceSchema('Employee'),
    leave_type: requiredReferenceSchema('LeaveType'),
    start_date: calendarDate,
    end_date: calendarDate,
    days: z.array(z.strictObject({ date: calendarDate, portion: z.enum(PORTIONS), hours: z.number().min(0).max(24).optional() })).max(366),
    status: z.enum(LEAVE_STATUS_VALUES),
    note: z.string().max(1000).nullable(),
    decided_by: requiredReferenceSchema('User').nullable().meta({ description: 'The user who approved or rejected it' }),
    decided_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Leave', description: 'A leave: the days an employee takes off, and its status (docs/leave.md)' });

const holidaySchema = z
  .strictObject({
    id: idString,
    date: calendarDate,
    name: z.string().max(150),
    portion: z.enum(['full', 'half']),
    country: z.string().length(2).nullable().meta({ description: 'ISO 3166-1 alpha-2; null: everyone' }),
    paid: z.boolean(),
  })
  .meta({ id: 'Holiday', description: 'A holiday: of one country, or of everyone' });

const deletedLeaveSchema = z
  .strictObject({ id: idString.meta({ description: "The deleted leave's id" }), deleted_at: timestamp })
  .meta({ id: 'DeletedLeave', description: 'A leave deleted (a tombstone, kept at least 90 days)' });

const idParam = z.object({ id: idString });
const conditionalWriteHeaders = idempotencyKeyHeader.extend(ifMatchHeader.shape);
const location = z.object({ Location: z.string() });

/** /leave-types, /leaves, /employees/{id}/leaves, /holidays and /leave-settings. */
export function describeLeave(registry: OpenAPIRegistry): void {
  const tags = ['Leave'];
  const security = [{ bearer: [] }];
  const writeProblems = problems(400, 401, 404, 409, 413, 415, 422, ...COMMON_PROBLEMS);
  const path = (config: Omit<Parameters<OpenAPIRegistry['registerPath']>[0], 'tags' | 'security'>) =>
    registry.registerPath({ tags, security, ...config });

  path({
    method: 'get',
    path: '/leave-types',
    operationId: 'listLeaveTypes',
    summary: 'The leave types (everyone signed in)',
    request: { query: leaveTypeListQuery },
    responses: {
      200: jsonResponse('A page of leave types', pageSchema(leaveTypeSchema, 'LeaveTypePage')),
      ...problems(400, 401, ...COMMON_PROBLEMS),
    },
  });
  path({
    method: 'post',
    path: '/leave-types',
    operationId: 'createLeaveType',
    summary: 'Add a leave type (admins)',
    description:
      'Defaults: paid true, code PTO when paid (null when unpaid: a code on an unpaid type is 422), private true, include_holidays false. A name in use: 409 `duplicate`.',
    request: { headers: idempotencyKeyHeader, body: jsonBody(leaveTypeCreate) },
    responses: { 201: jsonResponse('The leave type', leaveTypeSchema, location), ...writeProblems },
  });
  path({
    method: 'get',
    path: '/leave-types/{id}',
    operationId: 'getLeaveType',
    summary: 'One leave type',
    request: { params: idParam },
    responses: { 200: jsonResponse('The leave type', leaveTypeSchema), ...problems(401, 404, ...COMMON_PROBLEMS) },
  });
  path({
    method: 'put',
    path: '/leave-types/{id}',
    operationId: 'replaceLeaveType',
    summary: 'Replace a leave type (admins); omitted fields take their defaults',
    description:
      'A new `code` or `paid` reopens the approved timesheets of open periods holding its approved leave (`leave_changed`); locked periods keep the hours frozen at their lock.',
    request: { params: idParam, headers: idempotencyKeyHeader, body: jsonBody(leaveTypeReplace) },
    responses: { 200: jsonResponse('The leave type', leaveTypeSchema), ...writeProblems },
  });
  path({
    method: 'delete',
    path: '/leave-types/{id}',
    operationId: 'deleteLeaveType',
    summary: 'Delete a leave type no leave uses (admins); one in use: 409 `in_use`',
    request: { params: idParam, headers: idempotencyKeyHeader },
    responses: {
      200: jsonResponse('The deleted type', z.strictObject({ id: idString }).meta({ id: 'LeaveTypeDeleted' })),
      ...problems(401, 404, ...DELETE_PROBLEMS, ...COMMON_PROBLEMS),
    },
  });

  const leaveList =
    'Leaves overlapping [from, to], oldest start first, of the employees whose attendance the caller may read (admins: all; managers: themselves and their direct reports; employees: themselves).';
  path({
    method: 'get',
    path: '/leaves',
    operationId: 'listLeaves',
    summary: 'Leaves the caller may see',
    description: leaveList,
    request: { query: leaveListQuery },
    responses: { 200: jsonResponse('A page of leaves', pageSchema(leaveSchema, 'LeavePage')), ...problems(400, 401, ...COMMON_PROBLEMS) },
  });
  path({
    method: 'post',
    path: '/leaves',
    operationId: 'createLeave',
    summary: 'Request leave (employees for themselves, managers for direct reports too; admins for anyone, also approved)',
    description:
      "`days` defaults to `full` on every workday of the range (a date with a published shift, or a working day of the work week that is not a holiday of the employee, unless the type `include_holidays`). A range backwards or of a year or more, a day outside the range, `hours` above the day's hours, an unknown type or employee: 422 naming the field, nothing written. A date another pending or approved leave of the employee holds: 409 `leave_overlap`. A date of a locked pay period: 409 `period_locked`.",
    request: { headers: idempotencyKeyHeader, body: jsonBody(leaveCreate) },
    responses: { 201: jsonResponse('The leave', leaveSchema, location.extend(ETAG_HEADER.shape)), ...writeProblems },
  });
  path({
    method: 'get',
    path: '/leaves/deleted',
    operationId: 'listDeletedLeaves',
    summary: 'Leaves deleted since an instant, oldest first (the deletion feed of a copy kept in sync)',
    request: { query: deletionFeedQuery },
    responses: {
      200: jsonResponse('A page of deleted leaves', pageSchema(deletedLeaveSchema, 'DeletedLeavePage')),
      ...problems(400, 401, ...COMMON_PROBLEMS),
    },
  });
  path({
    method: 'get',
    path: '/leaves/{id}',
    operationId: 'getLeave',
    summary: 'One leave, with its ETag',
    request: { params: idParam, headers: ifNoneMatchHeader },
    responses: {
      200: jsonResponse('The leave', leaveSchema, ETAG_HEADER),
      304: NOT_MODIFIED,
      ...problems(400, 401, 404, ...COMMON_PROBLEMS),
    },
  });
  path({
    method: 'put',
    path: '/leaves/{id}',
    operationId: 'replaceLeave',
    summary:
      'Change a pending or approved leave: its type, range, days and note (the employee while pending; approvers and admins any time)',
    description:
      'The fields as POST /leaves takes them (omitted `days`: full on each workday); the read shape may be sent back, its read-only members are ignored. The status stays. 422 as POST; a rejected or cancelled leave: 409 `leave_not_pending`; a date another live leave holds: 409 `leave_overlap`; an old or new date of a locked pay period: 409 `period_locked`. With `If-Match` only if it is still as read (else 412).',
    request: { params: idParam, headers: conditionalWriteHeaders, body: jsonBody(leaveReplace) },
    responses: {
      200: jsonResponse('The leave', leaveSchema, ETAG_HEADER),
      ...problems(400, 401, 404, 409, 412, 413, 415, 422, ...COMMON_PROBLEMS),
    },
  });
  path({
    method: 'delete',
    path: '/leaves/{id}',
    operationId: 'deleteLeave',
    summary: 'Delete a leave (admins)',
    description:
      'With `If-Match` only if it is still as read (else 412). A pending or approved leave on a date of a locked pay period: 409 `period_locked`.',
    request: { params: idParam, headers: conditionalWriteHeaders },
    responses: {
      200: jsonResponse('The deleted leave', z.strictObject({ id: idString }).meta({ id: 'LeaveDeleted' })),
      ...problems(401, 404, 412, ...DELETE_PROBLEMS, ...COMMON_PROBLEMS),
    },
  });
  const transition = (action: 'approve' | 'reject' | 'cancel', summary: string, description: string) =>
    path({
      method: 'post',
      path: `/leaves/{id}/${action}`,
      operationId: `${action}Leave`,
      summary,
      description: `${description} With \`If-Match\` only if it is still as read (else 412). A date of a locked pay period: 409 \`period_locked\`.`,
      request: { params: idParam, headers: conditionalWriteHeaders },
      responses: {
        200: jsonResponse('The leave', leaveSchema, ETAG_HEADER),
        ...problems(400, 401, 404, 409, 412, 413, 415, 422, ...COMMON_PROBLEMS),
      },
    });
  transition(
    'approve',
    'Approve a pending leave (admins; managers for direct reports, never their own)',
    'A leave that is not pending: 409 `leave_not_pending`.',
  );
  transition(
    'reject',
    'Reject a pending leave (admins; managers for direct reports, never their own)',
    'A leave that is not pending: 409 `leave_not_pending`. Its dates are free again.',
  );
  transition(
    'cancel',
    'Cancel a leave (the employee while pending; approvers and admins at any time)',
    'A rejected or cancelled leave: 409 `leave_not_pending`. Its dates are free again.',
  );
  path({
    method: 'get',
    path: '/employees/{id}/leaves',
    operationId: 'listEmployeeLeaves',
    summary: "An employee's leaves (IceHrm's path)",
    request: { params: idParam, query: employeeLeaveQuery },
    responses: {
      200: jsonResponse('A page of leaves', pageSchema(leaveSchema, 'LeavePage')),
      ...problems(400, 401, 404, ...COMMON_PROBLEMS),
    },
  });

  path({
    method: 'get',
    path: '/holidays',
    operationId: 'listHolidays',
    summary: 'The holidays (everyone signed in)',
    request: { query: holidayListQuery },
    responses: {
      200: jsonResponse('A page of holidays', pageSchema(holidaySchema, 'HolidayPage')),
      ...problems(400, 401, ...COMMON_PROBLEMS),
    },
  });
  path({
    method: 'post',
    path: '/holidays',
    operationId: 'createHoliday',
    summary: 'Add a holiday (admins)',
    description:
      'Approved timesheets of open periods whose holiday hours it moves go back to open (`holidays_changed`); a locked period keeps the hours frozen at its lock.',
    request: { headers: idempotencyKeyHeader, body: jsonBody(holidayCreate) },
    responses: { 201: jsonResponse('The holiday', holidaySchema, location), ...writeProblems },
  });
  path({
    method: 'post',
    path: '/holidays/import',
    operationId: 'importHolidays',
    summary: "Add a country's (and region's) public holidays of a year from the holiday library (admins)",
    description:
      'Idempotent: holidays already stored (same country, date and name) are skipped, and stored rows never change when the library does. A holiday of several days is a row on each of its dates. Approved timesheets of open periods whose holiday hours the new rows move go back to open (`holidays_changed`). Holiday data: date-holidays (docs/decisions.md, "Holiday data").',
    request: { headers: idempotencyKeyHeader, body: jsonBody(holidayImport) },
    responses: {
      200: jsonResponse(
        'How many were added and how many were there already',
        z.strictObject({ imported: int32(0, 1000), skipped: int32(0, 1000) }).meta({ id: 'HolidayImportResult' }),
      ),
      ...writeProblems,
    },
  });
  path({
    method: 'delete',
    path: '/holidays/{id}',
    operationId: 'deleteHoliday',
    summary: 'Delete a holiday (admins)',
    description:
      'Approved timesheets of open periods whose holiday hours it moves go back to open (`holidays_changed`); a locked period keeps the hours frozen at its lock.',
    request: { params: idParam, headers: idempotencyKeyHeader },
    responses: {
      200: jsonResponse('The deleted holiday', z.strictObject({ id: idString }).meta({ id: 'HolidayDeleted' })),
      ...problems(401, 404, ...DELETE_PROBLEMS, ...COMMON_PROBLEMS),
    },
  });
  path({
    method: 'get',
    path: '/leave-settings',
    operationId: 'getLeaveSettings',
    summary: 'The work week and the hours of a day (everyone signed in)',
    responses: { 200: jsonResponse('The settings', leaveSettingsSchema), ...problems(401, ...COMMON_PROBLEMS) },
  });
  path({
    method: 'put',
    path: '/leave-settings',
    operationId: 'updateLeaveSettings',
    summary: 'Change the work week or the hours of a day (admins); omitted fields stay',
    description:
      'Approved timesheets of open periods whose leave or holiday hours the change moves go back to open (`leave_settings_changed`); locked periods keep the hours frozen at their lock.',
    request: { headers: idempotencyKeyHeader, body: jsonBody(leaveSettingsUpdate) },
    responses: { 200: jsonResponse('The settings', leaveSettingsSchema), ...problems(400, 401, 409, 413, 415, 422, ...COMMON_PROBLEMS) },
  });
}
