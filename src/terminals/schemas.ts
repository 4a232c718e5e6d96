import { z } from 'zod';
import { timeInput, type TimeInput } from '../attendance/schemas';
import { idSchema, INSTANT_PATTERN, PUNCH_TIME_PATTERN } from '../http/field-schemas';
import { paginationFields } from '../http/pagination';
import { parseIsoInstant } from '../time';

// The bodies and queries of the punch-log routes (docs/terminals.md).

export const MAX_BATCH_ENTRIES = 1000;
export const DIRECTIONS = ['in', 'out', 'auto'] as const;
export type Direction = (typeof DIRECTIONS)[number];
/** What became of an entry. An entry received before is answered `duplicate` and not stored again. */
export const RESULTS = ['created', 'duplicate', 'rejected'] as const;
export type EntryResult = (typeof RESULTS)[number];

const TIME_MESSAGE = "must be an ISO-8601 date-time with an offset, or YYYY-MM-DD HH:MM:SS on the device's wall clock";

/**
 * Half of a UTF-16 surrogate pair without its other half: JSON's \u escapes can carry one, but no
 * database stores it (both write U+FFFD instead), so an id holding one could never be found again.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A device's own id of a punch, or a badge number: text, or a whole number sent as one. */
const deviceText = (what: string) =>
  z
    .preprocess(
      (value) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? String(value) : value),
      z
        .string({ error: `must be ${what} (text or a whole number)` })
        .trim()
        .min(1, { error: 'must not be empty' })
        .max(100, { error: 'must be at most 100 characters' })
        .refine((value) => !LONE_SURROGATE.test(value), { error: 'must be valid Unicode text (it holds half of a UTF-16 surrogate pair)' }),
    )
    .meta({ 'x-accepts': 'deviceText' });

export const punchLogEntrySchema = z
  .strictObject({
    log_id: deviceText("the device's id of the punch"),
    attendance_device_id: deviceText("the employee's badge, card or PIN number").optional(),
    employee: idSchema('an employee').meta({ 'x-accepts': 'id' }).optional(),
    time: z
      .string({ error: TIME_MESSAGE })
      .max(40, { error: 'must be at most 40 characters' })
      .refine((value) => timeInput.safeParse(value).success, { error: TIME_MESSAGE })
      .meta({ pattern: PUNCH_TIME_PATTERN }),
    // Not zod's default(): a document default makes generated clients require the field.
    direction: z
      .enum(DIRECTIONS, { error: 'must be in, out or auto' })
      .optional()
      .transform((direction): Direction => direction ?? 'auto')
      .meta({ description: 'auto when left out: in when the employee has no open record at that time, else out' }),
  })
  .superRefine((entry, context) => {
    if ((entry.attendance_device_id === undefined) === (entry.employee === undefined)) {
      context.addIssue({
        code: 'custom',
        path: ['attendance_device_id'],
        message: 'send exactly one of attendance_device_id and employee',
      });
    }
  })
  // The refinement above, as the document says it to validating tools (Prism, ajv).
  .meta({
    description: 'Names the employee by exactly one of `attendance_device_id` and `employee`',
    oneOf: [{ required: ['attendance_device_id'] }, { required: ['employee'] }],
  });

export const punchLogBatchSchema = z.strictObject({
  entries: z
    .array(punchLogEntrySchema, { error: 'must be a list of punch-log entries' })
    .min(1, { error: 'must hold at least one entry' })
    .max(MAX_BATCH_ENTRIES, { error: `may hold at most ${MAX_BATCH_ENTRIES} entries; split the upload` }),
});

export type PunchLogEntry = z.output<typeof punchLogEntrySchema>;

/** The time of an entry that passed punchLogEntrySchema. */
export function entryTime(entry: PunchLogEntry): TimeInput {
  return timeInput.parse(entry.time);
}

const instantQuery = z
  .string()
  .max(40, { error: 'must be an ISO-8601 date-time with an offset, e.g. 2026-03-02T08:00:00Z' })
  .meta({ pattern: INSTANT_PATTERN })
  .transform((value, context) => {
    const instant = parseIsoInstant(value);
    if (!instant) {
      context.addIssue({ code: 'custom', message: 'must be an ISO-8601 date-time with an offset, e.g. 2026-03-02T08:00:00Z' });
      return z.NEVER;
    }
    return instant;
  });

export const punchLogListQuery = z
  .strictObject({
    ...paginationFields({ defaultLimit: 100, maxLimit: 1000 }),
    device: z.union([z.literal('manual'), idSchema('a device')], { error: 'must be the id of a device, or manual' }).optional(),
    employee: idSchema('an employee').optional(),
    result: z.enum(RESULTS, { error: 'must be created, duplicate or rejected' }).optional(),
    from: instantQuery.optional(),
    to: instantQuery.optional(),
    /** Keyset paging: the entries received before the one with this id (the `id` of a page's last). */
    before: idSchema('a punch-log entry').optional(),
    _: z.string().optional(),
  })
  .refine((query) => !query.from || !query.to || query.from <= query.to, { error: 'from must not be after to', path: ['to'] });
