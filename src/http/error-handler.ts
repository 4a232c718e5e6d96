import type { ErrorRequestHandler, Request } from 'express';
import { asUniqueViolation, isForeignKeyViolation, isUnavailableError } from '../db/constraint-errors';
import {
  AppError,
  BadRequestError,
  ConflictError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
} from '../errors';
import { sendProblem } from './problem';

/** Unique indexes whose violation is the client's doing, by the key the driver reports. */
const UNIQUE_KEY_FIELDS: Record<string, string> = {
  employees_employee_id_unique: 'employee_id',
  employee_id: 'employee_id',
  users_username_unique: 'username',
  username: 'username',
};

/** Errors raised by express.json() (body-parser) carry a `type`. */
interface BodyParserError {
  type: string;
  limit?: number;
}

/**
 * The only error handler. Every failure reaches it; it decides the status and problem body and
 * logs unexpected errors once. Nothing from a driver, a stack or SQL reaches the client.
 */
export function errorHandler(): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const appError = toAppError(error);
    if (!appError) {
      req.log.error({ err: error }, 'unexpected error');
    } else if (appError.status >= 500) {
      req.log.warn({ err: error, code: appError.code }, 'request failed');
    }
    if (res.headersSent) {
      // Half a response is already out; all we can do is cut the connection.
      res.destroy();
      return;
    }
    sendProblem(res, appError ?? new InternalError(), requestIdOf(req));
  };
}

/** The client-facing error for anything thrown; undefined means "unexpected: answer 500". */
export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  const bodyError = asBodyParserError(error);
  if (bodyError) return bodyError;
  const unique = asUniqueViolation(error);
  if (unique) {
    const field = UNIQUE_KEY_FIELDS[unique.key];
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
  if (isUnavailableError(error)) return new ServiceUnavailableError();
  return undefined;
}

function asBodyParserError(error: unknown): AppError | undefined {
  if (typeof error !== 'object' || error === null || typeof (error as BodyParserError).type !== 'string') return undefined;
  const { type, limit } = error as BodyParserError;
  switch (type) {
    case 'entity.parse.failed':
      return new BadRequestError({ code: 'malformed_json', title: 'Malformed JSON', detail: 'The request body is not valid JSON' });
    case 'entity.too.large':
      return new PayloadTooLargeError(limit ?? 0);
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new UnsupportedMediaTypeError();
    case 'request.aborted':
    case 'request.size.invalid':
      return new BadRequestError({ detail: 'The request body was incomplete' });
    default:
      return undefined;
  }
}

class InternalError extends AppError {
  constructor() {
    super(500, { code: 'internal_error', title: 'Internal server error' }, {
      detail: 'Something went wrong on our side; the request id identifies it in the server log',
    });
  }
}

export function requestIdOf(req: Request): string {
  return String(req.id);
}
