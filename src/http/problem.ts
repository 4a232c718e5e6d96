import type { Response } from 'express';
import type { AppError } from '../errors';
import { sendText } from './send';

/**
 * Writes an RFC 9457 problem body (docs/api.md, "Errors"). `error` repeats it in IceHrm's shape, a list of
 * lists of {code, message}, so that old clients which read only that member still see the cause.
 */
export function sendProblem(res: Response, error: AppError, requestId: string): void {
  // Outside the base path too: an error is never worth keeping in a cache.
  res.setHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  sendText(res, error.status, 'application/problem+json; charset=utf-8', problemBody(error, requestId));
}

/** The problem body of an error, as JSON text. */
export function problemBody(error: AppError, requestId: string): string {
  const summary = error.errors?.length
    ? error.errors.map((fieldError) => `${fieldError.field} ${fieldError.message}`).join('; ')
    : error.detail;
  const body = {
    type: `urn:hrm:problem:${error.code}`,
    title: error.title,
    status: error.status,
    detail: error.detail,
    code: error.code,
    request_id: requestId,
    ...(error.errors ? { errors: error.errors } : {}),
    ...error.extensions,
    error: [[{ code: error.status, message: `${error.title}: ${summary}` }]],
  };
  return JSON.stringify(body);
}
