import type { AttendanceSettings } from '../attendance/rules';
import { type Db, dialectOf } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import { importAttendance } from './attendance';
import { reportDifferences } from './differences';
import { countForeignEmployees, importEmployees } from './employees';
import type { IcehrmSource } from './icehrm-source';
import { checkNationalities, importProvinces } from './numbering';
import { ICEHRM_OVERTIME_SETTINGS, importOvertimeSettings } from './overtime-settings';
import { DEPARTMENTS, EMPLOYMENT_STATUSES, importReferenceTable, JOB_TITLES, PAY_GRADES } from './references';
import { type ImportContext, type ImportProgress, ImportReport } from './report';
import { importUsers } from './users';
import { importLeave } from './leave';

interface ImportOptions {
  dryRun: boolean;
  merge: boolean;
  /** Only attendance that begins on or after this day (YYYY-MM-DD, IceHrm's wall clock). */
  since?: string;
  /** The IceHrm employee field copied into payroll_id (`--payroll-id-from`); none by default. */
  payrollIdFrom?: string;
  now: Date;
  /** The time zone of employees whose department names none: the instance's default_timezone. */
  fallbackTimezone: string;
  attendance: AttendanceSettings;
}

/** `--payroll-id-from` names a field IceHrm's employees do not have. */
export class UnknownSourceFieldError extends Error {}

/** The target holds employees that did not come from IceHrm, and --merge was not given. */
export class TargetNotEmptyError extends Error {}

/**
 * Copies an IceHrm database into this one, ids kept: reference tables, employees, users,
 * leave, attendance, then the overtime settings, in that order (each step needs the ids the previous ones kept). Every step
 * decides everything from what it read before it writes, so a dry run goes through the same
 * checks and reports the same rejects, and writes nothing.
 */
export async function importIcehrm(source: IcehrmSource, db: Db, options: ImportOptions, progress: ImportProgress): Promise<ImportReport> {
  const report = new ImportReport();
  const context: ImportContext = {
    db,
    dryRun: options.dryRun,
    merge: options.merge,
    payrollIdFrom: options.payrollIdFrom,
    now: options.now,
    nowSql: toSqlDateTime(options.now),
    report,
    progress,
    batchSize: dialectOf(db) === 'sqlite' ? 500 : 2000,
  };
  if (!options.merge) {
    const foreign = await countForeignEmployees(context);
    if (foreign > 0) {
      throw new TargetNotEmptyError(
        `This database already holds ${foreign} employee${foreign === 1 ? '' : 's'} that did not come from IceHrm: import into an empty one, or add --merge to import beside them`,
      );
    }
  }

  // Read before anything is written: a field the employees lack stops the import here.
  const employeeRows = await source.rows('Employees');
  const payrollField = options.payrollIdFrom;
  if (payrollField !== undefined && employeeRows.length > 0 && !Object.hasOwn(employeeRows[0]!, payrollField))
    throw new UnknownSourceFieldError(`--payroll-id-from: IceHrm's employees have no field ${payrollField}`);

  if (source.missingColumns.size > 0) {
    const missing = [...source.missingColumns].map(([table, columns]) => `${table} ${columns.join(', ')}`).join('; ');
    report.notes.push(`IceHrm's database has no ${missing} (its base schema, or a release before 26): imported empty`);
  }

  const nationalities = await checkNationalities(context, await source.rows('Nationality'));
  const provinces = await importProvinces(context, await source.rows('Province'));
  const employmentStatuses = await importReferenceTable(context, EMPLOYMENT_STATUSES, await source.rows('EmploymentStatus'));
  const jobTitles = await importReferenceTable(context, JOB_TITLES, await source.rows('JobTitles'));
  const payGrades = await importReferenceTable(context, PAY_GRADES, await source.rows('PayGrades'));
  const structure = await source.rows('CompanyStructures');
  const departments = await importReferenceTable(context, DEPARTMENTS, structure);
  const countries = new Set(((await db('countries').select('code')) as Array<{ code: string }>).map((row) => row.code));

  const employees = await importEmployees(
    context,
    { employees: employeeRows, departments: structure },
    { nationalities, provinces, countries, employmentStatuses, jobTitles, payGrades, departments },
    options.fallbackTimezone,
  );
  await importUsers(context, await source.rows('Users'), employees);
  await importLeave(context, source, employees);
  await importAttendance(context, source, employees, { since: options.since, settings: options.attendance });
  const icehrmSettings = await source.settings(Object.values(ICEHRM_OVERTIME_SETTINGS));
  await importOvertimeSettings(context, icehrmSettings);
  await reportDifferences(context, icehrmSettings);
  return report;
}
