import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  COMMON_PROBLEMS,
  DELETE_PROBLEMS,
  countryReferenceSchema,
  idempotencyKeyHeader,
  idString,
  jsonBody,
  jsonResponse,
  pageSchema,
  problems,
  referenceSchema,
} from '../http/openapi';
import { paginationFields } from '../http/pagination';
import { LOOKUP_TABLES } from './tables';
import { LOOKUP_WRITES } from './writes';

/** The row shape of each reference table, as `toResponse` in tables.ts answers it, by component name. */
const NAME = z.string().max(100);
const DESCRIPTION = z.string().max(500).nullable();
const AMOUNT = z
  .string()
  .regex(/^-?\d{1,10}\.\d{2}$/)
  .max(14)
  .nullable();

const ROW_SCHEMAS: Record<string, [name: string, schema: z.ZodObject]> = {
  nationalities: ['Nationality', z.strictObject({ id: idString, name: NAME })],
  'employment-statuses': ['EmploymentStatus', z.strictObject({ id: idString, name: NAME, description: DESCRIPTION })],
  'job-titles': ['JobTitle', z.strictObject({ id: idString, code: z.string().max(50).nullable(), name: NAME, description: DESCRIPTION })],
  'pay-grades': [
    'PayGrade',
    z.strictObject({
      id: idString,
      name: NAME,
      currency: z.string().length(3).nullable(),
      min_salary: AMOUNT.meta({ description: 'Two decimals, as a string', example: '45000.00' }),
      max_salary: AMOUNT,
    }),
  ],
  departments: [
    'Department',
    z.strictObject({ id: idString, name: NAME, description: DESCRIPTION, parent: referenceSchema('Department') }),
  ],
  countries: [
    'Country',
    z.strictObject({ code: z.string().length(2), name: NAME, iso3: z.string().length(3), numeric_code: z.string().length(3) }),
  ],
  provinces: [
    'Province',
    z.strictObject({ id: idString, code: z.string().max(10).nullable(), name: NAME, country: countryReferenceSchema }),
  ],
};

export function describeLookups(registry: OpenAPIRegistry): void {
  const tags = ['Reference data'];
  const security = [{ bearer: [] }];
  for (const lookup of LOOKUP_TABLES) {
    const [name, schema] = ROW_SCHEMAS[lookup.path] ?? [lookup.path, z.strictObject({})];
    // Operation ids: listJobTitles, getJobTitle, createJobTitle, updateJobTitle, patchJobTitle, ...
    const plural = lookup.path.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase());
    const row = schema.meta({ id: name });
    const key =
      lookup.key === 'code'
        ? z.object({
            key: z
              .string()
              .length(2)
              .regex(/^[A-Za-z]{2}$/)
              .meta({ example: 'US' }),
          })
        : z.object({ key: idString });
    const query = z.strictObject({
      ...paginationFields({ defaultLimit: 500, maxLimit: 500 }),
      ...Object.fromEntries(Object.keys(lookup.filters).map((filter) => [filter, z.string().min(1).max(100).optional()])),
    });
    registry.registerPath({
      method: 'get',
      path: `/${lookup.path}`,
      operationId: `list${plural}`,
      tags,
      security,
      summary: `List ${lookup.path.replace(/-/g, ' ')}`,
      request: { query },
      responses: { 200: jsonResponse('A page of rows', pageSchema(row, `${name}Page`)), ...problems(400, 401, ...COMMON_PROBLEMS) },
    });
    registry.registerPath({
      method: 'get',
      path: `/${lookup.path}/{key}`,
      operationId: `get${name}`,
      tags,
      security,
      summary: `One ${lookup.noun}`,
      request: { params: key },
      responses: { 200: jsonResponse('The row', row), ...problems(401, 404, ...COMMON_PROBLEMS) },
    });

    const writes = LOOKUP_WRITES[lookup.path];
    if (!writes) continue;
    const input = z
      .strictObject(writes.shape)
      .partial()
      .meta({ id: `${name}Input` });
    registry.registerPath({
      method: 'post',
      path: `/${lookup.path}`,
      operationId: `create${name}`,
      tags,
      security,
      summary: `Create a ${lookup.noun} (admins); requires ${writes.required.join(', ')}`,
      request: {
        headers: idempotencyKeyHeader,
        // A create must send the required fields, which a change may leave out.
        body: jsonBody(
          input
            .required(Object.fromEntries(writes.required.map((field) => [field, true])) as Record<string, true>)
            .meta({ id: `${name}Create` }),
        ),
      },
      responses: {
        201: jsonResponse('Created', row, z.object({ Location: z.string() })),
        ...problems(400, 401, 409, 413, 415, 422, ...COMMON_PROBLEMS),
      },
    });
    for (const method of ['put', 'patch'] as const) {
      registry.registerPath({
        method,
        path: `/${lookup.path}/{key}`,
        operationId: `${method === 'put' ? 'update' : 'patch'}${name}`,
        tags,
        security,
        summary: `Change a ${lookup.noun} (admins): only the sent fields change`,
        request: { params: key, headers: idempotencyKeyHeader, body: jsonBody(input) },
        responses: { 200: jsonResponse('The changed row', row), ...problems(400, 401, 404, 409, 413, 415, 422, ...COMMON_PROBLEMS) },
      });
    }
    registry.registerPath({
      method: 'delete',
      path: `/${lookup.path}/{key}`,
      operationId: `delete${name}`,
      tags,
      security,
      summary: `Delete a ${lookup.noun} (admins); 409 in_use while employees use it`,
      request: { params: key, headers: idempotencyKeyHeader },
      responses: {
        200: jsonResponse('Deleted', z.strictObject({ id: idString })),
        ...problems(401, 404, ...DELETE_PROBLEMS, ...COMMON_PROBLEMS),
      },
    });
  }
}
