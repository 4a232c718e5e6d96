import type { Knex } from 'knex';
import { NotFoundError, ValidationError } from '../errors';
import { parseShiftType, type ShiftType } from './type-fields';
import { deleteShiftType, findShiftType, insertShiftType, updateShiftType } from './type-repository';

// The writes of /shift-types (admins; the routes check the role). A shift copies its type's
// values when it is made, so changing or deleting a type changes no shift (CONTRACT 6.7).

export async function createShiftType(trx: Knex.Transaction, body: Record<string, unknown>, now: Date): Promise<ShiftType> {
  const { values, errors } = parseShiftType(body, { pathId: undefined, base: undefined });
  if (errors.length > 0) throw new ValidationError(errors);
  return (await findShiftType(trx, await insertShiftType(trx, values, now)))!;
}

/** PUT (whole: omitted fields take their defaults) or PATCH (only the fields sent change). */
export async function changeShiftType(
  trx: Knex.Transaction,
  id: number,
  body: Record<string, unknown>,
  options: { partial: boolean; now: Date },
): Promise<ShiftType> {
  const current = await storedShiftType(trx, id);
  const { id: _id, ...base } = current;
  const { values, errors } = parseShiftType(body, { pathId: id, base: options.partial ? base : undefined });
  if (errors.length > 0) throw new ValidationError(errors);
  await updateShiftType(trx, id, values, options.now);
  return (await findShiftType(trx, id))!;
}

export async function removeShiftType(trx: Knex.Transaction, id: number): Promise<{ id: string }> {
  await storedShiftType(trx, id);
  await deleteShiftType(trx, id);
  return { id: String(id) };
}

async function storedShiftType(trx: Knex.Transaction, id: number): Promise<ShiftType> {
  const found = await findShiftType(trx, id);
  if (!found) throw new NotFoundError({ detail: 'No such shift type' });
  return found;
}
