import express, { type Request, type RequestHandler } from 'express';
import sjson from 'secure-json-parse';
import { BadRequestError, UnsupportedMediaTypeError } from '../errors';
import { routePathOf } from './routes';

/** No body the API takes nests deeper than a few levels; deeper ones could exhaust the stack of recursive code. */
const MAX_JSON_DEPTH = 32;

const JSON_TYPE = /^application\/json\s*(;|$)/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;
/** Fields a form body may hold (the sign-in form has five); more is 400 invalid_body. */
export const FORM_FIELD_LIMIT = 20;

/**
 * Request bodies under the base path: JSON (express.json, strict: an object or an array), at most
 * `limitBytes`, nested at most 32 levels, without `__proto__` or `constructor.prototype` keys. A
 * body of any other type is refused at once with 415, before the settings gate and the token
 * (a client learns nothing of the API by sending one); form bodies only at `formPaths` (the OAuth
 * token endpoint, RFC 6749 §4.3). An empty body declared as JSON counts as no body: clients often
 * send the header on a bare POST.
 */
export function acceptBodies(options: {
  limitBytes: number;
  formPaths: ReadonlySet<string>;
  /** Paths that take larger JSON bodies (a terminal's batch of punches), with their limit. */
  largeBodies: ReadonlyMap<string, number>;
}): RequestHandler {
  const emptyBodies = new WeakSet<Request>();
  const jsonParser = (limit: number) =>
    express.json({
      limit,
      strict: true,
      verify: (req, _res, raw) => {
        if (raw.length === 0) emptyBodies.add(req as Request);
        else checkJsonText(raw.toString('utf8'));
      },
    });
  const smallJson = jsonParser(options.limitBytes);
  const largeJson = new Map([...options.largeBodies].map(([path, limit]) => [path, jsonParser(Math.max(options.limitBytes, limit))]));
  const form = express.urlencoded({ limit: options.limitBytes, extended: false, parameterLimit: FORM_FIELD_LIMIT });
  const { formPaths } = options;
  return (req, res, next) => {
    if (!hasBody(req)) return next();
    const type = req.headers['content-type'] ?? '';
    if (JSON_TYPE.test(type)) {
      const json = (largeJson.size > 0 && largeJson.get(routePathOf(req))) || smallJson;
      return json(req, res, (error?: unknown) => {
        if (emptyBodies.has(req)) req.body = undefined;
        next(error);
      });
    }
    if (FORM_TYPE.test(type) && formPaths.has(routePathOf(req))) return form(req, res, next);
    next(new UnsupportedMediaTypeError());
  };
}

function hasBody(req: Request): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0')
  );
}

/**
 * Refuses JSON text the parser would take but the API must not: nested deeper than the limit,
 * or with keys that would reach an object's prototype once merged into another object.
 */
function checkJsonText(text: string): void {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new BadRequestError({
      code: 'malformed_json',
      title: 'Malformed JSON',
      detail: `The request body nests deeper than ${MAX_JSON_DEPTH} levels`,
    });
  }
  if (text.includes('__proto__') || text.includes('constructor')) {
    try {
      sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch (error) {
      // Broken JSON is left to the parser, which says so; a poisoned key is refused here.
      if (error instanceof SyntaxError && /prototype/.test(error.message)) {
        throw new BadRequestError({ code: 'malformed_json', title: 'Malformed JSON', detail: 'The request body is not valid JSON' });
      }
    }
  }
}

/** Whether JSON text opens more than `limit` arrays or objects inside one another (strings skipped). */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c)
        i += 1; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (char === 0x5d || char === 0x7d) depth -= 1;
  }
  return false;
}

function isJsonRequest(req: Request): boolean {
  const type = req.headers['content-type'];
  return typeof type === 'string' && JSON_TYPE.test(type);
}

/** The parsed JSON object body of an endpoint that requires one (docs/decisions.md, "Requests and errors": else 415). */
export function requireJsonObject(req: Request): Record<string, unknown> {
  if (!isJsonRequest(req)) throw new UnsupportedMediaTypeError();
  const body: unknown = req.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadRequestError({ code: 'invalid_body', detail: 'The request body must be a JSON object' });
  }
  return body as Record<string, unknown>;
}

/** The JSON object body of an endpoint whose body is optional ({} when none was sent). */
export function optionalJsonObject(req: Request): Record<string, unknown> {
  if (req.body === undefined) return {};
  return requireJsonObject(req);
}
