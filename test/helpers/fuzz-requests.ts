import fc from 'fast-check';
import type { OpenApiDocument } from '../../src/openapi';

/** One request as sent on the wire: the path is already encoded, the body is raw text. */
export interface FuzzRequest {
  /** "POST /employees/{id}": the documented operation it was built from, for the report. */
  operation: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Rows that exist, so that some generated ids hit something and the request goes deep. */
export interface FuzzTargets {
  employeeIds: string[];
  attendanceIds: string[];
  tokenIds: string[];
  usernames: string[];
  /** Keys of each reference table by path: '/departments' -> ['3', '4'], '/countries' -> ['DE']. */
  lookupKeys: Record<string, string[]>;
}

interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  items?: Schema;
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: Schema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}

/** Strings that have broken servers before: injections, traversal, encodings, edge numbers and dates. */
const HOSTILE_STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  '00000000001',
  '4294967296',
  '9223372036854775808',
  '99999999999999999999999999',
  '1e309',
  '0x10',
  'NaN',
  'Infinity',
  'null',
  'undefined',
  'true',
  "' OR '1'='1",
  '1; DROP TABLE employees; --',
  '1 UNION SELECT password_hash FROM users',
  '%',
  '%00',
  '\u0000',
  '\r\nX-Injected: 1',
  '../../../etc/passwd',
  '..%2f..%2fetc%2fpasswd',
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '\uD800',
  '\uFEFF',
  '😀👩‍👩‍👧',
  'ﷺ'.repeat(120),
  'é'.repeat(300),
  'a'.repeat(5000),
  '__proto__',
  'constructor',
  'hasOwnProperty',
  '2024-02-30',
  '2023-02-29',
  '0000-00-00',
  '0000-00-00 00:00:00',
  '9999-12-31T23:59:59.999Z',
  '0001-01-01',
  '1969-12-31T23:59:60Z',
  '2024-13-45T25:61:61Z',
  '2024-03-31T02:30:00',
  '2024-06-01T12:00:00+25:00',
  '2024-06-01T12:00:00.1234567891Z',
  'Europe/Berlin',
  'Mars/Olympus_Mons',
  'Etc/GMT+14',
];

/** The value one time in `outOf`, else null. */
function rarely<T>(arbitrary: fc.Arbitrary<T>, outOf = 6): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: outOf - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });
}

const hostileString = fc.oneof(fc.constantFrom(...HOSTILE_STRINGS), fc.string({ unit: 'binary', maxLength: 40 }));

/** Any JSON value of the wrong kind: the other types, operators, prototype keys, deep nesting. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(null, true, false, 0, -1, -0, 1.5, 2 ** 53, -(2 ** 63), 1e308, [], {}, [null], ['1', '2']),
  fc.constantFrom({ $gt: '' }, { toString: 'x' }, { id: '1' }, nested(64)),
  fc.double(),
  fc.jsonValue({ maxDepth: 3 }),
);

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i += 1) value = { a: [value] };
  return value;
}

const date = fc.date({ min: new Date('1890-01-01T00:00:00Z'), max: new Date('2110-12-31T23:59:59Z'), noInvalidDate: true });

const pastDate = fc.date({ min: new Date('1950-01-01T00:00:00Z'), max: new Date('2025-12-31T00:00:00Z'), noInvalidDate: true });

/** Date and time strings in the forms clients send: ISO with and without offsets, date only, SQL style. */
const timeString = fc.oneof(
  date.map((d) => d.toISOString()),
  date.map((d) => d.toISOString().slice(0, 10)),
  date.map((d) => d.toISOString().slice(0, 19)),
  date.map((d) => d.toISOString().slice(0, 19).replace('T', ' ')),
  fc.tuple(date, fc.constantFrom('+02:00', '-05:30', '+14:00', '+0530', 'Z')).map(([d, offset]) => d.toISOString().slice(0, 19) + offset),
  fc.constantFrom('2026-11-22T09:00:00Z', '2026-11-22T17:30:00Z', '2026-11-21', '2026-11-22 08:00:00'),
);

const DATE_ONLY_FIELDS = /date$|^birthday$|^from$|^to$/;
const TIME_FIELDS = /time$|since$/;

