import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadRequestError, UnsupportedMediaTypeError } from '../errors';

/** No body the API takes nests deeper than a few levels; deeper ones could exhaust the stack of recursive code. */
const MAX_JSON_DEPTH = 32;

/**
 * JSON is the only body the API reads: any other declared type is refused by Fastify with 415.
 * An empty body declared as JSON counts as no body (clients often send the header on a bare POST).
 */
export function acceptJsonBodiesOnly(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text === '') done(null, undefined);
    else if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(new BadRequestError({ code: 'malformed_json', title: 'Malformed JSON', detail: `The request body nests deeper than ${MAX_JSON_DEPTH} levels` }), undefined);
    } else parseJson(request, text, done);
  });
}

/** Whether JSON text opens more than `limit` arrays or objects inside one another (strings skipped). */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i += 1; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (char === 0x5d || char === 0x7d) depth -= 1;
  }
  return false;
}

function isJsonRequest(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && /^application\/json\s*(;|$)/i.test(type);
}

/** The parsed JSON object body of an endpoint that requires one (CONTRACT §6: else 415). */
export function requireJsonObject(request: FastifyRequest): Record<string, unknown> {
  if (!isJsonRequest(request)) throw new UnsupportedMediaTypeError();
  const body: unknown = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadRequestError({ code: 'invalid_body', detail: 'The request body must be a JSON object' });
  }
  return body as Record<string, unknown>;
}

/** The JSON object body of an endpoint whose body is optional ({} when none was sent). */
export function optionalJsonObject(request: FastifyRequest): Record<string, unknown> {
  if (request.body === undefined) return {};
  return requireJsonObject(request);
}
