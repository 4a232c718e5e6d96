import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  COMMON_PROBLEMS,
  idempotencyKeyHeader,
  idString,
  ifNoneMatchHeader,
  int32,
  jsonBody,
  jsonResponse,
  openRecordSchema,
  pageSchema,
  problems,
  requiredReferenceSchema,
} from '../http/openapi';
import { REOPEN_REASONS } from '../period-guard/approved-numbers';
import {
  exportQuery,
  lockQuery,
  payPeriodSettingsSchema,
  payPeriodSettingsUpdateSchema,
  periodListQuery,
  periodQuery,
  timesheetListQuery,
} from './schemas';

const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .max(10)
  .meta({ format: 'date', example: '2026-11-01' });
const instant = z.string().max(30).meta({ format: 'date-time', example: '2026-12-02T09:00:00.000Z' });
const hours = z.number().min(0).max(100_000).meta({ description: 'Hours, rounded to 2 decimals (half up) from exact seconds', example: 8 });

export const payPeriodSchema = z
  .strictObject({
    start: date,
    end: date.meta({ description: 'The last date of the period (inclusive)' }),
    status: z.enum(['open', 'locked']),
    locked_at: instant.nullable().meta({ description: 'null while open' }),
    locked_by: z
      .string()
      .max(100)
      .nullable()
      .meta({ description: 'The username that locked it (`cli`: hrm pay-period lock); null while open' }),
    lock_version: int32(1, 2_147_483_647)
      .nullable()
      .meta({ description: 'Which lock of the period this is: 1, then 2 after an unlock and a new lock, …; null while open' }),
  })
  .meta({ id: 'PayPeriod', description: 'A pay period (docs/pay-periods.md)' });

const openRecords = z.array(openRecordSchema).max(10_000_000).optional().meta({
  description:
    'The records counted in the period without an out_time (missed punch-outs once locked), by employee id and start; absent when there are none',
});

/** The lock's answer, and the data of the event pay_period.locked. */
export const lockedPayPeriodSchema = payPeriodSchema
  .extend({ open_records: openRecords })
  .meta({ id: 'LockedPayPeriod', description: 'A pay period just locked, with its records left without a punch-out' });

const totalsSchema = z.strictObject({
  worked_hours: hours,
  regular_hours: hours,
  overtime_hours: hours,
  double_time_hours: hours,
  leave_hours: hours.meta({ description: 'Approved paid leave (docs/leave.md); never counts towards overtime' }),
  holiday_hours: hours.meta({ description: 'Paid holidays (docs/leave.md); never counts towards overtime' }),
});

const timesheetFields = {
  employee: requiredReferenceSchema('Employee'),
  period: z.strictObject({ start: date, end: date, status: z.enum(['open', 'locked']) }),
  status: z.enum(['open', 'approved']),
  approved_at: instant.nullable().meta({ description: 'null unless approved' }),
  approved_by: z.string().max(100).nullable().meta({ description: 'The username that approved it; null unless approved' }),
  reopened_reason: z.enum(REOPEN_REASONS).nullable().meta({
    description:
      'Why an approved timesheet is open again: `reopened` (POST .../reopen), `attendance_changed` (a write changed its numbers), `rules_changed` (PUT /pay-periods/settings or a change of the rules of the employee’s pay group changed them), `leave_changed` (a leave on its dates, or a leave type, moved its leave hours), `holidays_changed` (a holiday added, imported or deleted moved its holiday hours), `leave_settings_changed` (PUT /leave-settings moved its leave or holiday hours); null while approved or never approved',
  }),
  totals: totalsSchema.meta({ description: 'Rounded from the exact sums of seconds' }),
  open_records: int32(0, 1_000_000).meta({ description: 'Records begun in the period and not closed: they count nothing' }),
};

