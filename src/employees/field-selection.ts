import { z } from 'zod';
import { EMPLOYEE_FIELDS, type EmployeeField, PERSONAL_FIELDS } from '../employee-records/fields';

// `fields=` on GET /employees, /employees/{id} and /employees/me (docs/api.md, "Field selection").

/** The members of the read shape a caller may name, in their order on the wire (`id` is always answered). */
export const READ_FIELDS = ['id', ...EMPLOYEE_FIELDS, 'created_at', 'updated_at'] as const;
export type ReadField = (typeof READ_FIELDS)[number];

/** What /employees/me adds to the read shape: the caller's account, as IceHrm's /me answers it. */
export const ACCOUNT_FIELDS = ['user_name', 'user_email', 'user_level', 'can_login', 'current_time'] as const;
export type AccountField = (typeof ACCOUNT_FIELDS)[number];

/**
 * Accepted and without effect: `restricted_fields` is answered whenever a named personal field is
 * left out, so a client that sends back every key it read is not refused.
 */
const RESTRICTED_FIELDS = 'restricted_fields';

const PERSONAL = new Set<string>(PERSONAL_FIELDS);

/** The fields a request named, in wire order, `id` left out (it is always answered). */
export interface FieldSelection {
  /** Read-shape fields other than `id`, in wire order. */
  fields: ReadonlyArray<Exclude<ReadField, 'id'>>;
  /** The named personal fields (as ordered in restricted_fields): left out for callers who may not read them. */
  personal: readonly EmployeeField[];
  /** The named account fields (/employees/me only), in wire order. */
  account: readonly AccountField[];
}

/** How many distinct selections are kept parsed: a sync asks the same few again and again. */
const MAX_REMEMBERED = 200;

/**
 * The `fields` query parameter: comma-separated names (spaces around them and empty items are
 * ignored; the parameter given twice is read as one list). Answers the selection, or undefined
 * when the parameter is absent. No name at all is 400: an empty list is more likely a client's
 * mistake than a wish for every field, and answering every field would hide it. `account`: the
 * account fields of /employees/me are names too.
 */
/** An unknown name as the error repeats it: cut short, so ten of them stay within the document's message length. */
const echoed = (name: string) => (name.length > 60 ? `${name.slice(0, 60)}...` : name);

/** Longer than every field name of the read shape and /me's, each once, with commas and spaces. */
const MAX_FIELDS_LENGTH = 2000;

export function fieldsParameter(options: { account: boolean }) {
  const known = new Set<string>([...READ_FIELDS, RESTRICTED_FIELDS, ...(options.account ? ACCOUNT_FIELDS : [])]);
  const remembered = new Map<string, FieldSelection>();
  // The same rule for the document: at least one known name, commas and spaces around them.
  const oneName = `(?:${[...known].join('|')})`;
  const pattern = `^[\\s,]*${oneName}(?:\\s*,[\\s,]*${oneName})*[\\s,]*$`;
  return z
    .preprocess(
      (value) => (Array.isArray(value) ? value.join(',') : value),
      z
        .string({ error: 'must be comma-separated field names' })
        .max(MAX_FIELDS_LENGTH, { error: `must be at most ${MAX_FIELDS_LENGTH} characters` }),
    )
    .transform((text, context) => {
      const cached = remembered.get(text);
      if (cached) return cached;
      const names = text
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '');
      const unknown = [...new Set(names.filter((name) => !known.has(name)))];
      if (names.length === 0 || unknown.length > 0) {
        context.addIssue({
          code: 'custom',
          message:
            names.length === 0
              ? 'must name at least one field of the read shape'
              : `names ${unknown.length === 1 ? 'an unknown field' : 'unknown fields'}: ${unknown.slice(0, 10).map(echoed).join(', ')}`,
        });
        return z.NEVER;
      }
      const named = new Set(names);
      const selection: FieldSelection = {
        fields: READ_FIELDS.filter((field): field is Exclude<ReadField, 'id'> => field !== 'id' && named.has(field)),
        // In the order of restricted_fields without fields=.
        personal: PERSONAL_FIELDS.filter((field) => named.has(field)),
        account: ACCOUNT_FIELDS.filter((field) => named.has(field)),
      };
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      remembered.set(text, selection);
      return selection;
    })
    .optional()
    .meta({
      pattern,
      maxLength: MAX_FIELDS_LENGTH,
      description: `Comma-separated names of read-shape fields${options.account ? ' and account fields (user_name, user_email, user_level, can_login, current_time)' : ''}: only those (and id) are answered, in the read shape's order (for example \`first_name,last_name,work_email\`). An unknown name is 400 \`invalid_query\`, so is an empty list. A personal field the caller may not read is left out as without fields=, and listed in restricted_fields`,
    });
}

/** Whether a selection names a personal field. */
export function isPersonalField(field: string): boolean {
  return PERSONAL.has(field);
}

/**
 * The query of GET /employees/{id}: `fields`. Other parameters are ignored, as they were before
 * fields= existed (a client's cache-buster, say).
 */
export const employeeQuery = z.object({ fields: fieldsParameter({ account: false }) });

/** The query of GET /employees/me: `fields`, which may also name the account fields. */
export const meQuery = z.object({ fields: fieldsParameter({ account: true }) });
