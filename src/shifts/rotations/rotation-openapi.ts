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
  requiredReferenceSchema,
} from '../../http/openapi';
import { date, idSchema, reference } from '../../http/field-schemas';
import { queryDate } from '../shift-queries';
import { MAX_CYCLE_DAYS, ROTATION_FIELDS } from './rotation-model';
import { rotationListQuery } from './rotation-routes';

const day = queryDate;
const rotationSchema = z
  .strictObject({
    id: idString,
    employee: requiredReferenceSchema('Employee'),
    anchor_date: day,
    cycle: z.array(idString.nullable()).min(1).max(MAX_CYCLE_DAYS).meta({ description: 'Shift type ids; null is a day off' }),
    valid_from: day,
    valid_to: day.nullable(),
    publish: z.boolean(),
  })
  .meta({
    id: 'Rotation',
    description: 'A repeating cycle of shift types whose shifts are kept generated 90 days ahead (docs/schedules.md)',
  });
// The write fields as the server parses them (rotation-model.ts): ids as text, numbers or references.
const writeFields = {
  employee: reference('an employee').meta({ 'x-accepts': 'employee' }),
  anchor_date: day,
  cycle: ROTATION_FIELDS.cycle,
  valid_from: date.optional().meta({ description: 'Default anchor_date' }),
  valid_to: date.optional(),
  publish: z.boolean().optional().meta({ description: 'Generate published shifts (default false: drafts)' }),
};
// A create sends no id (422 if it does); a replacement may send the path's back.
const createSchema = z.strictObject(writeFields).meta({ id: 'RotationCreate' });
const writeSchema = z
  .strictObject({
    id: idSchema('this rotation').meta({ 'x-accepts': 'id', description: 'Read-only: must match the path' }).optional(),
    ...writeFields,
  })
  .meta({ id: 'RotationWrite' });
const idParam = z.object({ id: idString });

export function describeRotations(registry: OpenAPIRegistry): void {
  const tags = ['Schedules'];
  const security = [{ bearer: [] }];
  const writeProblems = problems(400, 401, 404, 409, 413, 415, 422, ...COMMON_PROBLEMS);
  registry.registerPath({
    method: 'get',
    path: '/rotations',
    operationId: 'listRotations',
    tags,
    security,
    summary: "Rotations (admins; managers their direct reports')",
    request: { query: rotationListQuery },
    responses: {
      200: jsonResponse('A page of rotations', pageSchema(rotationSchema, 'RotationPage')),
      ...problems(400, 401, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/rotations',
    operationId: 'createRotation',
    tags,
    security,
    summary: 'Make a rotation; its shifts are generated 90 days ahead at once',
    request: { headers: idempotencyKeyHeader, body: jsonBody(createSchema) },
    responses: { 201: jsonResponse('The rotation', rotationSchema, z.object({ Location: z.string() })), ...writeProblems },
  });
  registry.registerPath({
    method: 'get',
    path: '/rotations/{id}',
    operationId: 'getRotation',
    tags,
    security,
    summary: 'One rotation',
    request: { params: idParam },
    responses: { 200: jsonResponse('The rotation', rotationSchema), ...problems(401, 404, ...COMMON_PROBLEMS) },
  });
  registry.registerPath({
    method: 'put',
    path: '/rotations/{id}',
    operationId: 'replaceRotation',
    tags,
    security,
    summary: 'Replace a rotation: its shifts after today that nobody edited and no locked period holds are generated anew',
    request: { params: idParam, headers: idempotencyKeyHeader, body: jsonBody(writeSchema) },
    responses: { 200: jsonResponse('The rotation', rotationSchema), ...writeProblems },
  });
  registry.registerPath({
    method: 'delete',
    path: '/rotations/{id}',
    operationId: 'deleteRotation',
    tags,
    security,
    summary: 'Delete a rotation and its shifts after today that nobody edited and no locked period holds',
    request: { params: idParam, headers: idempotencyKeyHeader },
    responses: {
      200: jsonResponse('The deleted rotation', z.strictObject({ id: idString }).meta({ id: 'RotationDeleted' })),
      ...problems(401, 404, ...DELETE_PROBLEMS, ...COMMON_PROBLEMS),
    },
  });
}