export const timesheetSchema = z
  .strictObject({
    ...timesheetFields,
    days: z
      .array(
        z.strictObject({
          date,
          worked_hours: hours,
          regular_hours: hours,
          overtime_hours: hours,
          double_time_hours: hours,
          break_deducted_hours: hours.meta({
            description: "The meal break deducted from this date's worked time by its pay group's `meal_break` (0 when none)",
          }),
          records: int32(0, 100_000).meta({ description: 'Closed records counted on this date' }),
          leave_hours: hours.meta({ description: 'Approved paid leave of this date' }),
          holiday_hours: hours.meta({ description: 'A paid holiday of this date' }),
          code: z.string().max(20).nullable().meta({ description: "The export code of this date's paid leave (PTO or its type's code)" }),
        }),
      )
      .max(31)
      .meta({ description: 'Every date of the period, zeros included' }),
  })
  .meta({ id: 'Timesheet', description: "An employee's hours in a pay period, classified (docs/pay-periods.md)" });

const timesheetSummarySchema = z
  .strictObject(timesheetFields)
  .meta({ id: 'TimesheetSummary', description: 'A timesheet without its days' });

/** The data of the events timesheet.approved and timesheet.reopened. */
export const timesheetEventSchema = z
  .strictObject({
    employee: idString,
    period_start: date,
    period_end: date,
    status: z.enum(['open', 'approved']),
    approved_at: instant.nullable().optional(),
    approved_by: z.string().max(100).nullable().optional(),
    reason: z.enum(REOPEN_REASONS).optional().meta({
      description:
        'timesheet.reopened: by hand (POST .../reopen), because a write changed its numbers, because a change of the rules did, or because leave, holidays or the leave settings moved its leave or holiday hours (the values of `reopened_reason`)',
    }),
  })
  .meta({ id: 'TimesheetEvent' });

const startParam = z.object({ start: date.meta({ description: 'The first date of the pay period (its name)' }) });
const employeeStart = z.object({ id: idString, start: date.meta({ description: 'The first date of the pay period' }) });

const exportRowSchema = z.strictObject({
  employee_id: z.string().max(50).meta({ description: "The employee's code" }),
  employee: idString,
  date,
  code: z
    .string()
    .max(20)
    .meta({ description: "`REG`, `OT`, `DT`, a paid leave type's code (default `PTO`) or `HOL` (docs/leave.md)", example: 'REG' }),
  hours: z.number().gt(0).meta({ description: 'Hours with 2 decimals', example: 8 }),
  timesheet_status: z.enum(['open', 'approved']),
});

/** The export's `period`: as it always was, without lock_version (the bytes of a locked period's export never change). */
const exportedPeriodSchema = payPeriodSchema.omit({ lock_version: true }).meta({ id: 'ExportedPayPeriod' });

const adjustmentRowSchema = exportRowSchema.extend({
  hours: z
    .number()
    .refine((value) => value !== 0)
    .meta({ description: 'The change of hours since the version, signed, 2 decimals (never 0)', example: -6 }),
});

const etagHeader = { ETag: z.string().max(64).meta({ description: 'A strong ETag of the export; send it back in If-None-Match' }) };

