import * as icehrmNumbering from '../../migrations/0012_icehrm_numbering';
import { ICEHRM_NATIONALITIES } from '../../migrations/data/icehrm-nationalities';
import { ICEHRM_PROVINCES } from '../../migrations/data/icehrm-provinces';
import { NATIONALITIES } from '../../migrations/data/nationalities';
import { PROVINCES } from '../../migrations/data/provinces';
import type { Db } from '../../src/db/connect';
import { migrateToLatest } from '../../src/db/migrate';
import { migrateThrough, testDialects, useEmptyDatabase } from '../helpers/databases';
import { employeeColumnsBefore0017 } from '../helpers/factories';

const BEFORE = '2026-01-05 09:00:00.000';

/** What an employee's nationality and province are, by name. */
async function referencesOf(db: Db, ids: number[]) {
  const rows = (await db('employees as e')
    .leftJoin('nationalities as n', 'n.id', 'e.nationality_id')
    .leftJoin('provinces as p', 'p.id', 'e.province_id')
    .whereIn('e.id', ids)
    .orderBy('e.id')
    .select(
      'e.id',
      'e.nationality_id',
      'n.name as nationality',
      'e.province_id',
      'p.country_code',
      'p.name as province',
      'e.updated_at',
    )) as Array<Record<string, unknown>>;
  return new Map(rows.map((row) => [Number(row.id), row]));
}

