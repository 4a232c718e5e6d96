import type { Knex } from 'knex';
import { ICEHRM_NATIONALITIES } from './data/icehrm-nationalities';
import { ICEHRM_PROVINCES } from './data/icehrm-provinces';
import { NATIONALITIES } from './data/nationalities';
import { PROVINCES } from './data/provinces';

/**
 * Nationalities and provinces take IceHrm's numbering, so that an id an IceHrm client sends
 * ("nationality": "35") names the record it names in IceHrm (Canadian). Existing rows are matched
 * to IceHrm's by name and take its id; the employees pointing at them are rewritten in the same
 * transaction, so nobody changes nationality or province. Rows IceHrm does not have keep their
 * id when it lies beyond IceHrm's, and are otherwise numbered after the largest id, in their old
 * order; IceHrm's rows the database lacks are added. A fresh install runs this after 0002 and
 * ends with the same tables. Employees whose reference id changed get a new `updated_at`, so a
 * client syncing with `updated_since` learns the new ids.
 */

/** Our spellings (migration 0002) of the nationalities IceHrm spells differently. */
const NATIONALITY_SPELLINGS: Record<string, string> = {
  Antiguan: 'Antiguans',
  Argentine: 'Argentinean',
  Botswanan: 'Motswana',
  Djiboutian: 'Djibouti',
  Emirati: 'Emirian',
  Icelandic: 'Icelander',
  'Kittitian and Nevisian': 'Kittian and Nevisian',
  Maldivian: 'Maldivan',
  Monegasque: 'Monacan',
  Sammarinese: 'San Marinese',
  Slovak: 'Slovakian',
  Surinamese: 'Surinamer',
  Trinidadian: 'Trinidadian or Tobagonian',
  Uzbek: 'Uzbekistani',
  Yemeni: 'Yemenite',
};
const SPELLINGS_OF_0002 = Object.fromEntries(Object.entries(NATIONALITY_SPELLINGS).map(([ours, icehrm]) => [icehrm, ours]));

type Row = { id: number } & Record<string, unknown>;

/** A table's rows as they should be numbered: the id each has, and its other columns. */
interface Numbering {
  rows: ReadonlyArray<{ id: number; columns: Record<string, unknown> }>;
  /** The key two rows share when they are the same record (the table's unique columns). */
  keyOf(columns: Record<string, unknown>): string;
  /** Another key that names the same record, tried after every exact match (other spellings). */
  aliasOf?(columns: Record<string, unknown>): string | undefined;
  /** The columns a matched row keeps: its own, or the numbering's. */
  keep: 'own' | 'numbering';
}

/**
 * Names compared as the databases' unique keys compare them, or more loosely: MySQL's
 * utf8mb4_unicode_ci ignores case and accents, SQLite's NOCASE ignores ASCII case. Matching at
 * least as loosely as MySQL means a row the database has is never added a second time.
 */
const loose = (text: unknown) => String(text).normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();

const nationalities = (names: ReadonlyArray<readonly [number, string]>, spellings: Record<string, string>): Numbering => ({
  rows: names.map(([id, name]) => ({ id, columns: { name } })),
  keyOf: (columns) => loose(columns.name),
  aliasOf: (columns) => {
    const match = Object.keys(spellings).find((spelling) => loose(spelling) === loose(columns.name));
    return match === undefined ? undefined : loose(spellings[match]);
  },
  keep: 'numbering',
});

const provinces = (rows: ReadonlyArray<readonly [number, string, string, string]>): Numbering => ({
  rows: rows.map(([id, country, code, name]) => ({ id, columns: { country_code: country, code, name } })),
  keyOf: (columns) => `${String(columns.country_code).toUpperCase()}|${loose(columns.name)}`,
  keep: 'own',
});

