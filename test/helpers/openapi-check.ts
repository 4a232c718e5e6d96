import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import standaloneCode from 'ajv/dist/standalone';
import addFormats from 'ajv-formats';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Response } from 'express';
import { loadConfig } from '../../src/config';
import { buildOpenApiDocument, type OpenApiDocument } from '../../src/openapi';

interface DocumentedAnswer {
  $ref?: string;
  content?: Record<string, { schema?: unknown }>;
}

interface Operation {
  responses?: Record<string, DocumentedAnswer>;
}

/**
 * An operation's answer for a status and its JSON pointer in the document, through the `$ref`
 * of a shared answer (components/responses) when it is one.
 */
export function documentedResponse(
  document: OpenApiDocument,
  pointer: string,
  response: DocumentedAnswer | undefined,
): { response: DocumentedAnswer; pointer: string } | undefined {
  const ref = response?.$ref;
  if (ref === undefined) return response && { response, pointer };
  const name = ref.replace('#/components/responses/', '');
  const shared = (document.components?.responses as Record<string, DocumentedAnswer> | undefined)?.[name];
  return shared && { response: shared, pointer: `/components/responses/${escape(name)}` };
}

/**
 * Where compiled validators are kept as standalone modules, by document and pointer: each test
 * file has modules of its own, and compiling a pointer's schema again in every file cost each file
 * more than its checks. Under node_modules, so that their requires of ajv's runtime resolve.
 */
const VALIDATOR_MODULES = path.join(__dirname, '..', '..', 'node_modules', '.cache', 'hrm-openapi-validators');

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** A document with its compiled validators, one per deployment mode (self-hosted, cloud). */
class Checker {
  private compiler: Ajv2020 | undefined;
  private readonly validators = new Map<string, ValidateFunction>();

  /** `key` names the document's content (its hash). */
  constructor(
    readonly document: OpenApiDocument,
    private readonly key: string,
  ) {}

  /** The document's ajv, made when a pointer has no kept validator yet or an answer is wrong. */
  get ajv(): Ajv2020 {
    if (!this.compiler) {
      this.compiler = new Ajv2020({ strict: false, allErrors: true, code: { source: true } });
      addFormats(this.compiler);
      this.compiler.addSchema(this.document as object, 'openapi.json');
    }
    return this.compiler;
  }

  validatorFor(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (validate) return validate;
    const file = path.join(VALIDATOR_MODULES, `${this.key}-${digest(pointer)}.js`);
    if (fs.existsSync(file)) {
      // A module written at run time, by path: there is nothing to import statically.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      validate = require(file) as ValidateFunction;
    } else {
      validate = this.ajv.compile({ $ref: `openapi.json#${pointer}` });
      fs.mkdirSync(VALIDATOR_MODULES, { recursive: true });
      const partial = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(partial, standaloneCode(this.ajv, validate));
      fs.renameSync(partial, file);
    }
    this.validators.set(pointer, validate);
    return validate;
  }
}

type Deployment = 'self-hosted' | 'cloud';
const DEPLOYMENTS: Deployment[] = ['self-hosted', 'cloud'];
/** Where global-setup.ts left this run's documents, one JSON file per deployment. */
const DOCUMENT_FILES = 'HRM_TEST_OPENAPI_FILES';

/**
 * Builds the checked documents once for the run (global-setup.ts): each test file has modules of
 * its own, so building them per file cost every integration file the whole document. The files
 * are named by their content, so runs of the same sources share them.
 */
export function publishCheckedDocuments(): void {
  const files: Partial<Record<Deployment, string>> = {};
  for (const deployment of DEPLOYMENTS) {
    const text = JSON.stringify(buildOpenApiDocument(loadConfig({ DEPLOYMENT: deployment })));
    const file = path.join(os.tmpdir(), `hrm-openapi-${digest(text)}.json`);
    if (fs.existsSync(file)) fs.utimesSync(file, new Date(), new Date());
    else {
      const partial = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(partial, text);
      fs.renameSync(partial, file);
    }
    files[deployment] = file;
  }
  process.env[DOCUMENT_FILES] = JSON.stringify(files);
  // Other sources' documents and validators, a day after their last run.
  const keys = Object.values(files).map((file) => path.basename(file, '.json').replace('hrm-openapi-', ''));
  // (another run may have removed a file meanwhile)
  const stale = (file: string) => Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 86_400_000;
  for (const name of fs.readdirSync(os.tmpdir())) {
    const file = path.join(os.tmpdir(), name);
    if (/^hrm-openapi-\w+\.json$/.test(name) && !keys.some((key) => name.includes(key)) && stale(file)) fs.rmSync(file, { force: true });
  }
  for (const name of fs.existsSync(VALIDATOR_MODULES) ? fs.readdirSync(VALIDATOR_MODULES) : []) {
    const file = path.join(VALIDATOR_MODULES, name);
    if (!keys.some((key) => name.startsWith(key)) && stale(file)) fs.rmSync(file, { force: true });
  }
}

