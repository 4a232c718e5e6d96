import type { FastifyReply } from 'fastify';
import type { AppError } from '../errors';

/**
 * Writes an RFC 9457 problem body (CONTRACT §7). `error` repeats it in IceHrm's shape, a list of
 * lists of {code, message}, so that old clients which read only that member still see the cause.
 */
export function sendProblem(reply: FastifyReply, error: AppError, requestId: string): FastifyReply {
  return reply
    .code(error.status)
    .headers(error.headers)
    .type('application/problem+json; charset=utf-8')
    .send(problemBody(error, requestId));
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
    error: [[{ code: error.status, message: `${error.title}: ${summary}` }]],
  };
  return JSON.stringify(body);
}
