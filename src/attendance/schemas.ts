import { z } from 'zod';
import type { FieldError } from '../errors';
import { CALENDAR_DATE_PATTERN, idSchema, PUNCH_TIME_PATTERN, instant, isPlainObject, optionalText } from '../http/field-schemas';
import { paginationFields } from '../http/pagination';
import { parseFields } from '../http/parse';
import { isCalendarDate, isWallClock, parseIsoInstant } from '../time';

// Attendance input (docs/api.md, "Attendance"). IceHrm clients send numbers as strings; "" means no value.

/** A time as sent: a wall-clock reading in the record's zone, or an instant with its offset. */
export type TimeInput = { reading: string } | { instant: Date };

const TIME_MESSAGE = 'must be a time YYYY-MM-DD HH:MM:SS or an ISO-8601 date-time with an offset, e.g. 2026-03-02T08:00:00+01:00';
const EARLIEST_YEAR = 1970;

export const timeInput = z
  .string({ error: TIME_MESSAGE })
  .transform((value, context): TimeInput => {
    if (isWallClock(value) && Number(value.slice(0, 4)) >= EARLIEST_YEAR) return { reading: value };
    const instant = parseIsoInstant(value);
    if (instant && instant.getUTCFullYear() >= EARLIEST_YEAR) return { instant };
    context.addIssue({ code: 'custom', message: TIME_MESSAGE });
    return z.NEVER;
  })
  // No accepted time is longer (2026-03-02T08:00:00.123456+01:00 is 32).
  .meta({ maxLength: 40, pattern: PUNCH_TIME_PATTERN, example: '2026-03-02 08:00:00' });

/** Degrees as a number or numeric string, kept to the 6 decimals the columns store (about 0.1 m). */
const coordinate = (limit: number) => {
  const message = `must be a number from -${limit} to ${limit}`;
  return z.preprocess(
    (value) => {
      if (value === '') return null;
      return typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
    },
    z
      .number({ error: message })
      .min(-limit, { error: message })
      .max(limit, { error: message })
      .transform((degrees) => Math.round(degrees * 1e6) / 1e6)
      .nullable(),
  );
};

/** An employee id, or the employee reference of a record as read. */
const employee = z
  .preprocess((value) => (isPlainObject(value) ? value.id : value), idSchema('an employee'))
  .meta({ 'x-accepts': 'employee' });

const note = optionalText(1000);
const latitude = coordinate(90);
const longitude = coordinate(180);

/** IceHrm's names for a punch's position (its columns), accepted beside ours (docs/api.md, "IceHrm compatibility"). */
const ICEHRM_POSITION_NAMES = { latitude: 'map_lat', longitude: 'map_lng' } as const;
const icehrmPosition = {
  map_lat: coordinate(90).meta({ description: "IceHrm's name for latitude; sent with latitude, the two must be equal" }),
  map_lng: coordinate(180).meta({ description: "IceHrm's name for longitude; sent with longitude, the two must be equal" }),
};

const punchInShape = { employee, in_time: timeInput, note, latitude, longitude, ...icehrmPosition };
const punchOutShape = { employee, out_time: timeInput, note, latitude, longitude, ...icehrmPosition };
const recordShape = {
  employee,
  in_time: timeInput,
  out_time: timeInput,
  note,
  out_note: note,
  latitude,
  longitude,
  out_latitude: latitude,
  out_longitude: longitude,
};
/** A correction may reopen a record (out_time null); the one-open-record rule still holds. */
const correctionShape = { ...recordShape, out_time: timeInput.nullable() };

/** The bodies, as documents describe them (the parsers below read them field by field). */
export const punchInSchema = z.strictObject(punchInShape).partial();
export const punchOutSchema = z.strictObject(punchOutShape).partial();
export const newRecordSchema = z.strictObject(recordShape).partial().required({ employee: true, in_time: true, out_time: true });
export const correctionSchema = z.strictObject(correctionShape).partial();

/** Members of the read shape a PUT/PATCH may send back; they are derived, so ignored. */
const READ_ONLY_FIELDS = [
  'timezone',
  'in_time_utc',
  'out_time_utc',
  'hours',
  'in_ip',
  'out_ip',
  'missed_punch_out',
  'created_at',
  'updated_at',
];

/** The correction body as the document states it: the writable fields, and the read-only ones accepted and ignored. */
export const correctionDocumentSchema = z
  .strictObject({
    ...correctionShape,
    ...Object.fromEntries(
      READ_ONLY_FIELDS.map((field) => [field, z.unknown().meta({ description: 'Read-only, from the read shape: accepted and ignored' })]),
    ),
  })
  .partial();

export interface PunchValues {
  employee?: number;
  time?: TimeInput;
  note?: string | null;
  latitude?: number | null;
  longitude?: number | null;
  /** The names the position was sent under, for the errors that name them. */
  positionFields: { latitude: string; longitude: string };
}

