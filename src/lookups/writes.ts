import { z } from 'zod';
import type { Db } from '../db/connect';
import type { FieldError } from '../errors';
import { optionalText, reference, requiredCountryCode, requiredText } from '../http/field-schemas';

/** How a writable reference table is written (admins only; docs/api.md). */
export interface LookupWrites {
  /** Every writable field with its rule. */
  shape: Record<string, z.ZodType>;
  /** Fields a create must send. */
  required: readonly string[];
  /** Parsed values as table columns. */
  toColumns(values: Record<string, unknown>): Record<string, unknown>;
  /** Rules across fields or against the database; `id` when updating. */
  check(db: Db, values: Record<string, unknown>, id: number | undefined): Promise<FieldError[]>;
  /** The `employees` column that points at this table: a row in use cannot be deleted. */
  usedBy: string;
}

const nameAndDescription = { name: requiredText(100), description: optionalText(500) };
const sameColumns = (values: Record<string, unknown>) => values;
const noChecks = async () => [];

/** A decimal amount of money: a number or numeric string, at most 12 digits with 2 decimals. */
const money = z
  .preprocess(
    (value) => (value === '' ? null : typeof value === 'number' ? String(value) : value),
    z
      .string({ error: 'must be an amount such as 45000 or "45000.00"' })
      .regex(/^\d{1,10}(\.\d{1,2})?$/, { error: 'must be an amount such as 45000 or "45000.00"' })
      .nullable(),
  )
  .meta({ 'x-accepts': 'money' });

export const LOOKUP_WRITES: Record<string, LookupWrites> = {
  'employment-statuses': {
    shape: nameAndDescription,
    required: ['name'],
    toColumns: sameColumns,
    check: noChecks,
    usedBy: 'employment_status_id',
  },
  'job-titles': {
    shape: { ...nameAndDescription, code: optionalText(50) },
    required: ['name'],
    toColumns: sameColumns,
    check: noChecks,
    usedBy: 'job_title_id',
  },
  'pay-grades': {
    shape: {
      name: requiredText(100),
      currency: z
        .preprocess(
          (value) => (value === '' ? null : value),
          z
            .string({ error: 'must be a three-letter ISO 4217 currency code' })
            .regex(/^[A-Za-z]{3}$/, { error: 'must be a three-letter ISO 4217 currency code' })
            .transform((code) => code.toUpperCase())
            .nullable(),
        )
        .meta({ 'x-accepts': 'currency' }),
      min_salary: money,
      max_salary: money,
    },
    required: ['name'],
    toColumns: sameColumns,
    check: checkSalaryRange,
    usedBy: 'pay_grade_id',
  },
  departments: {
    shape: { ...nameAndDescription, parent: reference('a department') },
    required: ['name'],
    toColumns: ({ parent, ...rest }) => (parent === undefined ? rest : { ...rest, parent_id: parent }),
    check: checkDepartmentParent,
    usedBy: 'department_id',
  },
  provinces: {
    shape: { name: requiredText(100), code: optionalText(10), country: requiredCountryCode },
    required: ['name', 'country'],
    toColumns: ({ country, ...rest }) => (country === undefined ? rest : { ...rest, country_code: country }),
    check: checkProvinceCountry,
    usedBy: 'province_id',
  },
};

async function checkSalaryRange(db: Db, values: Record<string, unknown>, id: number | undefined): Promise<FieldError[]> {
  const current = id === undefined ? undefined : await db('pay_grades').where({ id }).first('min_salary', 'max_salary');
  const min = values.min_salary !== undefined ? values.min_salary : current?.min_salary;
  const max = values.max_salary !== undefined ? values.max_salary : current?.max_salary;
  if (min != null && max != null && Number(min) > Number(max)) return [{ field: 'max_salary', message: 'must not be below min_salary' }];
  return [];
}

/** The parent must exist and must not be the department itself or one of its descendants. */
async function checkDepartmentParent(db: Db, values: Record<string, unknown>, id: number | undefined): Promise<FieldError[]> {
  const parent = values.parent;
  if (typeof parent !== 'number') return [];
  let ancestor: number | null = parent;
  for (let depth = 0; ancestor !== null && depth < 100; depth++) {
    if (ancestor === id) return [{ field: 'parent', message: 'must not be the department itself or one of its sub-departments' }];
    const row: { parent_id: number | null } | undefined = await db('departments').where({ id: ancestor }).first('parent_id');
    if (!row) return ancestor === parent ? [{ field: 'parent', message: 'does not exist' }] : [];
    ancestor = row.parent_id;
  }
  return [];
}

/** The country must exist; a province employees live in keeps its country. */
async function checkProvinceCountry(db: Db, values: Record<string, unknown>, id: number | undefined): Promise<FieldError[]> {
  const country = values.country;
  if (typeof country !== 'string') return [];
  if (!(await db('countries').where({ code: country }).first('code'))) {
    return [{ field: 'country', message: 'is not a known ISO 3166-1 country code' }];
  }
  if (id !== undefined) {
    const current: { country_code: string } | undefined = await db('provinces').where({ id }).first('country_code');
    if (current && current.country_code !== country && (await db('employees').where({ province_id: id }).first('id'))) {
      return [{ field: 'country', message: 'cannot change while employees live in this province' }];
    }
  }
  return [];
}