/** Old id → new id of every row, and the rows as they are to be written. */
function plan(existing: Row[], numbering: Numbering): { moves: Map<number, number>; rows: Row[] } {
  const wanted = new Map(numbering.rows.map((row) => [numbering.keyOf(row.columns), row]));
  const taken = new Map<number, Row>(); // numbering id → the existing row that takes it
  const matched = new Set<Row>();
  const claim = (key: string | undefined, row: Row) => {
    const target = key === undefined ? undefined : wanted.get(key);
    if (!target || taken.has(target.id) || matched.has(row)) return;
    taken.set(target.id, row);
    matched.add(row);
  };
  const byId = [...existing].sort((a, b) => a.id - b.id);
  for (const row of byId) claim(numbering.keyOf(row), row);
  for (const row of byId) claim(numbering.aliasOf?.(row), row);

  const moves = new Map<number, number>();
  const rows: Row[] = [];
  for (const target of numbering.rows) {
    const own = taken.get(target.id);
    if (own) moves.set(own.id, target.id);
    const { id: _id, ...ownColumns } = own ?? {};
    rows.push({ ...(own && numbering.keep === 'own' ? ownColumns : target.columns), id: target.id });
  }
  const last = Math.max(0, ...numbering.rows.map((row) => row.id));
  const unmatched = byId.filter((row) => !moves.has(row.id));
  let next = Math.max(last, ...unmatched.map((row) => row.id).filter((id) => id > last)) + 1;
  for (const row of unmatched) {
    const id = row.id > last ? row.id : next++;
    moves.set(row.id, id);
    rows.push({ ...row, id });
  }
  return { moves, rows };
}

/**
 * Renumbers `table` as `numbering` says and points `employees.<column>` at the new ids: the
 * references are cleared, the rows written anew, then each group of employees gets its new id
 * back (one old id per new id, so a group either moved or did not).
 */
async function renumber(knex: Knex, table: string, column: string, numbering: Numbering, now: string): Promise<void> {
  const { moves, rows } = plan((await knex(table).select()) as Row[], numbering);
  const references = (await knex('employees').whereNotNull(column).select('id', column)) as Array<Record<string, number>>;
  const groups = new Map<number, number[]>();
  for (const reference of references) {
    const to = moves.get(Number(reference[column]))!;
    const group = groups.get(to) ?? [];
    group.push(Number(reference.id));
    groups.set(to, group);
  }

  await knex('employees')
    .whereNotNull(column)
    .update({ [column]: null });
  await knex(table).delete();
  for (let start = 0; start < rows.length; start += 100) await knex(table).insert(rows.slice(start, start + 100));
  const oldIdOf = new Map([...moves].map(([from, to]) => [to, from]));
  for (const [to, employees] of groups) {
    const changes = oldIdOf.get(to) === to ? { [column]: to } : { [column]: to, updated_at: now };
    for (let start = 0; start < employees.length; start += 1000) {
      await knex('employees')
        .whereIn('id', employees.slice(start, start + 1000))
        .update(changes);
    }
  }
}

/** Now as the `*_at` columns store it, 'YYYY-MM-DD HH:MM:SS.sss' in UTC (as src/db/sql-time.ts writes it). */
const storedNow = () => new Date().toISOString().slice(0, 23).replace('T', ' ');

export async function up(knex: Knex): Promise<void> {
  const now = storedNow();
  await renumber(knex, 'nationalities', 'nationality_id', nationalities(ICEHRM_NATIONALITIES, NATIONALITY_SPELLINGS), now);
  await renumber(knex, 'provinces', 'province_id', provinces(ICEHRM_PROVINCES), now);
}

/** Back to the numbering of migration 0002 (and its spellings); rows only IceHrm has stay, after it. */
export async function down(knex: Knex): Promise<void> {
  const now = storedNow();
  const numbered = <T>(rows: readonly T[]) => rows.map((row, index) => [index + 1, row] as const);
  await renumber(
    knex,
    'nationalities',
    'nationality_id',
    nationalities(
      numbered(NATIONALITIES).map(([id, name]) => [id, name]),
      SPELLINGS_OF_0002,
    ),
    now,
  );
  await renumber(
    knex,
    'provinces',
    'province_id',
    provinces(numbered(PROVINCES).map(([id, [country, code, name]]) => [id, country, code, name])),
    now,
  );
}
