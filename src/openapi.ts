import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { attendanceSchema, describeAttendance } from './attendance/openapi';
import { describeTokens } from './auth/openapi';
import type { Config } from './config';
import { describeEcho } from './echo/openapi';
import { describeExportProfiles } from './export-profiles/openapi';
import { describePayGroups } from './pay-groups/openapi';
import { describeEmployees, employeeSchema } from './employees/openapi';
import { describeLeave, leaveSchema } from './leave/openapi';
import { describeLookups } from './lookups/openapi';
import { declareResponseHeaders, documentAcceptedInputs, type OpenApiDocument, shareStandardResponses } from './http/openapi';
import { describeDocs } from './docs/openapi';
import { describePayPeriods, lockedPayPeriodSchema, payPeriodSchema, timesheetEventSchema } from './pay-periods/openapi';
import { describeCalendarFeeds } from './calendar/openapi';
import { daySchema, describeDays } from './days/openapi';
import { describeSchedules, shiftSchema } from './shifts/openapi';
import { describeTerminals } from './terminals/openapi';
import { describeWebhooks } from './webhooks/openapi';

export type { OpenApiDocument };

const DESCRIPTION = `The Employee and Attendance REST API: employee details and attendance records of an HR system,
wire-compatible with IceHrm's REST API where that is sound.

Every request except the public ones needs \`Authorization: Bearer <token>\`. While the "Enable REST Api"
setting is off every request answers 403 \`api_disabled\`. Errors are \`application/problem+json\`
(RFC 9457) with IceHrm's \`error\` member. Every response carries \`X-Request-Id\`; responses of writes
accept an \`Idempotency-Key\`. Lists are \`{"data", "total", "nextPage"}\`.

The health checks \`GET /healthz\` and \`GET /readyz\` are not in this document: they answer at the server's
root, outside the base path, for load balancers and orchestrators.`;

// Documents built so far, by the configuration that decides them: building one takes a good part
// of a second, and every app of a process (cloud instances, a test run's ~150 apps) shares it.
const builtDocuments = new Map<string, OpenApiDocument>();

/**
 * The document for `config`, built once per (deployment, base paths) in this process and frozen,
 * so no reader can change what the others are served.
 */
