import type { OpenApiGeneratorV31, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { MAX_CONDITION_LENGTH } from './conditional';
import { CALENDAR_DATE_PATTERN } from './field-schemas';

/** The OpenAPI 3.1 document the server serves (built by src/openapi.ts). */
export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

// Pieces every feature's OpenAPI description uses: the problem body, the list envelope, the
// reference objects, the standard error answers. Response schemas are strict objects, so a field
// the server answers but the document does not describe fails the response checks of the tests.

/**
 * A record without an out_time counted in a pay period (docs/pay-periods.md, "Period end, step by
 * step"): in a lock's 409 `open_records` problem, and in the lock's answer and the JSON export.
 * Defined here, below the features, because the problem body carries it.
 */
export const openRecordSchema = z
  .strictObject({
    employee: z
      .string()
      .regex(/^\d+$/)
      .max(20)
      .meta({ description: "The employee's id (as `employee` of the export's rows)", example: '8' }),
    attendance: z.string().regex(/^\d+$/).max(20).meta({ description: "The attendance record's id", example: '1532' }),
    in_time: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      .max(19)
      .meta({
        description: "The record's in_time: the wall clock in its own time zone, as the attendance read shape gives it",
        example: '2026-10-31 22:00:00',
      }),
  })
  .meta({ id: 'OpenRecord', description: 'A record without an out_time that counts in a pay period' });

const problemSchema = z
  .strictObject({
    type: z.string().max(200).meta({ example: 'urn:hrm:problem:validation_failed' }),
    title: z.string().max(200),
    status: int32(400, 599),
    detail: z.string().max(10_000),
    code: z.string().max(100).meta({ description: 'Stable machine-readable cause, e.g. validation_failed, api_disabled, duplicate' }),
    request_id: z.string().max(128).meta({ description: 'Equals the X-Request-Id response header' }),
    errors: z
      .array(z.strictObject({ field: z.string().max(300), message: z.string().max(1000) }))
      .max(1000)
      .optional()
      .meta({ description: 'Every invalid field (422), refused field (403) or bad parameter (400)' }),
    open_records: z.array(openRecordSchema).max(100).optional().meta({
      description: 'A pay-period lock refused with `open_records`: the records still open (the first 100; the detail gives the count)',
    }),
    error: z
      .array(z.array(z.strictObject({ code: int32(400, 599), message: z.string().max(10_000) })).max(1))
      .max(1)
      .meta({ description: "IceHrm's error member, kept for old clients" }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (application/problem+json)' });

export const idString = z.string().regex(/^\d+$/).max(20).meta({ example: '42' });

/** A whole number within the given bounds, as a 32-bit integer. */
export function int32(min: number, max: number) {
  return z.number().int().min(min).max(max).meta({ format: 'int32' });
}

/** A whole number within the given bounds, as a 64-bit integer (counts, seconds, ids). */
export function int64(min: number, max = Number.MAX_SAFE_INTEGER) {
  return z.number().int().min(min).max(max).meta({ format: 'int64' });
}

/** The longest page any list serves (the reference tables' limit). */
const MAX_PAGE_ITEMS = 500;

/** `{"type": "<type>", "id": "3", "display": "..."}`, or null when unset. */
export function referenceSchema(type: string) {
  return z
    .strictObject({ type: z.literal(type), id: idString, display: z.string().max(255).nullable() })
    .nullable()
    .meta({ description: `A reference to a ${type}: its id and display name` });
}

/** The same, for a reference that is always there (an attendance record's employee). */
export function requiredReferenceSchema(type: string) {
  return z
    .strictObject({ type: z.literal(type), id: idString, display: z.string().max(255).nullable() })
    .meta({ description: `A reference to a ${type}: its id and display name` });
}

export const countryReferenceSchema = z
  .strictObject({ type: z.literal('Country'), code: z.string().length(2), display: z.string().max(100).nullable() })
  .nullable();

/** `{"data": [...], "total": N, "nextPage": P | null}` */
export function pageSchema<T extends z.ZodType>(item: T, id: string) {
  return z
    .strictObject({
      data: z.array(item).max(MAX_PAGE_ITEMS),
      total: int64(0).meta({ description: 'Rows matching in all pages' }),
      nextPage: int32(2, 1_000_001).nullable().meta({ description: 'page + 1 while more rows follow; null on the last page' }),
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
  412: 'If-Match named no ETag of the resource as it is now (`precondition_failed`): nothing was written',
  413: 'The body is larger than BODY_LIMIT',
  415: 'A body that is not declared as application/json',
  422: 'Invalid body fields, every one listed in `errors`',
  429: 'A rate limit (`rate_limited`: Retry-After, RateLimit-Policy, RateLimit), or more lists of one caller at once than CALLER_CONCURRENCY (`too_many_concurrent_requests`, Retry-After)',
  500: 'An unexpected error (no details: quote the request id)',
  503: 'The database is unavailable or too slow (`service_unavailable`), a list query ran past LIST_QUERY_TIMEOUT_MS (`query_timeout`), or (cloud mode) the instance is moving to another database server and refuses writes for a few seconds (Retry-After)',
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

/** A response that carries the resource's ETag (declareResponseHeaders fills in its description). */
export const ETAG_HEADER = z.object({ ETag: z.string().max(100) });

/** If-None-Match on the GET of one resource (src/http/conditional.ts). */
export const ifNoneMatchHeader = z.object({
  'If-None-Match': z
    .string()
    .max(MAX_CONDITION_LENGTH)
    .optional()
    .meta({
      description: `ETags the client holds (or \`*\`): 304 without a body when the current one is among them. Longer than ${MAX_CONDITION_LENGTH} characters: 400 \`invalid_header\``,
      example: '"q2V3yL1rY0l9bJx8n4sQfA"',
    }),
});

/** If-Match on a write of one resource. */
export const ifMatchHeader = z.object({
  'If-Match': z
    .string()
    .max(MAX_CONDITION_LENGTH)
    .optional()
    .meta({
      description: `Write only if the resource is still as read: an ETag of it (any representation of the same version) or \`*\`. Stale: 412 \`precondition_failed\`, nothing written. Longer than ${MAX_CONDITION_LENGTH} characters: 400 \`invalid_header\``,
      example: '"q2V3yL1rY0l9bJx8n4sQfA"',
    }),
});

/** A 304 answer to If-None-Match: no body. */
export const NOT_MODIFIED: ResponseConfig = {
  description: 'Not modified: the If-None-Match tag is current (no body)',
  headers: ETAG_HEADER,
};

export const idempotencyKeyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x21-\x7e]{1,255}$/)
    .optional()
    .meta({
      description:
        'Retrying with the same key and body returns the first answer and writes nothing again. 1 to 255 visible ASCII characters (no spaces), else 400 `invalid_idempotency_key`',
      example: '5f0c6f1e-2b7d-4c55-9d1a-0c8a4e7b9f10',
    }),
});

/**
 * The response headers cross-cutting middleware sends (request id, rate limits, the error
 * classes, the write wrapper, the router's 405), declared once under `components.headers`.
 */
type HeaderName =
  | 'X-Request-Id'
  | 'RateLimit'
  | 'RateLimit-Policy'
  | 'Retry-After'
  | 'WWW-Authenticate'
  | 'Allow'
  | 'Location'
  | 'Idempotent-Replayed'
  | 'ETag';

const RESPONSE_HEADERS: Record<HeaderName, { description: string; schema: Record<string, unknown> }> = {
  'X-Request-Id': {
    description: "The request's id: the caller's X-Request-Id when it is sane, else a new UUID; the problem body's request_id",
    schema: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  RateLimit: {
    description: 'Requests left in the window and seconds until it resets (IETF draft), while a rate limit is configured',
    schema: { type: 'string', maxLength: 100, example: '"per-token";r=599;t=42' },
  },
  'RateLimit-Policy': {
    description: 'The limit that applies: quota per window of seconds (IETF draft), while a rate limit is configured',
    schema: { type: 'string', maxLength: 100, example: '"per-token";q=600;w=60' },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 86_400, example: 30 },
  },
  'WWW-Authenticate': {
    description: 'The Bearer challenge (RFC 6750): realm, error and its description',
    schema: { type: 'string', maxLength: 500 },
  },
  Allow: {
    description: 'The methods the path serves',
    schema: { type: 'string', maxLength: 100, example: 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS' },
  },
  Location: {
    description: 'The address of the record created (or of the page, for a redirect)',
    schema: { type: 'string', maxLength: 2048 },
  },
  'Idempotent-Replayed': {
    description: 'Present (`true`) when this answer replays the first answer to the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
  ETag: {
    description:
      'A strong entity tag of this representation ("<version>" or "<version>.<variant>"); it changes with every change of the resource. Send it back in If-None-Match (304 when unchanged) or If-Match (412 when stale)',
    schema: { type: 'string', maxLength: 100, pattern: '^"[A-Za-z0-9_.-]+"$', example: '"q2V3yL1rY0l9bJx8n4sQfA"' },
  },
};
type Operation = {
  parameters?: Array<{ in?: string; name?: string }>;
  responses?: Record<string, { headers?: Record<string, unknown> }>;
};

/** Adds to each response of `document` the headers the server sends with it. */
export function declareResponseHeaders(document: OpenApiDocument): void {
  document.components = { ...document.components, headers: { ...document.components?.headers, ...RESPONSE_HEADERS } };
  const ref = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });
  for (const item of Object.values(document.paths ?? {})) {
    for (const [method, value] of Object.entries(item)) {
      if (method === 'servers' || method === 'parameters') continue;
      const operation = value as Operation;
      const idempotent =
        operation.parameters?.some((parameter) => parameter.in === 'header' && parameter.name === 'Idempotency-Key') ?? false;
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const names: HeaderName[] = ['X-Request-Id', 'RateLimit', 'RateLimit-Policy'];
        if (status === '401') names.push('WWW-Authenticate');
        if (status === '405') names.push('Allow');
        if (status === '429' || status === '503') names.push('Retry-After');
        if (idempotent && /^2/.test(status)) names.push('Idempotent-Replayed');
        if ((status === '201' || status === '301') && response.headers?.Location) names.push('Location');
        if (response.headers?.ETag) names.push('ETag');
        response.headers = Object.fromEntries(names.map((name) => [name, ref(name)]));
      }
    }
  }
}

/** The component name of each status's standard answer (shareStandardResponses). */
const STANDARD_RESPONSE_NAMES: Readonly<Record<string, string>> = {
  '304': 'NotModified',
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '405': 'MethodNotAllowed',
  '409': 'Conflict',
  '412': 'PreconditionFailed',
  '413': 'ContentTooLarge',
  '414': 'UriTooLong',
  '415': 'UnsupportedMediaType',
  '422': 'UnprocessableContent',
  '429': 'TooManyRequests',
  '500': 'InternalServerError',
  '503': 'ServiceUnavailable',
};

/**
 * Moves each status's most common answer, when operations repeat it word for word, to
 * `components/responses` and puts a `$ref` in its place (run after declareResponseHeaders).
 * The same errors written out under 90 operations were two thirds of the document, and Swagger
 * UI reads the whole document before it draws the docs page (docs/performance.md, "Docs page").
 */
export function shareStandardResponses(document: OpenApiDocument): void {
  const operations: Array<{ responses?: Record<string, unknown> }> = [];
  for (const item of Object.values(document.paths ?? {})) {
    for (const [method, value] of Object.entries(item)) {
      if (method !== 'servers' && method !== 'parameters') operations.push(value as { responses?: Record<string, unknown> });
    }
  }
  const uses = new Map<string, { status: string; response: unknown; count: number }>();
  for (const operation of operations) {
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      if (!(status in STANDARD_RESPONSE_NAMES)) continue;
      const key = `${status} ${JSON.stringify(response)}`;
      const use = uses.get(key) ?? { status, response, count: 0 };
      use.count += 1;
      uses.set(key, use);
    }
  }
  const shared = new Map<string, string>();
  const named = new Set<string>();
  for (const [key, use] of [...uses].sort((a, b) => b[1].count - a[1].count)) {
    if (use.count < 2 || named.has(use.status)) continue;
    named.add(use.status);
    shared.set(key, STANDARD_RESPONSE_NAMES[use.status] as string);
  }
  const responses: Record<string, unknown> = {};
  for (const [key, name] of shared) responses[name] = uses.get(key)?.response;
  document.components = {
    ...document.components,
    responses: { ...document.components?.responses, ...responses },
  } as typeof document.components;
  for (const operation of operations) {
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      const name = shared.get(`${status} ${JSON.stringify(response)}`);
      if (name) (operation.responses as Record<string, unknown>)[status] = { $ref: `#/components/responses/${name}` };
    }
  }
}

