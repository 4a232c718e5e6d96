import type { OpenAPIRegistry, OpenApiGeneratorV31, ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

/** The OpenAPI 3.1 document the server serves (built by src/openapi.ts). */
export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

// Pieces every feature's OpenAPI description uses: the problem body, the list envelope, the
// reference objects, the standard error answers. Response schemas are strict objects, so a field
// the server answers but the document does not describe fails the response checks of the tests.

export const problemSchema = z
  .strictObject({
    type: z.string().meta({ example: 'urn:hrm:problem:validation_failed' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().meta({ description: 'Stable machine-readable cause, e.g. validation_failed, api_disabled, duplicate' }),
    request_id: z.string().meta({ description: 'Equals the X-Request-Id response header' }),
    errors: z
      .array(z.strictObject({ field: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'Every invalid field (422), refused field (403) or bad parameter (400)' }),
    error: z
      .array(z.array(z.strictObject({ code: z.number().int(), message: z.string() })))
      .meta({ description: "IceHrm's error member, kept for old clients" }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (application/problem+json)' });

export const idString = z.string().regex(/^\d+$/).meta({ example: '42' });

/** `{"type": "<type>", "id": "3", "display": "..."}`, or null when unset. */
export function referenceSchema(type: string) {
  return z
    .strictObject({ type: z.literal(type), id: idString, display: z.string().nullable() })
    .nullable()
    .meta({ description: `A reference to a ${type}: its id and display name` });
}

export const countryReferenceSchema = z
  .strictObject({ type: z.literal('Country'), code: z.string().length(2), display: z.string().nullable() })
  .nullable();

/** `{"data": [...], "total": N, "nextPage": P | null}` */
export function pageSchema<T extends z.ZodType>(item: T, id: string) {
  return z
    .strictObject({
      data: z.array(item),
      total: z.number().int().meta({ description: 'Rows matching in all pages' }),
      nextPage: z.number().int().nullable().meta({ description: 'page + 1 while more rows follow; null on the last page' }),
    })
    .meta({ id });
}

const PROBLEM_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed JSON, or bad query parameters (every one listed in `errors`)',
  401: 'No, a malformed, an expired or a revoked token (with WWW-Authenticate)',
  403: 'The API is disabled (`api_disabled`), or the role may not do this',
  404: 'No such record, or one the caller may not see (the same answer)',
  405: 'Another method than this path allows (`Allow` lists them)',
  409: 'A conflict: a duplicate, a row still in use, an attendance rule, an Idempotency-Key in flight',
  413: 'The body is larger than BODY_LIMIT',
  415: 'A body that is not declared as application/json',
  422: 'Invalid body fields, every one listed in `errors`',
  429: 'A rate limit (Retry-After, RateLimit-Policy, RateLimit)',
  500: 'An unexpected error (no details: quote the request id)',
  503: 'The database is unavailable or too slow (Retry-After)',
};

/** The problem answers of an operation, by status. */
export function problems(...statuses: number[]): Record<number, ResponseConfig> {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: PROBLEM_DESCRIPTIONS[status] ?? 'An error', content: { 'application/problem+json': { schema: problemSchema } } },
    ]),
  );
}

/** Answers any operation under the base path may give, whatever it does. */
export const COMMON_PROBLEMS = [403, 405, 429, 500, 503];

/**
 * What a DELETE may answer besides its own cases: it takes no body, but one that is sent is still
 * read (malformed JSON, too large, not JSON); its Idempotency-Key may be in flight (409) or already
 * used for another request (422).
 */
export const DELETE_PROBLEMS = [400, 409, 413, 415, 422];

export function jsonBody(schema: z.ZodType, description?: string) {
  return { description, required: true, content: { 'application/json': { schema } } };
}

export function jsonResponse(description: string, schema: z.ZodType, headers?: ResponseConfig['headers']): ResponseConfig {
  return { description, content: { 'application/json': { schema } }, ...(headers && { headers }) };
}

export const idempotencyKeyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .max(255)
    .optional()
    .meta({ description: 'Retrying with the same key and body returns the first answer and writes nothing again' }),
});

export type Describe = (registry: OpenAPIRegistry) => void;
export type Path = RouteConfig;
