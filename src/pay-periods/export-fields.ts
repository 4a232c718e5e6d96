import type { Db } from '../db/connect';
import type { ProfileDefinition } from '../export-profiles/definition';
import type { EmployeeFields } from '../export-profiles/render';

// The employee fields an export profile may write (names, payroll id, reference names): read for
// an open period's batch, and frozen with a lock's snapshots (pay_period_snapshots.employee_fields).

const FIELD_SOURCES = new Set(['payroll_id', 'first_name', 'last_name', 'full_name', 'department', 'job_title', 'pay_grade']);
const REFERENCE_TABLES: Record<string, string> = { department: 'departments', job_title: 'job_titles', pay_grade: 'pay_grades' };

/** Whether a profile writes more of an employee than their code and id. */
export function usesEmployeeFields(profile: ProfileDefinition): boolean {
  return profile.columns.some((column) => FIELD_SOURCES.has(column.value));
}

/** The reference tables whose names a profile writes. */
export function usesReferenceNames(profile: ProfileDefinition): string[] {
  return [...new Set(profile.columns.flatMap((column) => (REFERENCE_TABLES[column.value] ? [REFERENCE_TABLES[column.value]!] : [])))];
}

/** The fields of these employees, as they are now. */
export async function employeeFieldsOf(db: Db, ids: readonly number[]): Promise<Map<number, EmployeeFields>> {
  const rows = (await db('employees as e')
    .leftJoin('departments as d', 'd.id', 'e.department_id')
    .leftJoin('job_titles as j', 'j.id', 'e.job_title_id')
    .leftJoin('pay_grades as g', 'g.id', 'e.pay_grade_id')
    .whereIn('e.id', ids)
    .select(
      'e.id',
      'e.employee_id as code',
      'e.payroll_id',
      'e.first_name',
      'e.last_name',
      'd.name as department',
      'j.name as job_title',
      'g.name as pay_grade',
    )) as Array<Record<string, unknown>>;
  const text = (value: unknown) => (value == null || value === '' ? null : String(value));
  return new Map(
    rows.map((row) => [
      Number(row.id),
      {
        id: Number(row.id),
        code: String(row.code),
        payroll_id: text(row.payroll_id),
        first_name: String(row.first_name ?? ''),
        last_name: String(row.last_name ?? ''),
        department: text(row.department),
        job_title: text(row.job_title),
        pay_grade: text(row.pay_grade),
      },
    ]),
  );
}

/** The fields frozen with a snapshot: what a profile may write, without the id and code the row holds. */
export function frozenFieldsJson({ id: _id, code: _code, ...fields }: EmployeeFields): string {
  return JSON.stringify(fields);
}
