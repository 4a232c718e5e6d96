import type { Request, RequestHandler } from 'express';
import { BadRequestError, UnsupportedMediaTypeError } from '../errors';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export function isJsonRequest(req: Request): boolean {
  return req.is('application/json') === 'application/json';
}

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
}

/**
 * 415 for a write whose body is not declared as JSON (CONTRACT §6), before anything reads it.
 * A POST with no body at all passes: some endpoints (punch-in) need none.
 */
export function rejectNonJsonBodies(): RequestHandler {
  return (req, _res, next) => {
    if (BODY_METHODS.has(req.method) && hasBody(req) && !isJsonRequest(req)) throw new UnsupportedMediaTypeError();
    next();
  };
}

/** The parsed JSON object body of an endpoint that requires one. */
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
