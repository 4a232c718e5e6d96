import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadRequestError, UnsupportedMediaTypeError } from '../errors';

/**
 * JSON is the only body the API reads: any other declared type is refused by Fastify with 415.
 * An empty body declared as JSON counts as no body (clients often send the header on a bare POST).
 */
export function acceptJsonBodiesOnly(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined);
    else parseJson(request, body as string, done);
  });
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
