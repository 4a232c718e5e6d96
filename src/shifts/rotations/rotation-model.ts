import { z } from 'zod';
import { type FieldError } from '../../errors';
import { date, idSchema, reference } from '../../http/field-schemas';
import { parseFields } from '../../http/parse';

// A rotation (CONTRACT 6.7): a cycle of shift types (null: a day off) from an anchor date, whose
// shifts the server keeps generated 90 days ahead.

export const MAX_CYCLE_DAYS = 56;
/** Dates generated ahead of the employee's today, today included. */
export const DAYS_AHEAD = 90;

export interface Rotation {
  id: number;
  employee_id: number;
  employee_display: string;
  supervisor_id: number | null;
  anchor_date: string;
  cycle: Array<number | null>;
  valid_from: string;
  valid_to: string | null;
  publish: boolean;
}

export interface RotationValues {
  employee: number;
  anchor_date: string;
  cycle: Array<number | null>;
  valid_from: string;
  valid_to: string | null;
  publish: boolean;
}

const cycleError = `must be a list of 1 to ${MAX_CYCLE_DAYS} shift type ids or null (a day off)`;

export const ROTATION_FIELDS = {
  employee: reference('an employee'),
  anchor_date: date,
  cycle: z
    .array(idSchema('a shift type').meta({ 'x-accepts': 'id' }).nullable(), { error: cycleError })
    .min(1, { error: cycleError })
    .max(MAX_CYCLE_DAYS, { error: cycleError }),
  valid_from: date,
  valid_to: date,
  publish: z.boolean({ error: 'must be true or false' }),
};

/** A create or a whole replacement (PUT): employee, anchor_date and cycle required; valid_from defaults to anchor_date. */
export function parseRotation(body: Record<string, unknown>, pathId: number | undefined): { values: RotationValues; errors: FieldError[] } {
  const { values, errors } = parseFields(ROTATION_FIELDS, body, { pathId, required: [], noun: 'a rotation' });
  for (const field of ['employee', 'anchor_date', 'cycle'])
    if ((values[field] === undefined || values[field] === null) && !errors.some((error) => error.field === field))
      errors.push({ field, message: 'is required' });
  const anchor = values.anchor_date as string;
  const validFrom = (values.valid_from as string | null | undefined) ?? anchor;
  const validTo = (values.valid_to as string | null | undefined) ?? null;
  if (validFrom && validTo && validTo < validFrom) errors.push({ field: 'valid_to', message: 'must not be before valid_from' });
  return {
    values: {
      employee: values.employee as number,
      anchor_date: anchor,
      cycle: values.cycle as Array<number | null>,
      valid_from: validFrom,
      valid_to: validTo,
      publish: (values.publish as boolean | undefined) ?? false,
    },
    errors,
  };
}

export function toRotationResponse(rotation: Rotation): Record<string, unknown> {
  return {
    id: String(rotation.id),
    employee: { type: 'Employee', id: String(rotation.employee_id), display: rotation.employee_display },
    anchor_date: rotation.anchor_date,
    cycle: rotation.cycle.map((id) => (id === null ? null : String(id))),
    valid_from: rotation.valid_from,
    valid_to: rotation.valid_to,
    publish: rotation.publish,
  };
}
