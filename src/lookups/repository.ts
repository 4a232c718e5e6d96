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