interface RecordValues {
  employee?: number;
  in_time?: TimeInput;
  out_time?: TimeInput | null;
  note?: string | null;
  out_note?: string | null;
  latitude?: number | null;
  longitude?: number | null;
  out_latitude?: number | null;
  out_longitude?: number | null;
}

type Parsed<T> = { values: T; errors: FieldError[] };

export function parsePunchIn(body: Record<string, unknown>): Parsed<PunchValues> {
  const { values, errors } = parseFields(punchInShape, body, { pathId: undefined, required: [], noun: 'a punch' });
  const { in_time: time, ...rest } = values;
  return { values: punchValues(rest, time, errors), errors };
}

export function parsePunchOut(body: Record<string, unknown>): Parsed<PunchValues> {
  const { values, errors } = parseFields(punchOutShape, body, { pathId: undefined, required: [], noun: 'a punch' });
  const { out_time: time, ...rest } = values;
  return { values: punchValues(rest, time, errors), errors };
}

/** A punch's values with map_lat/map_lng read as latitude/longitude; both names with different values is an error. */
function punchValues(parsed: Record<string, unknown>, time: unknown, errors: FieldError[]): PunchValues {
  const { map_lat: _lat, map_lng: _lng, ...values } = parsed;
  const positionFields = { latitude: 'latitude', longitude: 'longitude' };
  for (const ours of ['latitude', 'longitude'] as const) {
    const icehrm = ICEHRM_POSITION_NAMES[ours];
    if (!Object.hasOwn(parsed, icehrm)) continue;
    if (!Object.hasOwn(parsed, ours)) {
      values[ours] = parsed[icehrm];
      positionFields[ours] = icehrm;
    } else if (parsed[ours] !== parsed[icehrm]) {
      errors.push({ field: icehrm, message: `must equal ${ours} when both are sent` });
    }
  }
  // A coordinate sent under neither name is named as its partner was sent (map_lng beside map_lat).
  const sent = (ours: 'latitude' | 'longitude') => Object.hasOwn(parsed, ours) || Object.hasOwn(parsed, ICEHRM_POSITION_NAMES[ours]);
  if (!sent('longitude') && positionFields.latitude === 'map_lat') positionFields.longitude = 'map_lng';
  if (!sent('latitude') && positionFields.longitude === 'map_lng') positionFields.latitude = 'map_lat';
  return { ...values, ...(time !== undefined && { time }), positionFields } as PunchValues;
}

/** POST /attendance: a complete record. */
export function parseNewRecord(body: Record<string, unknown>): Parsed<RecordValues> {
  const parsed = parseFields(recordShape, body, {
    pathId: undefined,
    required: ['employee', 'in_time', 'out_time'],
    noun: 'an attendance record',
  });
  return parsed as Parsed<RecordValues>;
}

/** PUT/PATCH /attendance/{id}: only the sent fields change. */
export function parseCorrection(body: Record<string, unknown>, id: number): Parsed<RecordValues> {
  const parsed = parseFields(correctionShape, body, { pathId: id, required: [], readOnly: READ_ONLY_FIELDS, noun: 'an attendance record' });
  return parsed as Parsed<RecordValues>;
}

const date = z
  .string({ error: 'must be a date YYYY-MM-DD' })
  .max(10, { error: 'must be a date YYYY-MM-DD' })
  .refine(isCalendarDate, { error: 'must be a real date YYYY-MM-DD' })
  .meta({ format: 'date', pattern: CALENDAR_DATE_PATTERN });

const dateRange = { from: date.optional(), to: date.optional() };

const orderedRange = <T extends { from?: string; to?: string }>(range: T) =>
  range.from === undefined || range.to === undefined || range.from <= range.to;
const ORDERED_RANGE = { error: 'must not be before from', path: ['to'] };

/** GET /employees/{id}/attendance */
export const employeeAttendanceQuery = z
  .strictObject({ ...paginationFields({ defaultLimit: 50, maxLimit: 200 }), ...dateRange })
  .refine(orderedRange, ORDERED_RANGE);

/** GET /attendance */
export const attendanceListQuery = z
  .strictObject({
    ...paginationFields({ defaultLimit: 50, maxLimit: 200 }),
    ...dateRange,
    employee: idSchema('an employee').optional(),
    open: z
      .enum(['true', 'false'], { error: 'must be true or false' })
      .transform((value) => value === 'true')
      .optional()
      .meta({ description: 'true: the open records (punched in); false: the others, missed punch-outs among them' }),
    updated_since: instant.optional(),
  })
  .refine(orderedRange, ORDERED_RANGE);

/** GET /employees/{id}/attendance/summary */
export const attendanceSummaryQuery = z.strictObject(dateRange).refine(orderedRange, ORDERED_RANGE);
