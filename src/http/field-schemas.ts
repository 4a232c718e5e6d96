import { z } from 'zod';
import { isCalendarDate, isTimeZone, parseIsoInstant } from '../time';
import { TIME_ZONES } from '../time-zones';

// Field rules shared by every write body. IceHrm clients send every value as a string; ids may
// also be numbers or reference objects as read, "" means "no value" and 0000-00-00 "no date".
// What a rule accepts before it converts is more than zod-to-openapi can see through a
// preprocess step: `x-accepts` names the shape src/http/openapi.ts documents it with instead.

const MAX_ID = 4294967295;

// What isCalendarDate, isWallClock and parseIsoInstant (src/time.ts) accept, as the regular
// expressions the OpenAPI document states, so that a tool generating requests from the document
// sends no date the server refuses (2024-02-30, 0000-01-01, 24:00, an offset of 19 hours).
const YEAR = '(?:000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})';
const LEAP_YEAR = '(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)';
const MONTH_DAY = '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))';
/** A real calendar date YYYY-MM-DD, years 0001 to 9999, without anchors. */
export const CALENDAR_DATE = `(?:${YEAR}-${MONTH_DAY}|${LEAP_YEAR}-02-29)`;
const TIME = '(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\\.[0-9]{1,9})?)?';
const ZONE = '(?:Z|[+-](?:0[0-9]|1[0-8]):?[0-5][0-9])';
const YEAR_SINCE_1970 = '(?:19[7-9][0-9]|[2-9][0-9]{3})';
const LEAP_YEAR_SINCE_1970 = '(?:19(?:7[26]|8[048]|9[26])|[2-9][0-9](?:0[48]|[2468][048]|[13579][26])|(?:[2468][048]|[3579][26])00)';
const DATE_SINCE_1970 = `(?:${YEAR_SINCE_1970}-${MONTH_DAY}|${LEAP_YEAR_SINCE_1970}-02-29)`;
/** A punch time (attendance timeInput): a wall-clock YYYY-MM-DD HH:MM:SS or an instant with a zone, from 1970 on. */
export const PUNCH_TIME_PATTERN = `^${DATE_SINCE_1970}(?: (?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]|T${TIME}${ZONE})$`;
/** The document's pattern of a calendar date. */
export const CALENDAR_DATE_PATTERN = `^${CALENDAR_DATE}$`;
/** An ISO-8601 instant with a zone (parseIsoInstant). */
export const INSTANT_PATTERN = `^${CALENDAR_DATE}T${TIME}${ZONE}$`;
/** The same, or a date meaning its midnight UTC (`instant` below). */
const INSTANT_OR_DATE_PATTERN = `^${CALENDAR_DATE}(?:T${TIME}${ZONE})?$`;

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const blankToNull = (value: unknown) => (value === '' ? null : value);

const text = (max: number) => z.string({ error: 'must be a string' }).max(max, { error: `must be at most ${max} characters` });

export const optionalText = (max: number) => z.preprocess(blankToNull, text(max).nullable());

// The pattern tells the document what trimming means: blanks alone are empty (\s is what trim removes).
export const requiredText = (max: number) => text(max).trim().min(1, { error: 'must not be empty' }).meta({ pattern: '\\S' });

export const email = z
  .preprocess(
    blankToNull,
    z.email({ error: 'must be a valid e-mail address' }).max(254, { error: 'must be at most 254 characters' }).nullable(),
  )
  .meta({ 'x-accepts': 'email' });

export const date = z
  .preprocess(
    (value) => (value === '' || value === '0000-00-00' ? null : value),
    z.string({ error: 'must be a date YYYY-MM-DD' }).refine(isCalendarDate, { error: 'must be a real date YYYY-MM-DD' }).nullable(),
  )
  .meta({ 'x-accepts': 'date' });

/** An id as a string or number, e.g. "3" or 3; a read reference {"id": "3", ...} is accepted too. */
export const idSchema = (what: string) =>
  z.preprocess(
    (value) => (typeof value === 'number' && Number.isInteger(value) ? String(value) : value),
    z
      .string({ error: `must be the id of ${what}` })
      // The pattern bounds the length; maxLength says so to tools that look for it (OWASP's rules).
      .regex(/^[1-9][0-9]{0,9}$/, { error: `must be the id of ${what}` })
      .meta({ maxLength: 10 })
      .transform(Number)
      .refine((id) => id <= MAX_ID, { error: `must be the id of ${what}` }),
  );

export const reference = (what: string) =>
  z
    .preprocess((value) => (isPlainObject(value) ? value.id : blankToNull(value)), idSchema(what).nullable())
    .meta({ 'x-accepts': 'reference' });

const isoCountryCode = z
  .string({ error: 'must be a two-letter ISO 3166-1 country code' })
  .regex(/^[A-Za-z]{2}$/, { error: 'must be a two-letter ISO 3166-1 country code' })
  .transform((code) => code.toUpperCase());
const codeOfReference = (value: unknown) => (isPlainObject(value) ? value.code : value);

/** A two-letter ISO 3166-1 code (any case), or a read reference {"code": "US", ...}; "" or null for none. */
export const countryCode = z
  .preprocess((value) => blankToNull(codeOfReference(value)), isoCountryCode.nullable())
  .meta({ 'x-accepts': 'country' });

/** The same where a country must be given (a province's). */
export const requiredCountryCode = z.preprocess(codeOfReference, isoCountryCode).meta({ 'x-accepts': 'requiredCountry' });

/** ISO-8601 with a zone (Z or ±hh:mm), or a date meaning its midnight UTC; impossible dates and times are refused. */
export const instant = z
  .string()
  // The longest form (nanoseconds and an offset) is 35 characters.
  .max(40, { error: 'must be an ISO-8601 date-time with a zone, e.g. 2026-01-31T08:00:00Z' })
  .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/, {
    error: 'must be an ISO-8601 date-time with a zone, e.g. 2026-01-31T08:00:00Z',
  })
  .meta({ pattern: INSTANT_OR_DATE_PATTERN })
  .transform((value, context) => {
    const date = value.length === 10 ? (isCalendarDate(value) ? new Date(`${value}T00:00:00Z`) : undefined) : parseIsoInstant(value);
    if (date) return date;
    context.addIssue({ code: 'custom', message: 'must be a real date-time' });
    return z.NEVER;
  });

const TIME_ZONE_ERROR = 'must be an IANA time zone such as Europe/Berlin';

/** An IANA time-zone name, spelled as src/time-zones.ts lists it; the document states the list (TimeZone). */
export const timeZone = z
  .string({ error: TIME_ZONE_ERROR })
  .refine(isTimeZone, { error: TIME_ZONE_ERROR })
  .meta({
    id: 'TimeZone',
    enum: [...TIME_ZONES],
    description:
      'An IANA time-zone name, spelled exactly as listed (case matters): the zones and old names (links) of the tz database, and UTC.',
    example: 'Europe/Berlin',
  });
