/** One invalid field of a request body (or query parameter), as reported in a problem's `errors`. */
export interface FieldError {
  field: string;
  message: string;
}

interface AppErrorOptions {
  detail?: string;
  code?: string;
  title?: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
  /** RFC 9457 extension members the problem body carries besides the standard ones (e.g. `open_records`). */
  extensions?: Record<string, unknown>;
}

/**
 * An error the client caused or must be told about. The error handler renders it as an
 * application/problem+json body (docs/api.md, "Errors"); everything else becomes a generic 500.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;

  constructor(status: number, defaults: { code: string; title: string }, options: AppErrorOptions = {}) {
    const title = options.title ?? defaults.title;
    super(options.detail ?? title);
    this.name = new.target.name;
    this.status = status;
    this.code = options.code ?? defaults.code;
    this.title = title;
    this.detail = options.detail ?? title;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }
}

export class BadRequestError extends AppError {
  constructor(options: AppErrorOptions = {}) {
    super(400, { code: 'bad_request', title: 'Bad request' }, options);
  }
}

export class UnauthorizedError extends AppError {
  /**
   * `realm` names the instance ("hrm" when self-hosted). `tokenSent` adds error="invalid_token"
   * (RFC 6750 §3.1): a client that sent no token is only told which scheme to use.
   */
  constructor(options: AppErrorOptions & { realm: string; tokenSent: boolean }) {
    const challenge = options.tokenSent ? `Bearer realm="${options.realm}", error="invalid_token"` : `Bearer realm="${options.realm}"`;
    super(
      401,
      { code: options.tokenSent ? 'invalid_token' : 'unauthorized', title: 'Authentication required' },
      { ...options, headers: { 'WWW-Authenticate': challenge } },
    );
  }
}

export class ForbiddenError extends AppError {
  constructor(options: AppErrorOptions = {}) {
    super(403, { code: 'forbidden', title: 'Not allowed' }, options);
  }
}

export class NotFoundError extends AppError {
  constructor(options: AppErrorOptions = {}) {
    super(404, { code: 'not_found', title: 'Not found' }, options);
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(allowed: string[]) {
    super(
      405,
      { code: 'method_not_allowed', title: 'Method not allowed' },
      { detail: `Allowed methods: ${allowed.join(', ')}`, headers: { Allow: allowed.join(', ') } },
    );
  }
}

export class ConflictError extends AppError {
  constructor(options: AppErrorOptions = {}) {
    super(409, { code: 'conflict', title: 'Conflict' }, options);
  }
}

/** A conditional write (If-Match) whose entity tag no longer matches the resource: nothing written. */
export class PreconditionFailedError extends AppError {
  constructor(options: AppErrorOptions = {}) {
    super(412, { code: 'precondition_failed', title: 'Precondition failed' }, options);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super(
      413,
      { code: 'payload_too_large', title: 'Request body is too large' },
      { detail: `The body may be at most ${limitBytes} bytes` },
    );
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor() {
    super(
      415,
      { code: 'unsupported_media_type', title: 'Unsupported media type' },
      { detail: 'Send the body as JSON with Content-Type: application/json' },
    );
  }
}

export class ValidationError extends AppError {
  constructor(errors: FieldError[]) {
    super(
      422,
      { code: 'validation_failed', title: 'Request body is invalid' },
      { detail: errors.length === 1 ? '1 field is invalid' : `${errors.length} fields are invalid`, errors },
    );
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(options: AppErrorOptions = {}) {
    super(
      503,
      { code: 'service_unavailable', title: 'Service unavailable' },
      { detail: 'The database is unavailable; try again shortly', ...options, headers: { 'Retry-After': '5' } },
    );
  }
}

export class RateLimitedError extends AppError {
  constructor(options: { retryAfterSeconds: number; detail: string; code?: string }) {
    super(
      429,
      { code: 'rate_limited', title: 'Too many requests' },
      { detail: options.detail, code: options.code, headers: { 'Retry-After': String(options.retryAfterSeconds) } },
    );
  }
}
