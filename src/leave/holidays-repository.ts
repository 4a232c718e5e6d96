import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';

// The rows of `holidays` (migration 0029): dated, a country or null for everyone.

export interface Holiday {
  id: number;
  date: string;
  name: string;
  portion: 'full' | 'half';
  country: string | null;
  paid: boolean;
}

export type HolidayColumns = Omit<Holiday, 'id'>;

const COLUMNS = ['id', 'date', 'name', 'portion', 'country', 'paid'];

function toHoliday(row: Record<string, unknown>): Holiday {
  return {
    id: Number(row.id),
    date: String(row.date).slice(0, 10),
    name: String(row.name),
    portion: row.portion === 'half' ? 'half' : 'full',
    country: row.country == null ? null : String(row.country),
    paid: row.paid === true || Number(row.paid) === 1,
  };
}

export async function findHoliday(db: Db, id: number): Promise<Holiday | undefined> {
  const row = (await db('holidays').where({ id }).first(COLUMNS)) as Record<string, unknown> | undefined;
  return row && toHoliday(row);
}

export interface HolidayCriteria {
  from?: string;
  to?: string;
  /** A country's holidays; null: those that apply to everyone only. */
  country?: string | null;
}

export async function listHolidays(
  db: Db,
  criteria: HolidayCriteria,
  offset: number,
  limit: number,
): Promise<{ rows: Holiday[]; total: number }> {
  const matching = () => {
    let query = db('holidays');
    if (criteria.from !== undefined) query = query.where('date', '>=', criteria.from);
    if (criteria.to !== undefined) query = query.where('date', '<=', criteria.to);
    if (criteria.country !== undefined)
      query = criteria.country === null ? query.whereNull('country') : query.where('country', criteria.country);
    return query;
  };
  const [rows, counted] = await Promise.all([
    matching()
      .orderBy([{ column: 'date' }, { column: 'id' }])
      .offset(offset)
      .limit(limit)
      .select(COLUMNS) as Promise<Array<Record<string, unknown>>>,
    matching().count({ n: '*' }).first() as Promise<{ n: number | string } | undefined>,
  ]);
  return { rows: rows.map(toHoliday), total: Number(counted?.n ?? 0) };
}

/** The holidays in [from, to] of these countries and those with country null (everyone's). */
export async function holidaysOfCountries(db: Db, countries: ReadonlyArray<string | null>, from: string, to: string): Promise<Holiday[]> {
  const named = [...new Set(countries.filter((country): country is string => country !== null))];
  const rows = (await db('holidays')
    .where('date', '>=', from)
    .where('date', '<=', to)
    .where((which) => {
      which.whereNull('country');
      if (named.length > 0) which.orWhereIn('country', named);
    })
    .orderBy([{ column: 'date' }, { column: 'id' }])
    .select(COLUMNS)) as Array<Record<string, unknown>>;
  return rows.map(toHoliday);
}

export async function insertHoliday(db: Db, columns: HolidayColumns, now: Date): Promise<number> {
  const [id] = await db('holidays').insert({ ...columns, created_at: toSqlDateTime(now) });
  return Number(id);
}

/**
 * Inserts the holidays not stored yet (the unique key on country, date and name decides), leaving
 * stored rows as they are; the number inserted.
 */
export async function insertMissingHolidays(db: Db, rows: readonly HolidayColumns[], now: Date): Promise<number> {
  if (rows.length === 0) return 0;
  const at = toSqlDateTime(now);
  const before = await countHolidays(db);
  await db('holidays')
    .insert(rows.map((row) => ({ ...row, created_at: at })))
    .onConflict(['country', 'date', 'name'])
    .ignore();
  return (await countHolidays(db)) - before;
}

async function countHolidays(db: Db): Promise<number> {
  const counted = (await db('holidays').count({ n: '*' }).first()) as { n: number | string } | undefined;
  return Number(counted?.n ?? 0);
}

export async function deleteHoliday(db: Db, id: number): Promise<void> {
  await db('holidays').where({ id }).delete();
}