export function openApiDocumentFor(config: Pick<Config, 'deployment' | 'basePath' | 'cloudBasePath'>): OpenApiDocument {
  const key = JSON.stringify([config.deployment, config.basePath, config.cloudBasePath]);
  let document = builtDocuments.get(key);
  if (!document) builtDocuments.set(key, (document = deepFreeze(buildOpenApiDocument(config))));
  return document;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * The OpenAPI 3.1 document, generated from the zod schemas the server validates with and the read
 * shapes each feature declares next to its routes. `config` decides the server URL (base path).
 */
export function buildOpenApiDocument(config: Pick<Config, 'deployment' | 'basePath' | 'cloudBasePath'>): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A token from `hrm token issue`, `POST /oauth/token` or `POST /tokens`: a JWS (HS256) handled as RFC8725 advises (the algorithm pinned, never `none`; the signature, expiry and token id checked; each token revocable).',
  });
  const cloud = config.deployment === 'cloud';
  describeEcho(registry, { public: !cloud });
  describeTokens(registry);
  describeEmployees(registry);
  describeLookups(registry);
  describeAttendance(registry);
  describeTerminals(registry);
  describePayPeriods(registry);
  describeExportProfiles(registry);
  describeLeave(registry);
  describeSchedules(registry);
  describeDays(registry);
  describeCalendarFeeds(registry);
  describePayGroups(registry);
  describeWebhooks(registry, {
    employee: employeeSchema,
    attendance: attendanceSchema,
    timesheet: timesheetEventSchema,
    payPeriod: payPeriodSchema,
    lockedPayPeriod: lockedPayPeriodSchema,
    leave: leaveSchema,
    shift: shiftSchema,
    day: daySchema,
  });
  describeDocs(registry);

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'HRM Employee and Attendance API',
      version: '1',
      description: DESCRIPTION,
      contact: { name: 'The operator of this server' },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // x-internal: false tells tools (the OWASP ruleset's API9) the API is meant for outside clients.
    servers: cloud
      ? [
          {
            url: `${config.cloudBasePath}/{instance}`,
            variables: { instance: { default: 'acme', description: 'The instance (customer) name' } },
            'x-internal': false,
          },
        ]
      : [{ url: config.basePath, 'x-internal': false }],
    tags: [
      { name: 'Service', description: 'Is the API reachable and enabled' },
      { name: 'Tokens', description: 'Signing in, rotating and revoking bearer tokens' },
      { name: 'Employees', description: 'Employee records, as each role may see and change them' },
      { name: 'Attendance', description: "Punches and attendance records, in the employee's time zone" },
      { name: 'Attendance terminals', description: 'Devices that upload punch logs in batches (docs/terminals.md)' },
      { name: 'Reference data', description: 'The tables employee references point into' },
      { name: 'Pay periods', description: 'Pay periods, their lock and payroll export (docs/pay-periods.md)' },
      { name: 'Timesheets', description: 'Hours per employee and period, classified and approved (docs/pay-periods.md)' },
      { name: 'Leave', description: 'Leave types, leaves, holidays and the work week (docs/leave.md)' },
      { name: 'Schedules', description: 'Shift types, shifts, rotations, day status and calendar feeds (docs/schedules.md)' },
      { name: 'Webhooks', description: 'Signed event deliveries to receivers of your own (docs/webhooks.md)' },
      { name: 'Documentation', description: 'This document and its page' },
    ],
  });
  if (cloud) {
    // Any path under /api/<instance> answers 404 instance_not_found for an unknown instance.
    for (const item of Object.values(document.paths ?? {})) {
      for (const operation of Object.values(item) as Array<{ responses?: Record<string, unknown> }>) {
        if (operation.responses && !operation.responses['404']) {
          operation.responses['404'] = {
            description: 'No such instance (`instance_not_found`), or no such record',
            content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
          };
        }
      }
    }
  }
  describeEveryOperation(document);
  declareResponseHeaders(document);
  documentAcceptedInputs(document.components?.schemas);
  documentAcceptedInputs(document.paths);
  shareStandardResponses(document);
  return document;
}

/**
 * Bearer is the document's default (root `security`); the features register a public operation
 * without `security`, which here becomes `security: []` so tools see it needs no token. An
 * operation without a description of its own is described by its summary. A path parameter
 * longer than any id is 414 before routing (src/http/paths.ts), and a conditional header longer
 * than the document allows 400 (src/http/conditional.ts): the operations that take them say so.
 */
function describeEveryOperation(document: OpenApiDocument): void {
  document.security = [{ bearer: [] }];
  for (const item of Object.values(document.paths ?? {})) {
    for (const [method, value] of Object.entries(item)) {
      if (method === 'servers' || method === 'parameters') continue;
      const operation = value as {
        security?: unknown[];
        summary?: string;
        description?: string;
        parameters?: Array<{ in?: string; name?: string }>;
        responses?: Record<string, unknown>;
      };
      operation.security ??= [];
      operation.description ??= operation.summary;
      const takes = (where: string, names?: string[]) =>
        operation.parameters?.some((parameter) => parameter.in === where && (!names || names.includes(parameter.name ?? '')));
      const problem = (description: string) => ({
        description,
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      });
      if (operation.responses && takes('path'))
        operation.responses['414'] ??= problem('A path segment longer than any id or key (`uri_too_long`)');
      if (operation.responses && takes('header', ['If-Match', 'If-None-Match']))
        operation.responses['400'] ??= problem('A conditional header longer than the document allows (`invalid_header`)');
    }
  }
}
