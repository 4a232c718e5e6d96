import type { Knex } from 'knex';
import type { Db } from '../db/connect';
import { COUNTRY, REFERENCE_FIELDS, type ReferenceFieldName } from './fields';

/** Column values of an `employees` row as written (ids as numbers, dates as YYYY-MM-DD). */
export interface EmployeeColumns {
  employee_id: string;
  first_name: string;
  middle_name: string | null;
  last_name: string;
  nationality_id: number | null;
  birthday: string | null;
  gender: string | null;
  marital_status: string | null;
  ssn_num: string | null;
  nic_num: string | null;
  other_id: string | null;
  driving_license: string | null;
  employment_status_id: number | null;
  job_title_id: number | null;
  pay_grade_id: number | null;
  work_station_id: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  country_code: string | null;
  province_id: number | null;
  postal_code: string | null;
  home_phone: string | null;
  mobile_phone: string | null;
  work_phone: string | null;
  work_email: string | null;
  private_email: string | null;
  joined_date: string | null;
  confirmation_date: string | null;
  supervisor_id: number | null;
  /** JSON array of employee-id strings, as on the wire. */
  indirect_supervisors: string | null;
  department_id: number | null;
  termination_date: string | null;
  status: string;
  approver1_id: number | null;
  approver2_id: number | null;
  approver3_id: number | null;
  timezone: string;
}

/** What a reference points to, for the `display` of its reference object. */
export type ReferenceDisplays = Record<ReferenceFieldName | 'country', string | null>;

export interface EmployeeRecord extends EmployeeColumns {
  id: number;
  created_at: string;
  updated_at: string;
  displays: ReferenceDisplays;
}

const EMPLOYEE_REFERENCES = Object.entries(REFERENCE_FIELDS) as Array<[ReferenceFieldName, (typeof REFERENCE_FIELDS)[ReferenceFieldName]]>;

/**
 * employees joined with every table it references, selecting the names shown as `display`.
 * Each join is a primary-key lookup.
 */
function selectEmployees(db: Db): Knex.QueryBuilder {
  const query = db('employees as e').select('e.*');
  for (const [field, reference] of EMPLOYEE_REFERENCES) {
    const alias = `ref_${field}`;
    query.leftJoin(`${reference.table} as ${alias}`, `${alias}.id`, `e.${reference.column}`);
    if (reference.table === 'employees') {
      query.select(`${alias}.first_name as ${field}__first_name`, `${alias}.last_name as ${field}__last_name`);
    } else {
      query.select(`${alias}.name as ${field}__name`);
    }
  }
  query.leftJoin(`${COUNTRY.table} as ref_country`, 'ref_country.code', `e.${COUNTRY.column}`).select('ref_country.name as country__name');
  return query;
}

type JoinedRow = EmployeeColumns & { id: number; created_at: string; updated_at: string } & Record<string, unknown>;

function toEmployeeRecord(row: JoinedRow): EmployeeRecord {
  const displays = { country: (row.country__name as string | null) ?? null } as ReferenceDisplays;
  for (const [field, reference] of EMPLOYEE_REFERENCES) {
    displays[field] =
      reference.table === 'employees'
        ? row[`${field}__first_name`] == null
          ? null
          : `${String(row[`${field}__first_name`])} ${String(row[`${field}__last_name`])}`
        : ((row[`${field}__name`] as string | null) ?? null);
  }
  const record: Record<string, unknown> = { displays };
  for (const [key, value] of Object.entries(row)) {
    if (!key.includes('__')) record[key] = value;
  }
  return record as unknown as EmployeeRecord;
}

export async function findEmployeeById(db: Db, id: number): Promise<EmployeeRecord | undefined> {
  const row = (await selectEmployees(db).where('e.id', id).first()) as JoinedRow | undefined;
  return row && toEmployeeRecord(row);
}

export async function insertEmployee(db: Db, columns: EmployeeColumns & { created_at: string; updated_at: string }): Promise<number> {
  const [id] = await db('employees').insert(columns);
  return Number(id);
}

/** The ids among `ids` that exist in `table`. */
export async function existingIds(db: Db, table: string, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows: Array<{ id: number }> = await db(table).whereIn('id', ids).select('id');
  return new Set(rows.map((row) => Number(row.id)));
}

export async function findProvinceCountry(db: Db, provinceId: number): Promise<string | undefined> {
  const row: { country_code: string } | undefined = await db('provinces').where({ id: provinceId }).first('country_code');
  return row?.country_code;
}

export async function countryExists(db: Db, code: string): Promise<boolean> {
  return (await db('countries').where({ code }).first('code')) !== undefined;
}
