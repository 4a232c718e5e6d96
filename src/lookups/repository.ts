import type { Db } from '../db/connect';
import type { LookupTable } from './tables';

export async function listLookupRows(
  db: Db,
  lookup: LookupTable,
  options: { where: Record<string, string>; limit: number; offset: number },
): Promise<{ rows: Array<Record<string, unknown>>; total: number }> {
  const filtered = db(`${lookup.table} as t`).where(options.where);
  const [rows, count] = await Promise.all([
    lookup.select(filtered.clone()).orderBy(lookup.orderBy).orderBy(`t.${lookup.key}`).limit(options.limit).offset(options.offset),
    filtered.clone().count({ total: '*' }).first(),
  ]);
  return { rows, total: Number(count?.total ?? 0) };
}

export async function findLookupRow(db: Db, lookup: LookupTable, key: string | number): Promise<Record<string, unknown> | undefined> {
  return lookup.select(db(`${lookup.table} as t`).where(`t.${lookup.key}`, key)).first();
}

export async function insertLookupRow(db: Db, lookup: LookupTable, columns: Record<string, unknown>): Promise<number> {
  const [id] = await db(lookup.table).insert(columns);
  return Number(id);
}

export async function updateLookupRow(db: Db, lookup: LookupTable, id: number, columns: Record<string, unknown>): Promise<void> {
  if (Object.keys(columns).length > 0) await db(lookup.table).where({ id }).update(columns);
}

export async function deleteLookupRow(db: Db, lookup: LookupTable, id: number): Promise<void> {
  await db(lookup.table).where({ id }).delete();
}

/** How many employees point at the row through `column`. */
export async function countEmployeesUsing(db: Db, column: string, id: number): Promise<number> {
  const row = await db('employees').where(column, id).count({ count: '*' }).first();
  return Number(row?.count ?? 0);
}