export function describePayPeriods(registry: OpenAPIRegistry): void {
  const tags = ['Pay periods'];
  const security = [{ bearer: [] }];
  const writeProblems = problems(400, 401, 404, 409, 413, 415, 422, ...COMMON_PROBLEMS);
  registry.registerPath({
    method: 'get',
    path: '/pay-periods/settings',
    operationId: 'getPayPeriodSettings',
    tags,
    security,
    summary: 'The pay-period layout and overtime rules (admins)',
    responses: { 200: jsonResponse('The settings', payPeriodSettingsSchema), ...problems(401, ...COMMON_PROBLEMS) },
  });
  registry.registerPath({
    method: 'put',
    path: '/pay-periods/settings',
    operationId: 'updatePayPeriodSettings',
    tags,
    security,
    summary: 'Change the pay-period settings (admins); omitted keys keep their value',
    description: 'Invalid keys are 422, each named. Locked periods keep the dates and numbers they were locked with whatever changes here.',
    request: { headers: idempotencyKeyHeader, body: jsonBody(payPeriodSettingsUpdateSchema) },
    responses: {
      200: jsonResponse('The settings now', payPeriodSettingsSchema),
      ...problems(400, 401, 409, 413, 415, 422, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/pay-periods',
    operationId: 'listPayPeriods',
    tags,
    security,
    summary: 'The pay periods meeting from..to, newest first (admins and managers)',
    description:
      'Default range: the 365 days up to today (UTC); at most 3660 days (400 beyond). Locked periods are listed with the dates they were locked with.',
    request: { query: periodListQuery },
    responses: {
      200: jsonResponse('A page of periods', pageSchema(payPeriodSchema, 'PayPeriodPage')),
      ...problems(400, 401, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/pay-periods/{start}',
    operationId: 'getPayPeriod',
    tags,
    security,
    summary: "The pay period of a pay group starting on a date (admins and managers); 404 when none of the group's starts there",
    description: 'A `group` no pay group has: 400 `invalid_query` naming `group`.',
    request: { params: startParam, query: periodQuery },
    responses: { 200: jsonResponse('The period', payPeriodSchema), ...problems(400, 401, 404, ...COMMON_PROBLEMS) },
  });
  registry.registerPath({
    method: 'post',
    path: '/pay-periods/{start}/lock',
    operationId: 'lockPayPeriod',
    tags,
    security,
    summary: 'Lock a pay period (admins): its numbers are frozen and writes into its dates refused',
    description:
      "The period of the pay group `group` names (default 1), locked for that group's employees only (a group no pay group has: 400 naming `group`). 409 codes: `period_not_ended` (until the day after its end has begun on the wall clock of every employee of the group, in their time zones), `period_locked` (already locked, or overlapping a locked period), `open_records` (a record counted in the period has no punch-out; they are listed in the problem's `open_records`; `allow_open_records=true` locks anyway and makes them missed punch-outs), `unapproved_timesheets` with `require_approved=true` (the employees are listed in `errors`).",
    request: { params: startParam, query: lockQuery, headers: idempotencyKeyHeader },
    responses: { 200: jsonResponse('The period, locked', lockedPayPeriodSchema), ...writeProblems },
  });
  registry.registerPath({
    method: 'post',
    path: '/pay-periods/{start}/unlock',
    operationId: 'unlockPayPeriod',
    tags,
    security,
    summary: 'Unlock a pay period of a pay group (admins); 409 `period_not_locked` when it is open',
    request: { params: startParam, query: periodQuery, headers: idempotencyKeyHeader },
    responses: { 200: jsonResponse('The period, open', payPeriodSchema), ...writeProblems },
  });
  registry.registerPath({
    method: 'get',
    path: '/pay-periods/{start}/export',
    operationId: 'exportPayPeriod',
    tags,
    security,
    summary: 'The payroll export of a period in an export profile (admins), streamed',
    description:
      "CSV (RFC 4180) in the profile `profile` names (GET /export-profiles; default `default`: `employee_id,employee,date,code,hours,timesheet_status`, one row per employee, date and code (`REG`, `OT`, `DT`) with hours, ordered by the employee code (bytes), date, code); its file name from the profile's pattern. JSON keeps the default rows whatever the profile. Per employee and code the rows add up to the timesheet's total (largest-remainder rounding); no row has zero hours unless the profile has `include_zero`. A profile that does not exist: 400 naming `profile`. A locked period answers the same bytes on every call. Send the ETag back in If-None-Match: 304 while unchanged. At most `EXPORT_CONCURRENCY` exports (default 2) are streamed at once per instance, and `EXPORT_PROCESS_CONCURRENCY` (default 4) per server process across instances; one more is refused at once with 429 `too_many_exports` and `Retry-After` (a 304 takes no turn). CSV text cells beginning with `=`, `+`, `-`, `@`, tab or CR get a leading apostrophe. JSON: `{period, rows}`, and `open_records` when records counted in the period have no out_time (missed punch-outs once locked). With `since_version=N` (docs/pay-periods.md, \"Adjustments after a re-lock\"): only the difference between lock version N and the current lock, one row per employee, date and code whose hours changed (a wide profile: per employee, each code's change), hours signed (`-6.00`, `6.00`), same layout and profile, file name ending `-since-vN`; JSON `{period, since_version, lock_version, rows}`. N the current version: no rows. The period open: 409 `period_not_locked`; N no lock of the period: 404; N not a whole number from 1: 400 naming `since_version`. Its own ETag per version.",
    request: {
      params: startParam,
      query: exportQuery,
      headers: ifNoneMatchHeader,
    },
    responses: {
      200: {
        description: 'The export (Content-Disposition: attachment)',
        headers: z.object({ ...etagHeader, 'Content-Disposition': z.string().max(300) }),
        content: {
          'text/csv': {
            schema: z
              .string()
              .max(2_000_000_000)
              .meta({ example: 'employee_id,employee,date,code,hours,timesheet_status\r\nE001,7,2026-11-02,REG,8.00,approved\r\n' }),
          },
          'application/json': {
            schema: z.union([
              z
                .strictObject({ period: exportedPeriodSchema, rows: z.array(exportRowSchema).max(10_000_000), open_records: openRecords })
                .meta({ id: 'PayPeriodExport' }),
              z
                .strictObject({
                  period: exportedPeriodSchema,
                  since_version: int32(1, 2_147_483_647).meta({ description: 'The lock version compared with' }),
                  lock_version: int32(1, 2_147_483_647).meta({ description: 'The current lock version' }),
                  rows: z.array(adjustmentRowSchema).max(10_000_000),
                })
                .meta({ id: 'PayPeriodAdjustment', description: 'With since_version: the rows whose hours changed, signed' }),
            ]),
          },
        },
      },
      304: { description: 'Not modified: If-None-Match named the current ETag', headers: z.object(etagHeader) },
      ...problems(400, 401, 404, 409, ...COMMON_PROBLEMS),
    },
  });

  const sheetTags = ['Timesheets'];
  registry.registerPath({
    method: 'get',
    path: '/employees/{id}/timesheets/{start}',
    operationId: 'getTimesheet',
    tags: sheetTags,
    security,
    summary: "An employee's timesheet of a period (admins; managers for themselves and direct reports; employees for themselves)",
    request: { params: employeeStart },
    responses: { 200: jsonResponse('The timesheet', timesheetSchema), ...problems(401, 404, ...COMMON_PROBLEMS) },
  });
  registry.registerPath({
    method: 'post',
    path: '/employees/{id}/timesheets/{start}/approve',
    operationId: 'approveTimesheet',
    tags: sheetTags,
    security,
    summary: 'Approve a timesheet (admins; managers for direct reports, never their own)',
    description: '409 codes: `open_records` (a record of the period is still open), `period_locked`.',
    request: { params: employeeStart, headers: idempotencyKeyHeader },
    responses: { 200: jsonResponse('The timesheet, approved', timesheetSchema), ...writeProblems },
  });
  registry.registerPath({
    method: 'post',
    path: '/employees/{id}/timesheets/{start}/reopen',
    operationId: 'reopenTimesheet',
    tags: sheetTags,
    security,
    summary: 'Reopen an approved timesheet (admins; the manager who approved it)',
    description: '409 `period_locked` while the period is locked.',
    request: { params: employeeStart, headers: idempotencyKeyHeader },
    responses: { 200: jsonResponse('The timesheet, open', timesheetSchema), ...writeProblems },
  });
  registry.registerPath({
    method: 'get',
    path: '/timesheets',
    operationId: 'listTimesheets',
    tags: sheetTags,
    security,
    summary: "A period's timesheets of every employee the caller may see, without their days, by employee id",
    description: 'One per employee with a record in the period or status Active (a locked period: the employees frozen at its lock).',
    request: { query: timesheetListQuery },
    responses: {
      200: jsonResponse('A page of timesheets', pageSchema(timesheetSummarySchema, 'TimesheetPage')),
      ...problems(400, 401, 404, ...COMMON_PROBLEMS),
    },
  });
}