/** A value for a documented field: mostly one the schema allows, sometimes a hostile one. */
function valueFor(name: string, schema: Schema, doc: OpenApiDocument, targets: FuzzTargets): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 5, arbitrary: plausibleValueFor(name, schema, doc, targets) }, { weight: 1, arbitrary: hostileValue });
}

function plausibleValueFor(name: string, unresolved: Schema, doc: OpenApiDocument, targets: FuzzTargets): fc.Arbitrary<unknown> {
  const schema = resolve(unresolved, doc);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((branch) => plausibleValueFor(name, branch, doc, targets)));
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? 'string'];
  const options: Array<fc.Arbitrary<unknown>> = [];
  if (schema.enum) options.push(fc.constantFrom(...schema.enum));
  else {
    if (types.includes('string')) options.push(plausibleString(name, schema, targets));
    if (types.includes('integer'))
      options.push(fc.integer({ min: (schema.minimum ?? -10) - 2, max: Math.min(schema.maximum ?? 1000, 2 ** 31) + 2 }));
    if (types.includes('number'))
      options.push(fc.double({ min: (schema.minimum ?? -1000) - 1, max: (schema.maximum ?? 1000) + 1, noNaN: true }));
    if (types.includes('boolean')) options.push(fc.boolean());
    if (types.includes('array')) options.push(fc.array(valueFor(name, schema.items ?? {}, doc, targets), { maxLength: 4 }));
    if (types.includes('object')) options.push(objectFor(schema, doc, targets));
  }
  if (types.includes('null')) options.push(fc.constant(null));
  return options.length === 1 ? options[0]! : fc.oneof(...options);
}

function plausibleString(name: string, schema: Schema, targets: FuzzTargets): fc.Arbitrary<string> {
  if (schema.pattern === '^[1-9][0-9]{0,9}$') return referenceId(name, targets);
  if (schema.pattern === '^[A-Za-z]{2}$') return fc.constantFrom(...(targets.lookupKeys['/countries'] ?? ['DE']), 'de', 'XX', 'ZZ');
  if (schema.pattern) return stringMatching(schema.pattern);
  if (schema.format === 'email') return emailAddress;
  if (name === 'username') return fc.constantFrom(...targets.usernames);
  if (DATE_ONLY_FIELDS.test(name))
    return fc.oneof({ weight: 4, arbitrary: pastDate.map((d) => d.toISOString().slice(0, 10)) }, { weight: 1, arbitrary: timeString });
  if (TIME_FIELDS.test(name)) return timeString;
  return fc.string({ minLength: 1, maxLength: Math.min(schema.maxLength ?? 40, 40) + 2 });
}

/**
 * fc.stringMatching is slow to build (fast-check tokenizes its edge-case strings against every
 * character class) and the document repeats the same patterns in hundreds of places, so each
 * pattern's arbitrary is built once. Arbitraries are stateless: a shared one generates the same
 * values from the same seed.
 */
const patternArbitraries = new Map<string, fc.Arbitrary<string>>();
function stringMatching(pattern: string): fc.Arbitrary<string> {
  let arbitrary = patternArbitraries.get(pattern);
  if (!arbitrary) {
    arbitrary = fc.stringMatching(new RegExp(pattern));
    patternArbitraries.set(pattern, arbitrary);
  }
  return arbitrary;
}

// fc.emailAddress() covers all of RFC 5322, most of which the server's stricter rule refuses.
const emailAddress = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[a-z]{1,10}\.[a-z]{1,10}@example\.(com|org)$/) },
  { weight: 1, arbitrary: fc.emailAddress() },
);

/** The reference table each id field points at. */
const REFERENCE_TABLES: Record<string, string> = {
  nationality: '/nationalities',
  employment_status: '/employment-statuses',
  job_title: '/job-titles',
  pay_grade: '/pay-grades',
  department: '/departments',
  parent: '/departments',
  province: '/provinces',
};

/** An id that exists for the field's kind, or a number near one. */
function referenceId(name: string, targets: FuzzTargets): fc.Arbitrary<string> {
  const table = Object.hasOwn(REFERENCE_TABLES, name) ? REFERENCE_TABLES[name]! : undefined;
  const known = table === undefined ? targets.employeeIds : (targets.lookupKeys[table] ?? []);
  const near = fc.integer({ min: 1, max: 10_000 }).map(String);
  return known.length > 0 ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: near }) : near;
}

