import type { ErrorRequestHandler, Request, Response } from 'express';
import { asUniqueViolation, isForeignKeyViolation, isStatementTimeout, isUnavailableError } from '../db/constraint-errors';
import {
  AppError,
  BadRequestError,
  ConflictError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
} from '../errors';
import { requestIdOf } from './context';
import { FORM_FIELD_LIMIT } from './json-body';
import { sendProblem } from './problem';

/** Fields whose uniqueness a client can violate: codes, usernames, reference names. */
const UNIQUE_FIELDS = ['employee_id', 'attendance_device_id', 'payroll_id', 'username', 'name'];

/** The field a unique violation is about, from the index name or column list the driver gives. */
function duplicateField(key: string): string | undefined {
  return UNIQUE_FIELDS.find(
    (field) => key.endsWith(`_${field}_unique`) || key.split(/,\s*/).some((column) => column.endsWith(`.${field}`)),
  );
}

class InternalError extends AppError {
  constructor() {
    super(
      500,
      { code: 'internal_error', title: 'Internal server error' },
      {
        detail: 'Something went wrong on our side; the request id identifies it in the server log',
      },
    );
  }
}

/**
 * The only error handler: every failure reaches it (Express 5 passes rejected handlers on). It
 * decides the status and problem body and logs unexpected errors once. Nothing from a driver, a
 * stack or SQL reaches the client.
 */
export function errorHandler(options: { bodyLimitBytes: number }): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => renderError(error, req, res, options);
}

/** Answers `error` with its problem body, or ends the response if an answer was already begun. */
function renderError(error: unknown, req: Request, res: Response, options: { bodyLimitBytes: number }): void {
  const appError = toAppError(error, options);
  if (!appError) {
    req.log.error({ err: error }, 'unexpected error');
  } else if (appError.status >= 500) {
    req.log.warn({ err: error, code: appError.code }, 'request failed');
  }
  // A response already on its way (a request timed out, then its handler failed) cannot change.
  if (res.headersSent) {
    if (!res.writableEnded) res.destroy();
    return;
  }
  sendProblem(res, appError ?? new InternalError(), requestIdOf(req));
}

/** The client-facing error for anything thrown; undefined means "unexpected: answer 500". */
export function toAppError(error: unknown, options: { bodyLimitBytes: number }): AppError | undefined {
  if (error instanceof AppError) return error;
  const requestError = asRequestError(error, options.bodyLimitBytes);
  if (requestError) return requestError;
  const unique = asUniqueViolation(error);
  if (unique) {
    const field = duplicateField(unique.key);
    if (!field) return undefined;
    return new ConflictError({
      code: 'duplicate',
      detail: `Another record already has this ${field}`,
      errors: [{ field, message: 'is already in use' }],
    });
  }
  if (isForeignKeyViolation(error)) {
    return new ConflictError({ detail: 'A referenced record was changed or removed meanwhile; reload and retry' });
  }
  if (isStatementTimeout(error)) {
    return new ServiceUnavailableError({
      code: 'query_timeout',
      detail: 'The list took too long to read and was stopped; narrow it (filters, a sortField with an index) or try again shortly',
    });
  }
  if (isUnavailableError(error)) return new ServiceUnavailableError();
  return undefined;
}

/**
 * Errors raised while reading a request: the body parser's (http-errors with a `type`) and the
 * router's, which fails to decode a percent-encoded path parameter with a 400 URIError.
 */
function asRequestError(error: unknown, bodyLimitBytes: number): AppError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, status, limit } = error as { type?: unknown; status?: unknown; limit?: unknown };
  switch (type) {
    case 'entity.too.large':
      // The parser's own limit: some paths take larger bodies (acceptBodies' largeBodies).
      return new PayloadTooLargeError(typeof limit === 'number' ? limit : bodyLimitBytes);
    case 'entity.parse.failed':
      return new BadRequestError({ code: 'malformed_json', title: 'Malformed JSON', detail: 'The request body is not valid JSON' });
    case 'parameters.too.many':
      return new BadRequestError({ code: 'invalid_body', detail: `A form body holds at most ${FORM_FIELD_LIMIT} fields` });
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new UnsupportedMediaTypeError();
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new BadRequestError({ detail: 'The request is malformed' });
  }
  if (error instanceof URIError && status === 400) return new BadRequestError({ detail: 'The request is malformed' });
  return undefined;
}
