import { z } from 'zod';
import { type FieldError } from '../errors';
import { CALENDAR_DATE, date, optionalText, reference, timeZone } from '../http/field-schemas';
import { parseFields } from '../http/parse';
import { addDays, daysBetween } from '../time';
import { SHIFT_STATUSES, type ShiftStatus } from './shift-model';
import { SHIFT_RULE_FIELDS, type ShiftRules, type ShiftType, thresholdErrors } from './type-fields';
import { instantOfLocal, isLocalDateTime, localTimesOn, MAX_SHIFT_MS } from './times';

// The body of a shift write (CONTRACT 6.7) and how its values become a shift's times and rules.

/** A local date-time 'YYYY-MM-DDTHH:MM' (isLocalDateTime): 16 characters, a real date, no offset. */
export const localDateTime = z
  .string({ error: 'must be a local date-time YYYY-MM-DDTHH:MM' })
  .max(16, { error: 'must be a local date-time YYYY-MM-DDTHH:MM (no offset)' })
  .refine(isLocalDateTime, { error: 'must be a local date-time YYYY-MM-DDTHH:MM (no offset)' })
  .meta({ pattern: `^${CALENDAR_DATE}T(?:[01][0-9]|2[0-3]):[0-5][0-9]$`, example: '2026-03-29T08:00' });

export const SHIFT_FIELDS = {
  employee: reference('an employee'),
  shift_type: reference('a shift type'),
  date: date,
  start_local: localDateTime,
  end_local: localDateTime,
  timezone: timeZone,
  ...SHIFT_RULE_FIELDS,
  status: z.enum(SHIFT_STATUSES, { error: `must be one of ${SHIFT_STATUSES.join(', ')}` }),
  notes: optionalText(2000),
};

/** Members of the read shape a write may send back; ignored on an update. */
const READ_ONLY = ['start', 'end', 'planned_hours', 'rotation', 'created_at', 'updated_at'];

export interface ShiftValues extends Partial<ShiftRules> {
  employee?: number | null;
  shift_type?: number | null;
  date?: string | null;
  start_local?: string;
  end_local?: string;
  timezone?: string;
  status?: ShiftStatus;
  notes?: string | null;
}

/** Field by field, every invalid one named; `prefix` names a batch member ("shifts.3."). */
export function parseShiftBody(
  body: Record<string, unknown>,
  options: { pathId: number | undefined; prefix: string },
): { values: ShiftValues; errors: FieldError[] } {
  const { values, errors } = parseFields(SHIFT_FIELDS, body, {
    pathId: options.pathId,
    required: [],
    readOnly: READ_ONLY,
    noun: 'a shift',
  });
  if (options.pathId === undefined) {
    for (const field of READ_ONLY) {
      const at = errors.findIndex((error) => error.field === field);
      if (at >= 0) errors[at] = { field, message: 'is read-only' };
    }
  }
  return { values: values as ShiftValues, errors: errors.map((error) => ({ ...error, field: `${options.prefix}${error.field}` })) };
}

/** What a shift's times and rules are once a write's values are applied. */
export interface ResolvedTimes extends ShiftRules {
  date: string;
  start_local: string;
  end_local: string;
  timezone: string;
  start: Date;
  end: Date;
}

/**
 * The times and rules of a new shift: the type's (copied), replaced by the fields sent. Without
 * start_local/end_local a type and a date are needed; with them, `date` (if sent) must be the
 * start's local date.
 */
