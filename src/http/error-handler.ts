import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
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

/** Fields whose uniqueness a client can violate: codes, usernames, reference names. */
const UNIQUE_FIELDS = ['employee_id', 'username', 'name'];

/** The field a unique violation is about, from the index name or column list the driver gives. */
function duplicateField(key: string): string | undefined {
  return UNIQUE_FIELDS.find((field) => key.endsWith(`_${field}_unique`) || key.split(/,\s*/).some((column) => column.endsWith(`.${field}`)));
}

class InternalError extends AppError {
  constructor() {
    super(500, { code: 'internal_error', title: 'Internal server error' }, {
      detail: 'Something went wrong on our side; the request id identifies it in the server log',
    });
  }
}

/**
 * The only error handler. Every failure reaches it; it decides the status and problem body and
 * logs unexpected errors once. Nothing from a driver, a stack or SQL reaches the client.
 */
export function errorHandler(options: { bodyLimitBytes: number }) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const appError = toAppError(error, options);
    if (!appError) {
      request.log.error({ err: error }, 'unexpected error');
    } else if (appError.status >= 500) {
      request.log.warn({ err: error, code: appError.code }, 'request failed');
    }
    return sendProblem(reply, appError ?? new InternalError(), request.id);
  };
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
  if (isUnavailableError(error)) return new ServiceUnavailableError();
  return undefined;
}

/** Errors Fastify raises while reading a request (media type, size, JSON syntax, URL). */
function asRequestError(error: unknown, bodyLimitBytes: number): AppError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code } = error as Partial<FastifyError>;
  switch (code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new UnsupportedMediaTypeError();
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLargeError(bodyLimitBytes);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      // Also a body with "__proto__" or "constructor.prototype" keys, refused as unsafe.
      return new BadRequestError({ code: 'malformed_json', title: 'Malformed JSON', detail: 'The request body is not valid JSON' });
    case 'FST_ERR_HANDLER_TIMEOUT':
      return new ServiceUnavailableError({ detail: 'The request took too long (the database may be unavailable); try again shortly' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_BAD_URL':
      return new BadRequestError({ detail: 'The request is malformed' });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError(414, { code: 'uri_too_long', title: 'URI too long' }, { detail: 'A path segment is longer than any id or key' });
    default:
      return undefined;
  }
}
