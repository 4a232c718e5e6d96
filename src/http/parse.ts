import type { z } from 'zod';
import { BadRequestError, type FieldError, ValidationError } from '../errors';

/** Field errors of a failed zod parse, one per field (unknown keys each get their own). */
export function fieldErrorsOf(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: [...issue.path, key].join('.'), message: 'is not a known field' }));
    }
    return [{ field: issue.path.length > 0 ? issue.path.join('.') : 'body', message: issue.message }];
  });
}

/** Query strings and path parameters: a bad one is the caller's malformed request, 400. */
export function parseQuery<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = fieldErrorsOf(result.error);
  throw new BadRequestError({
    code: 'invalid_query',
    title: 'Invalid query parameters',
    detail: errors.map((fieldError) => `${fieldError.field} ${fieldError.message}`).join('; '),
    errors,
  });
}

/** JSON bodies: invalid fields are 422 with every field listed (CONTRACT §7). */
export function parseBody<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(fieldErrorsOf(result.error));
}