const ID_TEXT = { type: 'string', pattern: '^[1-9][0-9]{0,9}$', maxLength: 10, example: '3' };
const ID_NUMBER = { type: 'integer', format: 'int64', minimum: 1, maximum: 4294967295, example: 3 };
const BLANK = { type: 'string', enum: [''], description: 'No value' };
const NONE = { type: 'null' };
// Codes are checked against the stored countries (GET /countries), not a list in the document.
const COUNTRY_CODE = {
  type: 'string',
  pattern: '^[A-Za-z]{2}$',
  minLength: 2,
  maxLength: 2,
  example: 'US',
  description:
    'A two-letter ISO 3166-1 code, any case. It must be one of the rows of GET /countries: a well-formed code that is not (ZZ) is refused 422, "is not a known ISO 3166-1 country code".',
};
const ANY_ID = { anyOf: [ID_TEXT, ID_NUMBER] };
const DEVICE_TEXT = { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S', example: '004217' };
const WHOLE_NUMBER = { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, example: 4217 };
const REFERENCE_AS_READ = {
  type: 'object',
  properties: { id: ANY_ID },
  required: ['id'],
  description: 'A reference as read ({"type", "id", "display"}); only its id counts',
};

/**
 * What the input rules of src/http/field-schemas.ts accept, by their `x-accepts` name: the
 * spellings IceHrm clients send (ids as text, numbers or reference objects, "" for no value,
 * 0000-00-00 for no date, id lists as JSON text), which zod-to-openapi cannot see through the
 * rules' preprocess step.
 */
const ACCEPTED_INPUTS: Record<string, Record<string, unknown>> = {
  reference: { anyOf: [ID_TEXT, ID_NUMBER, REFERENCE_AS_READ, BLANK, NONE] },
  employee: { anyOf: [ID_TEXT, ID_NUMBER, REFERENCE_AS_READ] },
  id: ANY_ID,
  /** A punch's log id or a badge number from a terminal: text, or a whole number (src/terminals/schemas.ts). */
  deviceText: { anyOf: [DEVICE_TEXT, WHOLE_NUMBER] },
  date: {
    anyOf: [
      { type: 'string', format: 'date', pattern: CALENDAR_DATE_PATTERN, maxLength: 10, example: '2024-03-01' },
      { type: 'string', enum: ['', '0000-00-00'], description: 'No date' },
      NONE,
    ],
  },
  // Exactly what zod's z.email() checks (field-schemas.ts): `format: email` validators differ from
  // it both ways (zod refuses `%` before the @, takes a domain label ending in `-`).
  email: { anyOf: [{ type: 'string', pattern: z.regexes.email.source, maxLength: 254, example: 'ada@example.com' }, BLANK, NONE] },
  country: {
    anyOf: [
      COUNTRY_CODE,
      { type: 'object', properties: { code: COUNTRY_CODE }, required: ['code'], description: 'A country as read; only its code counts' },
      BLANK,
      NONE,
    ],
  },
  /** An amount of money (src/lookups/writes.ts): a number or numeric text, at most two decimals. */
  money: {
    anyOf: [
      { type: 'string', pattern: '^\\d{1,10}(\\.\\d{1,2})?$', maxLength: 13, example: '45000.00' },
      { type: 'number', minimum: 0, maximum: 9999999999.99, multipleOf: 0.01, example: 45000 },
      BLANK,
      NONE,
    ],
  },
  currency: { anyOf: [{ type: 'string', pattern: '^[A-Za-z]{3}$', minLength: 3, maxLength: 3, example: 'EUR' }, BLANK, NONE] },
  requiredCountry: {
    anyOf: [
      COUNTRY_CODE,
      { type: 'object', properties: { code: COUNTRY_CODE }, required: ['code'], description: 'A country as read; only its code counts' },
    ],
  },
  idList: {
    anyOf: [
      { type: 'array', items: ANY_ID, maxItems: 50, description: 'Employee ids' },
      { type: 'string', maxLength: 1000, description: 'The same list as JSON text, as IceHrm sends it: "[\\"3\\",\\"7\\"]"; "" for none' },
      NONE,
    ],
  },
};

/** Replaces every schema marked `x-accepts` with what that rule accepts (keeping its description). */
export function documentAcceptedInputs(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(documentAcceptedInputs);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  for (const value of Object.values(schema)) documentAcceptedInputs(value);
  const kind = schema['x-accepts'];
  if (typeof kind !== 'string') return;
  const accepted = ACCEPTED_INPUTS[kind];
  if (!accepted) throw new Error(`No documented input shape "${kind}"`);
  const { description, example } = schema;
  for (const key of Object.keys(schema)) delete schema[key];
  Object.assign(
    schema,
    structuredClone(accepted),
    description === undefined ? {} : { description },
    example === undefined ? {} : { example },
  );
}
