import type { Knex } from 'knex';
import { COUNTRIES } from './data/countries';
import { NATIONALITIES } from './data/nationalities';
import { PROVINCES } from './data/provinces';

const EMPLOYMENT_STATUSES = [
  'Full Time Contract',
  'Full Time Internship',
  'Full Time Permanent',
  'Part Time Contract',
  'Part Time Internship',
  'Part Time Permanent',
];

export async function up(knex: Knex): Promise<void> {
  await knex('countries').insert(COUNTRIES.map(([code, iso3, numeric, name]) => ({ code, iso3, numeric_code: numeric, name })));
  await knex('provinces').insert(PROVINCES.map(([country, code, name]) => ({ country_code: country, code, name })));
  await knex('nationalities').insert(NATIONALITIES.map((name) => ({ name })));
  await knex('employment_statuses').insert(EMPLOYMENT_STATUSES.map((name) => ({ name })));
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['employment_statuses', 'nationalities', 'provinces', 'countries']) {
    await knex(table).delete();
  }
}
