import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  COMMON_PROBLEMS,
  DELETE_PROBLEMS,
  idempotencyKeyHeader,
  int32,
  jsonBody,
  jsonResponse,
  pageSchema,
  problems,
} from '../http/openapi';
import { CODES, MAX_COLUMNS, profileFields, TEMPLATES } from './definition';
import { profileListQuery } from './routes';

const profileId = z
  .string()
  .regex(/^[a-z0-9-]+$/)
  .max(40)
  .meta({ description: 'A number for a profile of your own; a word for a template', example: 'adp-workforce-now' });

const profileSchema = z
  .strictObject({
    id: profileId,
    name: z.string().max(100),
    layout: profileFields.layout,
    columns: z
      .array(z.strictObject({ header: z.string().max(100), value: z.string().max(60) }))
      .max(MAX_COLUMNS)
      .meta({ description: 'The columns in order: each a header and the source of its cells' }),
    codes: z
      .record(z.enum(CODES), z.string().max(50))
      .meta({ description: 'Names of the codes in the file; unnamed codes keep their name' }),
    hours_format: profileFields.hours_format,
    decimals: int32(0, 4),
    delimiter: z.enum([',', ';', '\t']),
    include_zero: z.boolean(),
    constants: z.record(z.string().max(50), z.string().max(200)).meta({
      description: 'Texts the columns `constant:<name>` write; in a template an empty one is one a profile made from it must give',
    }),
    filename: z.string().max(200),
    template: z.boolean().meta({ description: 'true for the built-in, read-only templates' }),
  })
  .meta({
    id: 'ExportProfile',
    description: 'An export profile: how a pay period\'s CSV is laid out (docs/pay-periods.md, "Export profiles")',
  });

const writeSchema = z
  .object({
    name: profileFields.name,
    layout: profileFields.layout.optional(),
    columns: profileFields.columns.optional(),
    codes: profileFields.codes.optional(),
    hours_format: profileFields.hours_format.optional(),
    decimals: int32(0, 4).optional().meta({ description: 'Decimals of decimal hours, 0 to 4 (hh:mm ignores it)' }),
    delimiter: profileFields.delimiter.optional(),
    include_zero: profileFields.include_zero.optional(),
    constants: profileFields.constants.optional(),
    filename: profileFields.filename.optional(),
  })
  .strict();

const templateId = z
  .enum(TEMPLATES.map((template) => template.id) as [string, ...string[]])
  .meta({ description: "Make the profile from this template: the body's fields replace the template's, its constants add to them" });

// From a template, or from scratch with `layout` and `columns` (the server refuses a body with neither).
const createSchema = z
  .union([
    writeSchema.extend({ template: templateId }),
    writeSchema.extend({ layout: profileFields.layout, columns: profileFields.columns, template: templateId.optional() }),
  ])
  .meta({ id: 'ExportProfileCreate' });

const replaceSchema = writeSchema
  .extend({
    id: profileId.optional().meta({ description: 'Read-only: may be sent back, must match the path' }),
    template: z.literal(false).optional().meta({ description: 'Read-only: may be sent back as read' }),
  })
  .meta({ id: 'ExportProfileReplace' });

const idParam = z.object({ id: profileId });

const SOURCES =
  "Column sources: `payroll_id`, `employee_id`, `id`, `first_name`, `last_name`, `full_name`, `department`, `job_title`, `pay_grade`, `pay_group` (`Default` until pay groups exist), `period_start`, `period_end`, `timesheet_status`, `constant:<name>`; in `long` also `date`, `code`, `hours`; in `wide` also `hours:<CODE>` and `total_hours` (the sum of the row's code cells). Anything else, a code that is not REG, OT or DT, a source of the other layout, a constant the profile lacks, a bad `delimiter` or `filename` pattern: 422 naming the field, nothing written.";

/** /export-profiles: the built-in templates and the profiles admins make from them or from scratch. */
export function describeExportProfiles(registry: OpenAPIRegistry): void {
  const tags = ['Pay periods'];
  const security = [{ bearer: [] }];
  const writeProblems = problems(400, 401, 404, 409, 413, 415, 422, ...COMMON_PROBLEMS);
  registry.registerPath({
    method: 'get',
    path: '/export-profiles',
    operationId: 'listExportProfiles',
    tags,
    security,
    summary: 'The export profiles (admins): the built-in templates first, then your own',
    request: { query: profileListQuery },
    responses: {
      200: jsonResponse('A page of profiles', pageSchema(profileSchema, 'ExportProfilePage')),
      ...problems(400, 401, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/export-profiles',
    operationId: 'createExportProfile',
    tags,
    security,
    summary: 'Make an export profile (admins), from scratch (`layout` and `columns` required) or from a `template`',
    description: `${SOURCES} A constant the template needs and the body lacks: 422 naming \`constants.<name>\`. A name in use: 409 \`duplicate\`.`,
    request: { headers: idempotencyKeyHeader, body: jsonBody(createSchema) },
    responses: { 201: jsonResponse('The profile', profileSchema, z.object({ Location: z.string() })), ...writeProblems },
  });
  registry.registerPath({
    method: 'get',
    path: '/export-profiles/{id}',
    operationId: 'getExportProfile',
    tags,
    security,
    summary: 'One export profile or template (admins)',
    request: { params: idParam },
    responses: { 200: jsonResponse('The profile', profileSchema), ...problems(401, 404, ...COMMON_PROBLEMS) },
  });
  registry.registerPath({
    method: 'put',
    path: '/export-profiles/{id}',
    operationId: 'replaceExportProfile',
    tags,
    security,
    summary: 'Replace an export profile of your own (admins); templates are read-only (403)',
    description: `The whole profile: \`name\`, \`layout\` and \`columns\` required, omitted fields take their defaults. ${SOURCES}`,
    request: { params: idParam, headers: idempotencyKeyHeader, body: jsonBody(replaceSchema) },
    responses: { 200: jsonResponse('The profile', profileSchema), ...writeProblems },
  });
  registry.registerPath({
    method: 'delete',
    path: '/export-profiles/{id}',
    operationId: 'deleteExportProfile',
    tags,
    security,
    summary: 'Delete an export profile of your own (admins); templates are read-only (403)',
    description: 'A profile a pay group exports with by default (its `export_profile`) is 409 `in_use`, nothing deleted.',
    request: { params: idParam, headers: idempotencyKeyHeader },
    responses: {
      200: jsonResponse('The deleted profile', z.strictObject({ id: profileId }).meta({ id: 'ExportProfileDeleted' })),
      ...problems(401, 404, ...DELETE_PROBLEMS, ...COMMON_PROBLEMS),
    },
  });
}
