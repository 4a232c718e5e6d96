import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { COMMON_PROBLEMS, DELETE_PROBLEMS, idempotencyKeyHeader, jsonBody, jsonResponse, pageSchema, problems } from '../http/openapi';
import { payGroupListQuery, payGroupPatchSchema, payGroupReplaceSchema, payGroupSchema, payGroupWriteSchema } from './schemas';

const idParam = z.object({
  id: z
    .string()
    .max(10)
    .regex(/^[1-9][0-9]{0,9}$/)
    .meta({ example: '2' }),
});

const RULES =
  'Every invalid field is a 422 naming it (`overtime.daily_after_hours`, `meal_break.minutes`, `rounding.minutes`, `export_profile` naming no profile), nothing written. A name in use: 409 `duplicate`.';

/** /pay-groups: the period layouts and pay rules employees are paid by (CONTRACT 6.5). */
export function describePayGroups(registry: OpenAPIRegistry): void {
  const tags = ['Pay periods'];
  const security = [{ bearer: [] }];
  const writeProblems = problems(400, 401, 403, 404, 409, 413, 415, 422, ...COMMON_PROBLEMS);
  registry.registerPath({
    method: 'get',
    path: '/pay-groups',
    operationId: 'listPayGroups',
    tags,
    security,
    summary: 'The pay groups by id (admins and managers)',
    request: { query: payGroupListQuery },
    responses: {
      200: jsonResponse('A page of groups', pageSchema(payGroupSchema, 'PayGroupPage')),
      ...problems(400, 401, 403, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/pay-groups',
    operationId: 'createPayGroup',
    tags,
    security,
    summary: 'Make a pay group (admins): `name` required, omitted rules take their defaults',
    description: RULES,
    request: { headers: idempotencyKeyHeader, body: jsonBody(payGroupWriteSchema) },
    responses: { 201: jsonResponse('The group', payGroupSchema, z.object({ Location: z.string() })), ...writeProblems },
  });
  registry.registerPath({
    method: 'get',
    path: '/pay-groups/{id}',
    operationId: 'getPayGroup',
    tags,
    security,
    summary: 'One pay group (admins and managers)',
    request: { params: idParam },
    responses: { 200: jsonResponse('The group', payGroupSchema), ...problems(401, 403, 404, ...COMMON_PROBLEMS) },
  });
  registry.registerPath({
    method: 'put',
    path: '/pay-groups/{id}',
    operationId: 'replacePayGroup',
    tags,
    security,
    summary: 'Replace a pay group (admins): the whole group, omitted rules at their defaults',
    description: `${RULES} Group 1 keeps its name \`Default\` (422 on \`name\`). Its period layout and overtime are also \`/pay-periods/settings\`.`,
    request: { params: idParam, headers: idempotencyKeyHeader, body: jsonBody(payGroupReplaceSchema) },
    responses: { 200: jsonResponse('The group', payGroupSchema), ...writeProblems },
  });
  registry.registerPath({
    method: 'patch',
    path: '/pay-groups/{id}',
    operationId: 'updatePayGroup',
    tags,
    security,
    summary: 'Change some fields of a pay group (admins); omitted ones (also of `overtime`) keep their value',
    description: RULES,
    request: { params: idParam, headers: idempotencyKeyHeader, body: jsonBody(payGroupPatchSchema) },
    responses: { 200: jsonResponse('The group', payGroupSchema), ...writeProblems },
  });
  registry.registerPath({
    method: 'delete',
    path: '/pay-groups/{id}',
    operationId: 'deletePayGroup',
    tags,
    security,
    summary: 'Delete a pay group (admins)',
    description:
      'Group 1 cannot be deleted (409 `conflict`); a group with employees or locked periods cannot either (409 `in_use`). Its approvals go with it.',
    request: { params: idParam, headers: idempotencyKeyHeader },
    responses: {
      200: jsonResponse('The deleted group', z.strictObject({ id: z.string().max(10) }).meta({ id: 'PayGroupDeleted' })),
      ...problems(401, 403, 404, ...DELETE_PROBLEMS, ...COMMON_PROBLEMS),
    },
  });
}