/** The run's document for `deployment` and its text's hash, built here when no global setup published it. */
function checkedDocument(deployment: Deployment): { document: OpenApiDocument; key: string } {
  const file = (JSON.parse(process.env[DOCUMENT_FILES] ?? '{}') as Partial<Record<Deployment, string>>)[deployment];
  const text =
    file !== undefined && fs.existsSync(file)
      ? fs.readFileSync(file, 'utf8')
      : JSON.stringify(buildOpenApiDocument(loadConfig({ DEPLOYMENT: deployment })));
  return { document: JSON.parse(text) as OpenApiDocument, key: digest(text) };
}

const checkers = new Map<string, Checker>();
function checkerFor(deployment: Deployment): Checker {
  let checker = checkers.get(deployment);
  if (!checker) {
    const { document, key } = checkedDocument(deployment);
    checker = new Checker(document, key);
    checkers.set(deployment, checker);
  }
  return checker;
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Checks one response against the OpenAPI document: its operation must list the status and the
 * media type, and the body must match the schema. Returns what is wrong, or undefined. Responses
 * the document cannot describe (no route matched: 401 before routing, 404 of unknown paths) and
 * preflights are not checked.
 */
export function checkAgainstDocument(
  response: {
    method: string;
    route: string | undefined;
    basePattern: RegExp;
    status: number;
    contentType: string | undefined;
    body: string | undefined;
  },
  deployment: 'self-hosted' | 'cloud' = 'self-hosted',
): string | undefined {
  const checker = checkerFor(deployment);
  const { document } = checker;
  if (!response.route || response.method === 'OPTIONS') return undefined;
  const path = response.route.replace(response.basePattern, '').replace(/:(\w+)/g, '{$1}') || '/';
  const method = response.method === 'HEAD' ? 'get' : response.method.toLowerCase();
  const operations = (document.paths as Record<string, Record<string, Operation>> | undefined)?.[path];
  if (!operations) return `${response.method} ${path}: the path is not in the document`;
  const operation = operations[method];
  const where = `${response.method} ${path} ${response.status}`;
  if (!operation) {
    // The path's other methods are answered 405, unless a check that comes before routing (the
    // token, the settings gate, a rate limit, the body) refuses the request first.
    const refused = response.status >= 400 && response.status < 500;
    return refused
      ? validateBody(checker, where, '/components/schemas/Problem', response.body)
      : `${where}: the method is not in the document`;
  }
  const found = documentedResponse(
    document,
    `/paths/${escape(path)}/${method}/responses/${response.status}`,
    operation.responses?.[String(response.status)],
  );
  if (!found) return `${where}: the status is not in the document`;
  const documented = found.response;
  const mediaType = (response.contentType ?? '').split(';')[0]?.trim() ?? '';
  if (!documented.content) return undefined;
  // An empty answer to a client that had already gone away.
  if (!mediaType && !response.body) return undefined;
  if (!documented.content[mediaType]) return `${where}: ${mediaType || 'no content type'} is not in the document`;
  if (response.method === 'HEAD' || !mediaType.includes('json')) return undefined;
  return validateBody(checker, where, `${found.pointer}/content/${escape(mediaType)}/schema`, response.body);
}

function validateBody(checker: Checker, where: string, pointer: string, body: string | undefined): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body ?? '');
  } catch {
    return `${where}: the body is not JSON`;
  }
  const validate = checker.validatorFor(pointer);
  if (validate(parsed)) return undefined;
  return `${where}: ${checker.ajv.errorsText(validate.errors)} in ${JSON.stringify(parsed).slice(0, 300)}`;
}

/**
 * Wraps a test app's request listener so that every response is checked against the document:
 * `mismatches()` lists the ones that do not match, and the test app fails its test file with
 * them when it closes. `base` is the app's base path pattern (`/app/api`, `/api/:instance`).
 */
