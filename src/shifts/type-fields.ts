import { z } from 'zod';
import { type FieldError } from '../errors';
import { parseFields } from '../http/parse';
import { requiredText } from '../http/field-schemas';

// The fields of a shift type (CONTRACT 6.7) and their defaults; a shift copies them when it is
// made from the type (shift-fields.ts).

/** "HH:MM", 00:00 to 23:59. */
export const clockTime = z
  .string({ error: 'must be a time HH:MM' })
  .regex(/^(?:[01][0-9]|2[0-3]):[0-5][0-9]$/, { error: 'must be a time HH:MM (00:00 to 23:59)' })
  // The pattern bounds the length; maxLength says so to tools that look for it (OWASP's rules).
  .meta({ maxLength: 5, example: '08:00' });

const minutes = (max: number) =>
  z
    .number({ error: `must be a whole number of minutes from 0 to ${max}` })
    .int({ error: `must be a whole number of minutes from 0 to ${max}` })
    .min(0, { error: `must be a whole number of minutes from 0 to ${max}` })
    .max(max, { error: `must be a whole number of minutes from 0 to ${max}` })
    .meta({ format: 'int32' });

const thresholdHours = z
  .number({ error: 'must be a number of hours from 0 to 24, or null' })
  .min(0, { error: 'must be a number of hours from 0 to 24, or null' })
  .max(24, { error: 'must be a number of hours from 0 to 24, or null' })
  .multipleOf(0.01, { error: 'must have at most two decimals' })
  .nullable();

/** The grace, window and threshold fields a shift copies from its type and may override. */
export const SHIFT_RULE_FIELDS = {
  unpaid_break_minutes: minutes(720),
  late_grace_minutes: minutes(720),
  early_exit_grace_minutes: minutes(720),
  check_in_window_minutes: minutes(720),
  check_out_window_minutes: minutes(720),
  half_day_below_hours: thresholdHours,
  absent_below_hours: thresholdHours,
};

export interface ShiftRules {
  unpaid_break_minutes: number;
  late_grace_minutes: number;
  early_exit_grace_minutes: number;
  check_in_window_minutes: number;
  check_out_window_minutes: number;
  half_day_below_hours: number | null;
  absent_below_hours: number | null;
}

export const DEFAULT_SHIFT_RULES: ShiftRules = {
  unpaid_break_minutes: 0,
  late_grace_minutes: 0,
  early_exit_grace_minutes: 0,
  check_in_window_minutes: 60,
  check_out_window_minutes: 60,
  half_day_below_hours: null,
  absent_below_hours: null,
};

export const SHIFT_TYPE_FIELDS = {
  name: requiredText(100),
  start_time: clockTime,
  end_time: clockTime,
  ...SHIFT_RULE_FIELDS,
};

export interface ShiftTypeValues extends ShiftRules {
  name: string;
  start_time: string;
  end_time: string;
}

export interface ShiftType extends ShiftTypeValues {
  id: string;
}

/** The thresholds must not contradict each other: absent below fewer hours than a half day. */
export function thresholdErrors(rules: Pick<ShiftRules, 'half_day_below_hours' | 'absent_below_hours'>): FieldError[] {
  const { half_day_below_hours: halfDay, absent_below_hours: absent } = rules;
  if (halfDay !== null && absent !== null && absent > halfDay)
    return [{ field: 'absent_below_hours', message: 'must not be above half_day_below_hours' }];
  return [];
}

/**
 * A create or whole replacement (`base` undefined: omitted fields take their defaults) or a
 * partial update over `base`: every invalid field named at once.
 */
export function parseShiftType(
  body: Record<string, unknown>,
  options: { pathId: number | undefined; base: ShiftTypeValues | undefined },
): { values: ShiftTypeValues; errors: FieldError[] } {
  const partial = options.base !== undefined;
  const { values, errors } = parseFields(SHIFT_TYPE_FIELDS, body, {
    pathId: options.pathId,
    required: ['name', 'start_time', 'end_time'],
    noun: 'a shift type',
  });
  if (options.pathId !== undefined && !partial) {
    for (const field of ['name', 'start_time', 'end_time'])
      if (!Object.hasOwn(body, field) && !errors.some((error) => error.field === field)) errors.push({ field, message: 'is required' });
  }
  const merged = { ...DEFAULT_SHIFT_RULES, ...(options.base ?? {}), ...values } as ShiftTypeValues;
  if (errors.length === 0) errors.push(...thresholdErrors(merged));
  return { values: merged, errors };
}
