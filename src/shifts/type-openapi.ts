import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  COMMON_PROBLEMS,
  DELETE_PROBLEMS,
  idempotencyKeyHeader,
  idString,
  jsonBody,
  jsonResponse,
  pageSchema,
  problems,
} from '../http/openapi';
import { SHIFT_RULE_FIELDS, clockTime } from './type-fields';
import { shiftTypeListQuery } from './type-routes';

const hours = z.number().min(0).max(24).nullable();
const minutes = z.number().int().min(0).max(720).meta({ format: 'int32' });

/** The grace, window and threshold fields, as read (shift types and shifts). */
export const ruleReadFields = {
  unpaid_break_minutes: minutes.meta({ description: 'Unpaid break within the shift (default 0)' }),
  late_grace_minutes: minutes.meta({ description: 'Late only when the first record starts after start + this (default 0)' }),
  early_exit_grace_minutes: minutes.meta({ description: 'An early exit only when the last record ends before end − this (default 0)' }),
  check_in_window_minutes: minutes.meta({
    description: 'A record starting this long before the start still belongs to the shift (default 60)',
  }),
  check_out_window_minutes: minutes.meta({
    description: 'A record starting up to this long after the end still belongs to the shift (default 60)',
  }),
  half_day_below_hours: hours.meta({ description: 'Fewer worked hours than this make a half day (default null: never)' }),
  absent_below_hours: hours.meta({ description: 'Fewer worked hours than this make the day absent (default null: never)' }),
};

export const shiftTypeSchema = z
  .strictObject({
    id: idString,
    name: z.string().max(100),
    start_time: clockTime,
    end_time: clockTime.meta({ description: 'At or before start_time: the shift ends the next day' }),
    ...ruleReadFields,
  })
  .meta({ id: 'ShiftType', description: 'A shift type: the times and rules a shift made from it copies (CONTRACT 6.7)' });

const writeFields = {
  name: z.string().min(1).max(100),
  start_time: clockTime,
  end_time: clockTime,
};
const optionalRules = Object.fromEntries(Object.entries(SHIFT_RULE_FIELDS).map(([name, schema]) => [name, schema.optional()]));
const createSchema = z.strictObject({ ...writeFields, ...optionalRules }).meta({ id: 'ShiftTypeCreate' });
const patchSchema = z
  .strictObject({
    id: idString.optional().meta({ description: 'Read-only: may be sent back, must match the path' }),
    name: writeFields.name.optional(),
    start_time: clockTime.optional(),
    end_time: clockTime.optional(),
    ...optionalRules,
  })
  .meta({ id: 'ShiftTypePatch' });
const replaceSchema = z.strictObject({ id: idString.optional(), ...writeFields, ...optionalRules }).meta({ id: 'ShiftTypeReplace' });
const idParam = z.object({ id: idString });

/** /shift-types. */
export function describeShiftTypes(registry: OpenAPIRegistry): void {
  const tags = ['Schedules'];
  const security = [{ bearer: [] }];
  const writeProblems = problems(400, 401, 404, 409, 413, 415, 422, ...COMMON_PROBLEMS);
  registry.registerPath({
    method: 'get',
    path: '/shift-types',
    operationId: 'listShiftTypes',
    tags,
    security,
    summary: 'The shift types (every authenticated caller)',
    request: { query: shiftTypeListQuery },
    responses: {
      200: jsonResponse('A page of shift types', pageSchema(shiftTypeSchema, 'ShiftTypePage')),
      ...problems(400, 401, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/shift-types',
    operationId: 'createShiftType',
    tags,
    security,
    summary: 'Make a shift type (admins)',
    description: 'A name in use: 409 `duplicate`. `absent_below_hours` above `half_day_below_hours`: 422.',
    request: { headers: idempotencyKeyHeader, body: jsonBody(createSchema) },
    responses: { 201: jsonResponse('The shift type', shiftTypeSchema, z.object({ Location: z.string() })), ...writeProblems },
  });
  registry.registerPath({
    method: 'get',
    path: '/shift-types/{id}',
    operationId: 'getShiftType',
    tags,
    security,
    summary: 'One shift type',
    request: { params: idParam },
    responses: { 200: jsonResponse('The shift type', shiftTypeSchema), ...problems(401, 404, ...COMMON_PROBLEMS) },
  });
  registry.registerPath({
    method: 'put',
    path: '/shift-types/{id}',
    operationId: 'replaceShiftType',
    tags,
    security,
    summary: 'Replace a shift type (admins): omitted rule fields take their defaults; no shift changes',
    request: { params: idParam, headers: idempotencyKeyHeader, body: jsonBody(replaceSchema) },
    responses: { 200: jsonResponse('The shift type', shiftTypeSchema), ...writeProblems },
  });
  registry.registerPath({
    method: 'patch',
    path: '/shift-types/{id}',
    operationId: 'updateShiftType',
    tags,
    security,
    summary: 'Change fields of a shift type (admins); no shift changes',
    request: { params: idParam, headers: idempotencyKeyHeader, body: jsonBody(patchSchema) },
    responses: { 200: jsonResponse('The shift type', shiftTypeSchema), ...writeProblems },
  });
  registry.registerPath({
    method: 'delete',
    path: '/shift-types/{id}',
    operationId: 'deleteShiftType',
    tags,
    security,
    summary: 'Delete a shift type (admins); shifts made from it keep their values and lose the reference',
    request: { params: idParam, headers: idempotencyKeyHeader },
    responses: {
      200: jsonResponse('The deleted shift type', z.strictObject({ id: idString }).meta({ id: 'ShiftTypeDeleted' })),
      ...problems(401, 404, ...DELETE_PROBLEMS, ...COMMON_PROBLEMS),
    },
  });
}
