import type { Db } from '../db/connect';
import type { FieldError } from '../errors';
import { todayIn } from '../time';
import { columnOf, type EmployeeField, REFERENCE_FIELDS, type ReferenceFieldName } from '../employee-records/fields';
import type { EmployeeColumns, EmployeeRecord } from '../employee-records/record';
import { countryExists, existingIds, findProvinceCountry } from './repository';
import type { EmployeeValues } from './schemas';

const EMPLOYEE_REFERENCE_FIELDS = (Object.keys(REFERENCE_FIELDS) as ReferenceFieldName[]).filter(
  (field) => REFERENCE_FIELDS[field].table === 'employees',
);

/**
 * The input rules (docs/decisions.md, "Wire format") that need the database or several fields: references exist, the
 * province belongs to the country, dates are in order. `existing` is the record being updated;
 * fields not sent keep its values.
 */
export async function checkEmployeeRules(
  db: Db,
  values: EmployeeValues,
  context: { existing?: EmployeeRecord; now: Date; timezone: string },
): Promise<FieldError[]> {
  const { existing } = context;
  const errors: FieldError[] = [];
  const current = <F extends EmployeeField>(field: F): unknown =>
    field in values ? values[field] : (existing?.[columnOf(field) as keyof EmployeeColumns] ?? null);

  if ('pay_group' in values && values.pay_group === null) {
    errors.push({ field: 'pay_group', message: 'must be a pay group: every employee has one (GET /pay-groups)' });
  }
  if (values.birthday && values.birthday >= todayIn(context.timezone, context.now)) {
    errors.push({ field: 'birthday', message: 'must be in the past' });
  }
  const joined = current('joined_date') as string | null;
  const terminated = current('termination_date') as string | null;
  if (('joined_date' in values || 'termination_date' in values) && joined && terminated && terminated < joined) {
    errors.push({ field: 'termination_date', message: 'must not be before joined_date' });
  }

  errors.push(...(await missingReferences(db, values)));
  if (existing) {
    for (const field of EMPLOYEE_REFERENCE_FIELDS) {
      if (values[field] === existing.id) errors.push({ field, message: 'must not be the employee itself' });
    }
    if (values.indirect_supervisors?.includes(existing.id)) {
      errors.push({ field: 'indirect_supervisors', message: 'must not list the employee itself' });
    }
  }

  if (values.country && !(await countryExists(db, values.country))) {
    errors.push({ field: 'country', message: 'is not a known ISO 3166-1 country code' });
  }
  const province = current('province') as number | null;
  const country = current('country') as string | null;
  if (('province' in values || 'country' in values) && province !== null && !errors.some((e) => e.field === 'province')) {
    const provinceCountry = await findProvinceCountry(db, province);
    if (provinceCountry !== undefined && provinceCountry !== country) {
      errors.push({ field: 'province', message: country ? `does not belong to country ${country}` : 'requires country to be set' });
    }
  }
  return errors;
}

/** "does not exist" for every sent reference id with no row, one query per referenced table. */
async function missingReferences(db: Db, values: EmployeeValues): Promise<FieldError[]> {
  const wanted = new Map<string, Array<{ field: string; id: number }>>();
  const want = (table: string, field: string, id: number) => {
    wanted.set(table, [...(wanted.get(table) ?? []), { field, id }]);
  };
  for (const field of Object.keys(REFERENCE_FIELDS) as ReferenceFieldName[]) {
    const id = values[field];
    if (typeof id === 'number') want(REFERENCE_FIELDS[field].table, field, id);
  }
  for (const id of values.indirect_supervisors ?? []) want('employees', 'indirect_supervisors', id);

  const errors: FieldError[] = [];
  for (const [table, references] of wanted) {
    const found = await existingIds(
      db,
      table,
      references.map((reference) => reference.id),
    );
    for (const { field, id } of references) {
      if (!found.has(id)) {
        const message = field === 'indirect_supervisors' ? `lists employee ${id}, which does not exist` : 'does not exist';
        errors.push({ field, message });
      }
    }
  }
  return errors;
}