describe.each(testDialects())('migration 0012_icehrm_numbering on %s', (dialect) => {
  const empty = useEmptyDatabase(dialect);
  let db: Db;
  beforeEach(() => {
    db = empty.db;
  });

  const employee = async (columns: Record<string, unknown>) =>
    Number((await db('employees').insert({ ...employeeColumnsBefore0017(columns), created_at: BEFORE, updated_at: BEFORE }))[0]);
  const nationalityId = async (name: string) => Number((await db('nationalities').where({ name }).first('id')).id);
  const provinceId = async (country: string, name: string) =>
    Number((await db('provinces').where({ country_code: country, name }).first('id')).id);

  it("moves an existing database to IceHrm's numbering; nobody changes nationality or province", async () => {
    await migrateThrough(db, '0011_employee_sort_indexes');
    // What admins may have done to the provinces before: added some, renamed and deleted others.
    const [bavaria] = await db('provinces').insert({ country_code: 'DE', code: 'BY', name: 'Bavaria' });
    await db('provinces').insert({ id: 500, country_code: 'AT', code: 'T', name: 'Tyrol' });
    await db('provinces').where({ country_code: 'US', name: 'Wyoming' }).update({ name: 'Wyoming Territory' });
    await db('provinces').where({ country_code: 'US', name: 'Utah' }).delete();
    const people = {
      canadianInOhio: await employee({
        nationality_id: await nationalityId('Canadian'),
        country_code: 'US',
        province_id: await provinceId('US', 'Ohio'),
      }),
      emiratiInOntario: await employee({
        nationality_id: await nationalityId('Emirati'),
        country_code: 'CA',
        province_id: await provinceId('CA', 'Ontario'),
      }),
      kosovarInBavaria: await employee({
        nationality_id: await nationalityId('Kosovar'),
        country_code: 'DE',
        province_id: Number(bavaria),
      }),
      afghanInTyrol: await employee({ nationality_id: await nationalityId('Afghan'), country_code: 'AT', province_id: 500 }),
      zimbabweanInWyoming: await employee({
        nationality_id: await nationalityId('Zimbabwean'),
        country_code: 'US',
        province_id: await provinceId('US', 'Wyoming Territory'),
      }),
      nowhere: await employee({}),
    };
    const ids = Object.values(people);
    const before = await referencesOf(db, ids);

    await migrateToLatest(db);
    const after = await referencesOf(db, ids);

    const of = (id: number) => after.get(id)!;
    expect(of(people.canadianInOhio)).toMatchObject({ nationality_id: 35, nationality: 'Canadian', province_id: 41, province: 'Ohio' });
    expect(of(people.emiratiInOntario)).toMatchObject({
      nationality_id: 56,
      nationality: 'Emirian',
      country_code: 'CA',
      province: 'Ontario',
    });
    expect(of(people.kosovarInBavaria)).toMatchObject({ nationality: 'Kosovar', country_code: 'DE', province: 'Bavaria' });
    expect(of(people.afghanInTyrol)).toMatchObject({ nationality_id: 1, nationality: 'Afghan', province_id: 500, province: 'Tyrol' });
    expect(of(people.zimbabweanInWyoming)).toMatchObject({ nationality_id: 193, nationality: 'Zimbabwean', province: 'Wyoming Territory' });
    expect(of(people.nowhere)).toMatchObject({ nationality_id: null, province_id: null });
    // Rows IceHrm does not have keep an id beyond IceHrm's, or get one after the largest.
    expect(Number(of(people.kosovarInBavaria).nationality_id)).toBeGreaterThan(193);
    expect(Number(of(people.kosovarInBavaria).province_id)).toBeGreaterThan(500);
    expect(Number(of(people.zimbabweanInWyoming).province_id)).toBeGreaterThan(500);
    expect(Number(of(people.emiratiInOntario).province_id)).toBeGreaterThan(500);
    // Same places, same country; only the employees whose ids moved show a change to a sync.
    for (const id of ids) expect(of(id).country_code).toBe(before.get(id)!.country_code);
    const changed = ids.filter((id) => of(id).updated_at !== BEFORE);
    expect(changed.sort()).toEqual(
      [people.canadianInOhio, people.emiratiInOntario, people.kosovarInBavaria, people.zimbabweanInWyoming].sort(),
    );

    // IceHrm's tables are complete, the deleted Utah and the renamed Wyoming included.
    const nationalities = (await db('nationalities').where('id', '<=', 193).orderBy('id').select('id', 'name')) as Array<{
      id: number;
      name: string;
    }>;
    expect(nationalities.map((row) => [Number(row.id), row.name])).toEqual(ICEHRM_NATIONALITIES.map(([id, name]) => [id, name]));
    const provinces = (await db('provinces').where('id', '<=', 65).orderBy('id').select('id', 'country_code', 'code', 'name')) as Array<
      Record<string, unknown>
    >;
    expect(provinces.map((row) => [Number(row.id), row.country_code, row.code, row.name])).toEqual(ICEHRM_PROVINCES.map((row) => [...row]));
    expect(Number((await db('provinces').where({ country_code: 'US', name: 'Wyoming Territory' }).count({ n: '*' }).first())?.n)).toBe(1);

    // New rows are numbered after every row there is.
    const [added] = await db('provinces').insert({ country_code: 'DE', name: 'Saxony' });
    expect(Number(added)).toBeGreaterThan(Number(of(people.kosovarInBavaria).province_id));
  });

  it("gives a fresh install IceHrm's nationalities, provinces and six employment statuses, ours after IceHrm's", async () => {
    await migrateToLatest(db);

    const icehrmNames = new Set(ICEHRM_NATIONALITIES.map(([, name]) => name));
    const renamed = [
      'Antiguan',
      'Argentine',
      'Botswanan',
      'Djiboutian',
      'Emirati',
      'Icelandic',
      'Kittitian and Nevisian',
      'Maldivian',
      'Monegasque',
      'Sammarinese',
      'Slovak',
      'Surinamese',
      'Trinidadian',
      'Uzbek',
      'Yemeni',
    ];
    const ours = NATIONALITIES.filter((name) => !icehrmNames.has(name) && !renamed.includes(name));
    const nationalities = (await db('nationalities').orderBy('id').select('id', 'name')) as Array<{ id: number; name: string }>;
    expect(nationalities.map((row) => [Number(row.id), row.name])).toEqual([
      ...ICEHRM_NATIONALITIES.map(([id, name]) => [id, name]),
      ...ours.map((name, index) => [194 + index, name]),
    ]);
    expect(ours).toEqual(['Kosovar', 'Montenegrin', 'Ni-Vanuatu', 'Palestinian', 'South Sudanese', 'Turkmen', 'Vatican', 'Vincentian']);

    const provinces = (await db('provinces').orderBy('id').select('id', 'country_code', 'code', 'name')) as Array<Record<string, unknown>>;
    const canada = PROVINCES.filter(([country]) => country === 'CA');
    expect(provinces.map((row) => [Number(row.id), row.country_code, row.code, row.name])).toEqual([
      ...ICEHRM_PROVINCES.map((row) => [...row]),
      ...canada.map(([country, code, name], index) => [66 + index, country, code, name]),
    ]);

    const statuses = (await db('employment_statuses').orderBy('id').select('id', 'name')) as Array<{ id: number; name: string }>;
    expect(statuses.map((row) => [Number(row.id), row.name])).toEqual([
      [1, 'Full Time Contract'],
      [2, 'Full Time Internship'],
      [3, 'Full Time Permanent'],
      [4, 'Part Time Contract'],
      [5, 'Part Time Internship'],
      [6, 'Part Time Permanent'],
    ]);
  });

  it('goes back to the numbering of migration 0002 and its spellings, still without changing anyone', async () => {
    await migrateThrough(db, '0012_icehrm_numbering');
    const emiratiInOhio = await employee({ nationality_id: 56, country_code: 'US', province_id: 41 });
    const scottishInGuam = await employee({ nationality_id: 154, country_code: 'US', province_id: 14 });

    await db.transaction((trx) => icehrmNumbering.down(trx));
    const after = await referencesOf(db, [emiratiInOhio, scottishInGuam]);

    expect(after.get(emiratiInOhio)).toMatchObject({
      nationality_id: NATIONALITIES.indexOf('Emirati') + 1,
      nationality: 'Emirati',
      province_id: PROVINCES.findIndex(([, , name]) => name === 'Ohio') + 1,
      province: 'Ohio',
    });
    expect(after.get(scottishInGuam)).toMatchObject({ nationality: 'Scottish', province: 'Guam' });
    expect(Number(after.get(scottishInGuam)!.nationality_id)).toBeGreaterThan(NATIONALITIES.length);
    expect(Number(after.get(scottishInGuam)!.province_id)).toBeGreaterThan(PROVINCES.length);
  });
});
