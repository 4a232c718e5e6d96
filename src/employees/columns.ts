import { columnOf, type EmployeeField } from './fields';
import type { EmployeeColumns } from './repository';
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