export function checkResponsesAgainstDocument(
  listener: RequestListener,
  base: string,
  deployment: 'self-hosted' | 'cloud' = 'self-hosted',
): { listener: RequestListener; mismatches(): string[] } {
  const found: string[] = [];
  const basePattern = new RegExp(`^${base}`);
  const checked: RequestListener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    const keep = (chunk: unknown) => {
      if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
      else if (Buffer.isBuffer(chunk)) chunks.push(chunk);
    };
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      keep(chunk);
      return write(chunk, ...rest);
    }) as ServerResponse['write'];
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (typeof chunk !== 'function') keep(chunk);
      return end(chunk, ...rest);
    }) as ServerResponse['end'];
    res.once('finish', () => {
      const route = (res as Response).locals?.route;
      const problem = checkAgainstDocument(
        {
          method: req.method ?? 'GET',
          route: route === undefined ? undefined : `${base}${route}`,
          basePattern,
          status: res.statusCode,
          contentType: res.getHeader('content-type') as string | undefined,
          body: Buffer.concat(chunks).toString('utf8'),
        },
        deployment,
      );
      if (problem) found.push(problem);
    });
    listener(req, res);
  };
  return { listener: checked, mismatches: () => [...new Set(found)] };
}

/** What is wrong with `value` as the document's component schema `name` (e.g. Problem), or undefined. */
export function checkComponent(name: string, value: unknown, deployment: 'self-hosted' | 'cloud' = 'self-hosted'): string | undefined {
  const checker = checkerFor(deployment);
  const validate = checker.validatorFor(`/components/schemas/${escape(name)}`);
  return validate(value) ? undefined : checker.ajv.errorsText(validate.errors);
}

/**
 * The document's verdict on a request body, as a validating proxy (Prism) gives it: what is wrong
 * with `body` for the operation's JSON request schema, or undefined when it is accepted.
 */
export function checkRequestBody(
  path: string,
  method: string,
  body: unknown,
  deployment: 'self-hosted' | 'cloud' = 'self-hosted',
): string | undefined {
  const checker = checkerFor(deployment);
  const validate = checker.validatorFor(`/paths/${escape(path)}/${method}/requestBody/content/application~1json/schema`);
  return validate(body) ? undefined : checker.ajv.errorsText(validate.errors);
}

/** The document's verdict on one parameter value of an operation (undefined: accepted). */
export function checkParameter(
  path: string,
  method: string,
  index: number,
  value: unknown,
  deployment: 'self-hosted' | 'cloud' = 'self-hosted',
): string | undefined {
  const checker = checkerFor(deployment);
  const validate = checker.validatorFor(`/paths/${escape(path)}/${method}/parameters/${index}/schema`);
  return validate(value) ? undefined : checker.ajv.errorsText(validate.errors);
}

interface DocumentedParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: { type?: string | string[]; anyOf?: Array<{ type?: string | string[] }> };
}

interface DocumentedOperation {
  parameters?: DocumentedParameter[];
  requestBody?: { required?: boolean; content?: Record<string, unknown> };
}

/** What the document says of a request: it allows it, forbids it (why), or does not say (unknown). */
export type RequestVerdict = { verdict: 'allowed' } | { verdict: 'forbidden'; reasons: string[] } | { verdict: 'unknown'; reason: string };

/**
 * Query and path values are text on the wire; a tool that follows the document (Schemathesis)
 * writes a number or boolean parameter in its canonical form, so that form is read as the number.
 */
function wireValues(text: string): unknown[] {
  const values: unknown[] = [text];
  if (text !== '' && String(Number(text)) === text) values.push(Number(text));
  if (text === 'true' || text === 'false') values.push(text === 'true');
  return values;
}

function parsedJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * The document's verdict on a whole request, as a document-driven tester (Schemathesis) reads it:
 * its path, query and header parameters and its body against the operation `template` ("POST
 * /employees/{id}"). Undocumented headers are ignored; what the document leaves open (a query
 * parameter it does not list, a body in another charset) is `unknown`.
 */
