import { columnOf, type EmployeeField, PERSONAL_FIELDS } from '../employee-records/fields';
import type { EmployeeColumns } from '../employee-records/record';
import type { EmployeeValues } from './schemas';

/** Parsed input values as `employees` column values. */
export function toEmployeeColumns(values: EmployeeValues): Partial<EmployeeColumns> {
  const columns: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(values)) {
    columns[columnOf(field as EmployeeField)] =
      // Stored as on the wire: a JSON array of id strings inside a string.
      field === 'indirect_supervisors' && Array.isArray(value) ? JSON.stringify(value.map(String)) : value;
  }
  return columns as Partial<EmployeeColumns>;
}

const PERSONAL = new Set<string>(PERSONAL_FIELDS);

/** Before/after of changed fields, leaving out personal fields' values (names only). */
export function valueChanges(
  before: Partial<EmployeeColumns>,
  after: Partial<EmployeeColumns>,
  fields: EmployeeField[],
): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const field of fields) {
    if (PERSONAL.has(field)) continue;
    const column = columnOf(field) as keyof EmployeeColumns;
    changes[field] = { from: before[column] ?? null, to: after[column] ?? null };
  }
  return changes;
}
