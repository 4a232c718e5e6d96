import type { Knex } from 'knex';
import * as referenceTables from './0001_reference_tables';
import * as referenceData from './0002_reference_data';
import * as employees from './0003_employees';
import * as usersAndTokens from './0004_users_and_tokens';
import * as settings from './0005_settings';
import * as attendance from './0006_attendance';
import * as auditLog from './0007_audit_log';
import * as idempotencyKeys from './0008_idempotency_keys';
import * as rateLimits from './0009_rate_limits';
import * as auditEmployee from './0010_audit_employee';
import * as employeeSortIndexes from './0011_employee_sort_indexes';
import * as icehrmNumbering from './0012_icehrm_numbering';
import * as uniqueDepartmentNames from './0013_unique_department_names';
import * as purge from './0014_purge';
import * as attendanceVersion from './0015_attendance_version';
import * as webhooks from './0016_webhooks';
import * as attendanceTerminals from './0017_attendance_terminals';
import * as importLedger from './0018_import_ledger';
import * as attendanceTimeIndex from './0019_attendance_time_index';
import * as punchLogRederivation from './0020_punch_log_rederivation';
import * as webhookAttempts from './0021_webhook_attempts';
import * as payPeriods from './0022_pay_periods';
import * as deletions from './0023_deletions';
import * as attendanceMarks from './0024_attendance_marks';
import * as exportProfiles from './0025_export_profiles';
import * as missedPunchOut from './0026_missed_punch_out';
import * as payGroups from './0027_pay_groups';
import * as lockVersions from './0028_lock_versions';
import * as leave from './0029_leave';
import * as shifts from './0031_shifts';
import * as calendarFeedsAndRotations from './0032_calendar_feeds_and_rotations';
import * as frozenLeaveHours from './0035_frozen_leave_hours';
import * as employmentDatesIndex from './0036_employment_dates_index';
import * as shiftsEmployeeDateIndex from './0037_shifts_employee_date_index';

export interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Every migration, in order. Listed explicitly (not read from the directory) so the same list
 * works from TypeScript sources and compiled output. Append only; never edit a merged migration.
 */
export const MIGRATIONS: readonly Migration[] = [
  { name: '0001_reference_tables', ...referenceTables },
  { name: '0002_reference_data', ...referenceData },
  { name: '0003_employees', ...employees },
  { name: '0004_users_and_tokens', ...usersAndTokens },
  { name: '0005_settings', ...settings },
  { name: '0006_attendance', ...attendance },
  { name: '0007_audit_log', ...auditLog },
  { name: '0008_idempotency_keys', ...idempotencyKeys },
  { name: '0009_rate_limits', ...rateLimits },
  { name: '0010_audit_employee', ...auditEmployee },
  { name: '0011_employee_sort_indexes', ...employeeSortIndexes },
  { name: '0012_icehrm_numbering', ...icehrmNumbering },
  { name: '0013_unique_department_names', ...uniqueDepartmentNames },
  { name: '0014_purge', ...purge },
  { name: '0015_attendance_version', ...attendanceVersion },
  { name: '0016_webhooks', ...webhooks },
  { name: '0017_attendance_terminals', ...attendanceTerminals },
  { name: '0018_import_ledger', ...importLedger },
  { name: '0019_attendance_time_index', ...attendanceTimeIndex },
  { name: '0020_punch_log_rederivation', ...punchLogRederivation },
  { name: '0021_webhook_attempts', ...webhookAttempts },
  { name: '0022_pay_periods', ...payPeriods },
  { name: '0023_deletions', ...deletions },
  { name: '0024_attendance_marks', ...attendanceMarks },
  { name: '0025_export_profiles', ...exportProfiles },
  { name: '0026_missed_punch_out', ...missedPunchOut },
  { name: '0027_pay_groups', ...payGroups },
  { name: '0028_lock_versions', ...lockVersions },
  { name: '0029_leave', ...leave },
  { name: '0031_shifts', ...shifts },
  { name: '0032_calendar_feeds_and_rotations', ...calendarFeedsAndRotations },
  { name: '0035_frozen_leave_hours', ...frozenLeaveHours },
  { name: '0036_employment_dates_index', ...employmentDatesIndex },
  { name: '0037_shifts_employee_date_index', ...shiftsEmployeeDateIndex },
];