export function checkRequest(
  template: string,
  request: { path: string; headers: Record<string, string>; body?: string },
  deployment: 'self-hosted' | 'cloud' = 'self-hosted',
): RequestVerdict {
  const checker = checkerFor(deployment);
  const [method = '', pathTemplate = ''] = template.split(' ');
  const operation = (checker.document.paths as Record<string, Record<string, DocumentedOperation>> | undefined)?.[pathTemplate]?.[
    method.toLowerCase()
  ];
  if (!operation) return { verdict: 'unknown', reason: 'not a documented operation' };
  const reasons: string[] = [];
  const parameters = operation.parameters ?? [];
  const pointer = (index: number) => `/paths/${escape(pathTemplate)}/${method.toLowerCase()}/parameters/${index}/schema`;
  const check = (index: number, name: string, values: unknown[]) => {
    const validate = checker.validatorFor(pointer(index));
    if (!values.some((value) => validate(value))) reasons.push(`${name}: ${checker.ajv.errorsText(validate.errors)}`);
  };

  const queryAt = request.path.indexOf('?');
  const pathPart = queryAt === -1 ? request.path : request.path.slice(0, queryAt);
  const queryPart = queryAt === -1 ? '' : request.path.slice(queryAt + 1);
  let unknownReason: string | undefined;
  const templateSegments = pathTemplate.split('/');
  const segments = pathPart.split('/');
  if (segments.length !== templateSegments.length) return { verdict: 'forbidden', reasons: ['the path has another number of segments'] };
  templateSegments.forEach((segment, i) => {
    const name = /^\{(\w+)\}$/.exec(segment)?.[1];
    const sent = segments[i] as string;
    if (!name) {
      if (sent !== segment) reasons.push(`path segment ${sent} is not ${segment}`);
      return;
    }
    const index = parameters.findIndex((parameter) => parameter.in === 'path' && parameter.name === name);
    const value = decoded(sent);
    // An empty segment is another route's path (GET /attendance/ is the list), not this one's.
    if (value === '') unknownReason ??= `an empty ${name}`;
    else if (value === undefined) reasons.push(`${name}: broken percent-encoding`);
    else check(index, name, wireValues(value));
  });

  if (unknownReason) return { verdict: 'unknown', reason: unknownReason };
  const query = new Map<string, string[]>();
  for (const pair of queryPart === '' ? [] : queryPart.split('&')) {
    const [rawName = '', ...rest] = pair.split('=');
    const name = decoded(rawName.replace(/\+/g, ' '));
    const value = rest.length === 0 ? '' : decoded(rest.join('=').replace(/\+/g, ' '));
    if (name === undefined || value === undefined) return { verdict: 'unknown', reason: 'a query pair that does not decode' };
    query.set(name, [...(query.get(name) ?? []), value]);
  }
  for (const [name, values] of query) {
    const index = parameters.findIndex((parameter) => parameter.in === 'query' && parameter.name === name);
    if (index === -1) return { verdict: 'unknown', reason: `query parameter ${name} is not in the document` };
    if (values.length > 1) reasons.push(`${name}: given ${values.length} times`);
    else check(index, name, wireValues(values[0] as string));
  }

  const headerOf = (name: string) => Object.entries(request.headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
  parameters.forEach((parameter, index) => {
    if (parameter.in === 'query' && parameter.required && !query.has(parameter.name)) reasons.push(`${parameter.name}: required`);
    if (parameter.in !== 'header') return;
    const value = headerOf(parameter.name);
    if (value !== undefined) check(index, parameter.name, [value]);
    else if (parameter.required) reasons.push(`${parameter.name}: required`);
  });

  const content = operation.requestBody?.content ?? {};
  const contentType = headerOf('Content-Type');
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (request.body === undefined || request.body === '') {
    if (operation.requestBody?.required) reasons.push('the body is required');
  } else if (!mediaType || !Object.hasOwn(content, mediaType)) {
    reasons.push(`the body's type ${contentType ?? '(none)'} is not one the operation takes`);
  } else if (contentType !== mediaType && !/^[^;]+;\s*charset=utf-8$/i.test(contentType ?? '')) {
    return { verdict: 'unknown', reason: `the body's type ${contentType}` };
  } else if (mediaType === 'application/json') {
    const body = parsedJson(request.body);
    const validate = checker.validatorFor(
      `/paths/${escape(pathTemplate)}/${method.toLowerCase()}/requestBody/content/application~1json/schema`,
    );
    if (!body) reasons.push('the body is not JSON');
    else if (!validate(body.value)) reasons.push(`body: ${checker.ajv.errorsText(validate.errors)}`);
  } else {
    return { verdict: 'unknown', reason: `a ${mediaType} body is not checked` };
  }
  return reasons.length === 0 ? { verdict: 'allowed' } : { verdict: 'forbidden', reasons };
}
