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

/** JSON bodies: invalid fields are 422 with every field listed (docs/api.md, "Errors"). */
export function parseBody<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(fieldErrorsOf(result.error));
}

/**
 * Parses a create or update body field by field with the schemas of `shape`, so that every
 * invalid field is reported at once and the valid ones can still be checked against the
 * database. `pathId` is the id of the record being updated; without it the body is a create,
 * which must send the `required` fields and no `id`. An update may send back `id` (when it
 * matches the path) and the `readOnly` members of the read shape; they are ignored.
 */
export function parseFields(
  shape: Record<string, z.ZodType>,
  body: Record<string, unknown>,
  options: { pathId: number | undefined; required: readonly string[]; readOnly?: readonly string[]; noun: string },
): { values: Record<string, unknown>; errors: FieldError[] } {
  const values: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  const creating = options.pathId === undefined;
  for (const [field, raw] of Object.entries(body)) {
    if (field === 'id') {
      if (creating) errors.push({ field, message: `must not be sent when creating ${options.noun}` });
      else if (String(raw) !== String(options.pathId)) errors.push({ field, message: 'must match the id in the path' });
      continue;
    }
    if (!creating && options.readOnly?.includes(field)) continue;
    const schema = Object.hasOwn(shape, field) ? shape[field] : undefined;
    if (!schema) {
      errors.push({ field, message: 'is not a known field' });
      continue;
    }
    const result = schema.safeParse(raw);
    if (result.success) values[field] = result.data;
    // zod reports a nested path (an array index) relative to the field.
    else
      errors.push(
        ...fieldErrorsOf(result.error).map((error) => ({ ...error, field: error.field === 'body' ? field : `${field}.${error.field}` })),
      );
  }
  if (creating) {
    for (const field of options.required) {
      if (!Object.hasOwn(body, field)) errors.push({ field, message: 'is required' });
    }
  }
  return { values, errors };
}
