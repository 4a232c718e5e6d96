import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { DAY_FLAGS, DAY_STATUSES } from '../day-rules/types';
import { COMMON_PROBLEMS, idString, int32, jsonResponse, pageSchema, problems, requiredReferenceSchema } from '../http/openapi';
import { queryDate } from '../shifts/shift-queries';
import { daysListQuery, employeeDaysQuery } from './routes';

// The query dates as the document states them: routes.ts refuses any value but a real date
// YYYY-MM-DD (isCalendarDate), which is 10 characters; queryDate says so with its maxLength.
const employeeDaysParameters = employeeDaysQuery.safeExtend({
  from: queryDate,
  to: queryDate.meta({ description: employeeDaysQuery.shape.to.meta()?.description }),
});
const daysListParameters = daysListQuery.safeExtend({ date: queryDate });
// A day's late or early minutes add up over its shifts; a 32-bit integer holds any sum.
const dayMinutes = int32(0, 2_147_483_647);

export const daySchema = z
  .strictObject({
    employee: requiredReferenceSchema('Employee'),
    date: queryDate,
    status: z.enum(DAY_STATUSES),
    late_minutes: dayMinutes,
    early_exit_minutes: dayMinutes,
    planned_hours: z.number().min(0),
    worked_hours: z.number().min(0),
    shifts: z.array(idString).meta({ description: "The day's published shifts" }),
    attendance: z
      .array(idString)
      .meta({ description: 'The records counted on the day (matched to its shifts, or starting on it without one)' }),
    leave: idString.nullable(),
    holiday: idString.nullable(),
    flags: z.array(z.enum(DAY_FLAGS)).max(DAY_FLAGS.length).meta({ description: 'Each flag at most once' }),
  })
  .meta({ id: 'Day', description: "An employee's day: plan versus actual, computed at every read (docs/schedules.md)" });

export function describeDays(registry: OpenAPIRegistry): void {
  const tags = ['Schedules'];
  const security = [{ bearer: [] }];
  const page = pageSchema(daySchema, 'DayPage');
  registry.registerPath({
    method: 'get',
    path: '/employees/{id}/days',
    operationId: 'listEmployeeDays',
    tags,
    security,
    summary: "An employee's day statuses from..to (at most 62 days), with the visibility of attendance",
    description: 'Dates before joined_date or after termination_date have no row.',
    request: { params: z.object({ id: idString }), query: employeeDaysParameters },
    responses: { 200: jsonResponse('The days, oldest first', page), ...problems(400, 401, 404, ...COMMON_PROBLEMS) },
  });
  registry.registerPath({
    method: 'get',
    path: '/days',
    operationId: 'listDays',
    tags,
    security,
    summary: 'The day status of every employee the caller may read on a date, by employee id',
    request: { query: daysListParameters },
    responses: { 200: jsonResponse('A page of days', page), ...problems(400, 401, ...COMMON_PROBLEMS) },
  });
}