function objectFor(schema: Schema, doc: OpenApiDocument, targets: FuzzTargets): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries(schema.properties ?? {});
  const required = schema.required ?? [];
  const model = Object.fromEntries(properties.map(([key, property]) => [key, valueFor(key, property, doc, targets)]));
  const plausibleModel = Object.fromEntries(properties.map(([key, property]) => [key, plausibleValueFor(key, property, doc, targets)]));
  const plausible = plausibleObjectOf(plausibleModel, required);
  const complete = fc.record(model, { requiredKeys: required });
  const anySubset = fc.record(model, { requiredKeys: [] });
  const withUnknownKey = fc
    .tuple(anySubset, fc.constantFrom('unknown', 'id', '__proto__', 'constructor', 'created_at'), hostileValue)
    .map(([value, key, extra]) => {
      // A JSON text with the key, even __proto__, as a client would send it.
      return JSON.parse(
        `${JSON.stringify(value).slice(0, -1)}${Object.keys(value).length > 0 ? ',' : ''}${JSON.stringify(key)}:${JSON.stringify(extra ?? null)}}`,
      ) as Record<string, unknown>;
    });
  return fc.oneof(
    { weight: 4, arbitrary: plausible },
    { weight: 3, arbitrary: complete },
    { weight: 2, arbitrary: anySubset },
    { weight: 1, arbitrary: withUnknownKey },
  );
}

/** Valid-looking: every required field and a few others, so that some requests get past validation. */
function plausibleObjectOf(model: Record<string, fc.Arbitrary<unknown>>, required: string[]): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(fc.record(model, { requiredKeys: [] }), fc.integer({ min: 0, max: 4 }))
    .map(([values, keep]) => Object.fromEntries(Object.entries(values).filter(([key], i) => required.includes(key) || i % 5 < keep)));
}

function resolve(schema: Schema, doc: OpenApiDocument): Schema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  return (doc.components?.schemas as Record<string, Schema>)[name] ?? {};
}

/** Bodies no schema describes: broken JSON, the wrong top-level type, too large, not JSON at all. */
function malformedBody(bodyLimitBytes: number): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      '',
      '{',
      '{"a":',
      '[',
      'nul',
      '{"a":1}}',
      "{'a':1}",
      '{"a":NaN}',
      '\uFEFF{}',
      '{"a":"\\ud800"}',
      'null',
      '[]',
      '"x"',
      '42',
      'true',
    ),
    fc.constantFrom('{"__proto__":{"role":"admin"}}', '{"constructor":{"prototype":{"role":"admin"}}}', '{"a":1,"a":2}'),
    fc.constantFrom(`${'['.repeat(5000)}${']'.repeat(5000)}`, `{"x":"${'a'.repeat(bodyLimitBytes)}"}`),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? 'null'),
  );
}

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/json;;',
  'application/xml',
  'application/merge-patch+json',
  '*/*',
  '',
];

function pathParameterValue(parameter: Parameter, operationPath: string, targets: FuzzTargets): fc.Arbitrary<string> {
  const lookup = operationPath.split('/')[1] ?? '';
  const known =
    parameter.name === 'file'
      ? ['swagger-ui.css', 'swagger-ui-bundle.js', 'index.html', 'favicon-32x32.png']
      : parameter.name === 'date'
        ? ['2026-11-22', '2026-11-21', '2024-02-29']
        : operationPath.startsWith('/tokens')
          ? targets.tokenIds
          : operationPath.startsWith('/attendance')
            ? targets.attendanceIds
            : operationPath.startsWith('/employee')
              ? targets.employeeIds
              : (targets.lookupKeys[`/${lookup}`] ?? []);
  const options: Array<fc.Arbitrary<string>> = [fc.integer({ min: -3, max: 5000 }).map(String), hostileString.map(percentEncode)];
  if (known.length > 0) options.unshift(fc.constantFrom(...known));
  // Raw text no client library would encode: broken escapes, encoded slashes and dots.
  options.push(
    fc.constantFrom('%', '%zz', '%E0%A4%A', '%2e%2e', '..%2F..%2F', '1%00', '%C0%AE', '1;x=2', '1.0', '+1', '1e3', percentEncode('０１')),
  );
  return fc.oneof({ weight: 3, arbitrary: options[0]! }, ...options.slice(1));
}