export function resolveNewShift(
  values: ShiftValues,
  context: { type: ShiftType | undefined; timezone: string; prefix: string },
  errors: FieldError[],
): ResolvedTimes | undefined {
  const { prefix, type } = context;
  let startLocal = values.start_local;
  let endLocal = values.end_local;
  if (startLocal === undefined || endLocal === undefined) {
    if (!type || !values.date) {
      if (startLocal === undefined) errors.push({ field: `${prefix}start_local`, message: 'is required (or a shift_type and a date)' });
      if (endLocal === undefined) errors.push({ field: `${prefix}end_local`, message: 'is required (or a shift_type and a date)' });
      return undefined;
    }
    const fromType = localTimesOn(values.date, type.start_time, type.end_time);
    startLocal ??= fromType.start_local;
    endLocal ??= fromType.end_local;
  }
  if (values.date && values.date !== startLocal.slice(0, 10)) {
    errors.push({ field: `${prefix}date`, message: 'must be the local date of start_local (the business date of the shift)' });
    return undefined;
  }
  const rules: ShiftRules = {
    unpaid_break_minutes: values.unpaid_break_minutes ?? type?.unpaid_break_minutes ?? 0,
    late_grace_minutes: values.late_grace_minutes ?? type?.late_grace_minutes ?? 0,
    early_exit_grace_minutes: values.early_exit_grace_minutes ?? type?.early_exit_grace_minutes ?? 0,
    check_in_window_minutes: values.check_in_window_minutes ?? type?.check_in_window_minutes ?? 60,
    check_out_window_minutes: values.check_out_window_minutes ?? type?.check_out_window_minutes ?? 60,
    half_day_below_hours: values.half_day_below_hours !== undefined ? values.half_day_below_hours : (type?.half_day_below_hours ?? null),
    absent_below_hours: values.absent_below_hours !== undefined ? values.absent_below_hours : (type?.absent_below_hours ?? null),
  };
  return checkedTimes(
    { ...rules, start_local: startLocal, end_local: endLocal, timezone: values.timezone ?? context.timezone },
    prefix,
    errors,
  );
}

/**
 * The times and rules of a changed shift: the fields sent over the current ones. A new `date`
 * alone moves both local times by the same number of days.
 */
export function resolveChangedShift(
  values: ShiftValues,
  current: ShiftRules & { date: string; start_local: string; end_local: string; timezone: string },
  errors: FieldError[],
): ResolvedTimes | undefined {
  let startLocal = values.start_local ?? current.start_local;
  let endLocal = values.end_local ?? current.end_local;
  if (values.date && values.start_local === undefined) {
    const days = daysBetween(current.date, values.date);
    startLocal = `${addDays(startLocal.slice(0, 10), days)}${startLocal.slice(10)}`;
    if (values.end_local === undefined) endLocal = `${addDays(endLocal.slice(0, 10), days)}${endLocal.slice(10)}`;
  } else if (values.date && values.date !== startLocal.slice(0, 10)) {
    errors.push({ field: 'date', message: 'must be the local date of start_local (the business date of the shift)' });
    return undefined;
  }
  const rules: ShiftRules = {
    unpaid_break_minutes: values.unpaid_break_minutes ?? current.unpaid_break_minutes,
    late_grace_minutes: values.late_grace_minutes ?? current.late_grace_minutes,
    early_exit_grace_minutes: values.early_exit_grace_minutes ?? current.early_exit_grace_minutes,
    check_in_window_minutes: values.check_in_window_minutes ?? current.check_in_window_minutes,
    check_out_window_minutes: values.check_out_window_minutes ?? current.check_out_window_minutes,
    half_day_below_hours: values.half_day_below_hours !== undefined ? values.half_day_below_hours : current.half_day_below_hours,
    absent_below_hours: values.absent_below_hours !== undefined ? values.absent_below_hours : current.absent_below_hours,
  };
  return checkedTimes(
    { ...rules, start_local: startLocal, end_local: endLocal, timezone: values.timezone ?? current.timezone },
    '',
    errors,
  );
}

/** The instants of the local times; a shift lasts more than 0 and at most 24 hours (422 on end_local). */
function checkedTimes(
  times: Omit<ResolvedTimes, 'start' | 'end' | 'date'>,
  prefix: string,
  errors: FieldError[],
): ResolvedTimes | undefined {
  const start = instantOfLocal(times.timezone, times.start_local);
  const end = instantOfLocal(times.timezone, times.end_local);
  const length = end.getTime() - start.getTime();
  const before = errors.length;
  if (length <= 0) errors.push({ field: `${prefix}end_local`, message: 'must be after start_local (a shift lasts more than 0 hours)' });
  else if (length > MAX_SHIFT_MS) errors.push({ field: `${prefix}end_local`, message: 'must be at most 24 hours after start_local' });
  errors.push(...thresholdErrors(times).map((error) => ({ ...error, field: `${prefix}${error.field}` })));
  if (errors.length > before) return undefined;
  return { ...times, date: times.start_local.slice(0, 10), start, end };
}