function queryString(parameters: Parameter[], doc: OpenApiDocument, targets: FuzzTargets): fc.Arbitrary<string> {
  const documented = parameters.map((parameter) =>
    fc.option(
      fc.oneof(
        {
          weight: 8,
          arbitrary: valueFor(parameter.name, parameter.schema, doc, targets).map((value) => [[parameter.name, asQueryValue(value)]]),
        },
        // Repeated parameters arrive as arrays.
        {
          weight: 1,
          arbitrary: fc
            .array(hostileString, { minLength: 2, maxLength: 3 })
            .map((values) => values.map((value) => [parameter.name, value])),
        },
      ),
      { freq: 2 },
    ),
  );
  const extra = rarely(fc.tuple(fc.constantFrom('unknown', 'filters[x]', 'limit[]', '__proto__[a]', 'q'), hostileString));
  const rawTail = rarely(fc.constantFrom('&', '&&=', '%', 'a=%zz', '=1', 'limit=1&limit', 'filters=%7B'));
  return fc.tuple(fc.tuple(...documented), extra, rawTail).map(([pairs, extraPair, raw]) => {
    const all = pairs.flatMap((pair) => pair ?? []);
    if (extraPair) all.push(extraPair);
    const encoded = all.map(([key, value]) => `${percentEncode(key!)}=${percentEncode(value!)}`);
    if (raw) encoded.push(raw);
    return encoded.length > 0 ? `?${encoded.join('&')}` : '';
  });
}

/** encodeURIComponent that also takes lone surrogates (sent as U+FFFD, as a UTF-8 encoder would). */
function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

function asQueryValue(value: unknown): string {
  if (typeof value === 'string') return value;
  // The filters parameter is a JSON object in the query (IceHrm's form).
  return JSON.stringify(value) ?? '';
}

const idempotencyKey = rarely(fc.oneof(fc.uuid(), hostileString, fc.constantFrom('k'.repeat(256), 'same-key')), 4);

const extraHeaders = fc.record(
  {
    'X-Request-Id': fc.oneof(
      fc.uuid(),
      hostileString.map((value) => value.replace(/[^\x20-\x7e]/g, '')),
    ),
    'X-Forwarded-For': fc.constantFrom('203.0.113.9', '1.1.1.1, 2.2.2.2', 'garbage', '::1'),
    Accept: fc.constantFrom('application/json', 'text/html', 'application/xml', '*/*', 'application/problem+json'),
    'Accept-Encoding': fc.constantFrom('gzip', 'br', 'identity', 'x-unknown'),
  },
  { requiredKeys: [] },
);

/** Requests for one documented operation: its parameters, query and body, each sometimes hostile. */
function requestsFor(
  method: string,
  operationPath: string,
  operation: Operation,
  doc: OpenApiDocument,
  targets: FuzzTargets,
  bodyLimitBytes: number,
): fc.Arbitrary<FuzzRequest> {
  const parameters = operation.parameters ?? [];
  const pathParameters = parameters.filter((parameter) => parameter.in === 'path');
  const path = fc
    .tuple(...pathParameters.map((parameter) => pathParameterValue(parameter, operationPath, targets)))
    .map((values) => pathParameters.reduce((built, parameter, i) => built.replace(`{${parameter.name}}`, values[i]!), operationPath));
  const query = queryString(
    parameters.filter((parameter) => parameter.in === 'query'),
    doc,
    targets,
  );
  const jsonSchema = operation.requestBody?.content['application/json']?.schema;
  const body: fc.Arbitrary<{ text?: string; contentType?: string }> = jsonSchema
    ? fc.oneof(
        {
          weight: 6,
          arbitrary: objectFor(resolve(jsonSchema, doc), doc, targets).map((value) => ({
            text: JSON.stringify(value),
            contentType: 'application/json',
          })),
        },
        { weight: 2, arbitrary: malformedBody(bodyLimitBytes).map((text) => ({ text, contentType: 'application/json' })) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(objectFor(resolve(jsonSchema, doc), doc, targets), fc.constantFrom(...CONTENT_TYPES))
            .map(([value, contentType]) => ({
              text: contentType.includes('urlencoded')
                ? new URLSearchParams(Object.entries(value).map(([key, field]): [string, string] => [key, asQueryValue(field)])).toString()
                : JSON.stringify(value),
              contentType,
            })),
        },
        { weight: 1, arbitrary: fc.constant({}) },
      )
    : fc.oneof(
        { weight: 6, arbitrary: fc.constant({}) },
        { weight: 1, arbitrary: malformedBody(bodyLimitBytes).map((text) => ({ text, contentType: 'application/json' })) },
      );
  return fc.tuple(path, query, body, idempotencyKey, extraHeaders).map(([builtPath, builtQuery, builtBody, key, headers]) => {
    const requestHeaders: Record<string, string> = { ...headers };
    if (builtBody.contentType) requestHeaders['Content-Type'] = builtBody.contentType;
    if (key !== null) requestHeaders['Idempotency-Key'] = key.replace(/[^\x20-\x7e]/g, '?');
    return describable({
      operation: `${method.toUpperCase()} ${operationPath}`,
      method: method.toUpperCase(),
      path: builtPath + builtQuery,
      headers: requestHeaders,
      body: builtBody.text,
    });
  });
}

/** A request as a failure report shows it: long paths and bodies cut short. */
function describable(request: FuzzRequest): FuzzRequest {
  const cut = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}...(${text.length} characters)` : text);
  const text = `${request.method} ${cut(request.path)} ${JSON.stringify(request.headers)}${request.body === undefined ? '' : ` ${cut(JSON.stringify(request.body))}`}`;
  return Object.assign(request, { [fc.toStringMethod]: () => text });
}

/** A documented path with a method it may not have, or a path the document does not have. */
function strayRequests(paths: string[]): fc.Arbitrary<FuzzRequest> {
  const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'FOO');
  const path = fc.oneof(
    fc.constantFrom(...paths).map((documented) => documented.replace(/\{\w+\}/g, '1')),
    fc.constantFrom(
      '/',
      '//employees',
      '/employees/',
      '/employees/me/',
      '/EMPLOYEES',
      '/employees/1/../me',
      '/employees/%2e%2e/me',
      '/employees;x',
      '/admin',
      '/.env',
      '/.git/config',
    ),
    fc.webPath(),
  );
  return fc.tuple(method, path, extraHeaders).map(([m, p, headers]) => describable({ operation: 'stray', method: m, path: p, headers }));
}

/**
 * Random and hostile requests built from the OpenAPI document: every documented path and method,
 * with their path, query and body parameters, plus stray methods and paths. Paths are relative to
 * the API base path.
 */
export function fuzzRequests(doc: OpenApiDocument, targets: FuzzTargets, bodyLimitBytes: number): fc.Arbitrary<FuzzRequest> {
  const paths = Object.keys(doc.paths ?? {}).filter((path) => path !== '/healthz' && path !== '/readyz');
  const documented = paths.flatMap((path) =>
    Object.entries((doc.paths as Record<string, Record<string, Operation>>)[path]!)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => requestsFor(method, path, operation, doc, targets, bodyLimitBytes)),
  );
  return fc.oneof({ weight: 12, arbitrary: fc.oneof(...documented) }, { weight: 1, arbitrary: strayRequests(paths) });
}

/** Values of the conditional and retry headers: well-formed ones, and ones the document forbids. */
const DOCUMENTED_HEADERS: Record<string, fc.Arbitrary<string>> = {
  'Idempotency-Key': fc.oneof(
    { weight: 4, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.constantFrom('', 'k'.repeat(256), 'two words', 'tab\tkey', 'k'.repeat(255)) },
  ),
  'If-Match': fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('*', '"q2V3yL1rY0l9bJx8n4sQfA"', 'W/"x", "y"') },
    { weight: 1, arbitrary: fc.constantFrom('"x"'.repeat(700), `"${'a'.repeat(3000)}"`) },
  ),
  'If-None-Match': fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('*', '"q2V3yL1rY0l9bJx8n4sQfA"', '"a", "b"') },
    { weight: 1, arbitrary: fc.constantFrom('"x"'.repeat(700), `"${'a'.repeat(3000)}"`) },
  ),
};

/**
 * Requests as a document-driven tester (Schemathesis) builds them: the operation's parameters
 * and body from their schemas, ids that exist, and now and then one value the document forbids
 * (a hostile query value, a header of the wrong form, an unknown body field). Which of them the
 * document allows is for test/helpers/openapi-check.ts's checkRequest to say.
 */
export function documentedRequests(doc: OpenApiDocument, targets: FuzzTargets): fc.Arbitrary<FuzzRequest> {
  const operations = Object.entries((doc.paths ?? {}) as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => documentedRequestFor(method, path, operation, doc, targets)),
  );
  return fc.oneof(...operations);
}

function documentedRequestFor(
  method: string,
  operationPath: string,
  operation: Operation,
  doc: OpenApiDocument,
  targets: FuzzTargets,
): fc.Arbitrary<FuzzRequest> {
  const parameters = operation.parameters ?? [];
  const pathParameters = parameters.filter((parameter) => parameter.in === 'path');
  const path = fc
    .tuple(...pathParameters.map((parameter) => documentedPathValue(parameter, operationPath, doc, targets)))
    .map((values) => pathParameters.reduce((built, parameter, i) => built.replace(`{${parameter.name}}`, values[i]!), operationPath));
  const query = fc
    .tuple(
      ...parameters
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) =>
          fc
            .option(
              fc.oneof(
                { weight: 6, arbitrary: plausibleValueFor(parameter.name, parameter.schema, doc, targets) },
                { weight: 1, arbitrary: hostileString },
              ),
              { freq: 2 },
            )
            .map((value) => (value === null ? [] : [`${percentEncode(parameter.name)}=${percentEncode(asQueryValue(value))}`])),
        ),
    )
    .map((pairs) => (pairs.flat().length > 0 ? `?${pairs.flat().join('&')}` : ''));
  const headers = fc.record(
    Object.fromEntries(
      parameters
        .filter((parameter) => parameter.in === 'header' && Object.hasOwn(DOCUMENTED_HEADERS, parameter.name))
        .map((parameter) => [parameter.name, DOCUMENTED_HEADERS[parameter.name]!]),
    ),
    { requiredKeys: [] },
  );
  const jsonSchema = operation.requestBody?.content['application/json']?.schema;
  const body: fc.Arbitrary<string | undefined> = jsonSchema
    ? fc
        .oneof(
          { weight: 6, arbitrary: documentedObject(resolve(jsonSchema, doc), doc, targets) },
          {
            weight: 1,
            arbitrary: fc
              .tuple(documentedObject(resolve(jsonSchema, doc), doc, targets), fc.constantFrom('unknown', 'id', 'created_at'), hostileValue)
              .map(([value, key, extra]) => ({ ...value, [key]: extra ?? null })),
          },
        )
        .map((value) => JSON.stringify(value))
    : fc.constant(undefined);
  return fc.tuple(path, query, headers, body).map(([builtPath, builtQuery, builtHeaders, builtBody]) =>
    describable({
      operation: `${method.toUpperCase()} ${operationPath}`,
      method: method.toUpperCase(),
      path: builtPath + builtQuery,
      headers: { ...builtHeaders, ...(builtBody === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: builtBody,
    }),
  );
}

/** An object of the schema's properties, each from its own schema: the required ones and some others. */
function documentedObject(schema: Schema, doc: OpenApiDocument, targets: FuzzTargets): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries(schema.properties ?? {});
  const model = Object.fromEntries(properties.map(([key, property]) => [key, plausibleValueFor(key, property, doc, targets)]));
  return plausibleObjectOf(model, schema.required ?? []);
}

/** A path segment, encoded: mostly an id that exists, else one from the schema. */
function documentedPathValue(
  parameter: Parameter,
  operationPath: string,
  doc: OpenApiDocument,
  targets: FuzzTargets,
): fc.Arbitrary<string> {
  const known = pathParameterValue(parameter, operationPath, targets);
  const fromSchema = plausibleValueFor(parameter.name, parameter.schema, doc, targets).map((value) => percentEncode(String(value)));
  return fc.oneof({ weight: 3, arbitrary: known }, { weight: 1, arbitrary: fromSchema });
}
