import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import type { EmployeeColumns } from '../employee-records/record';
import { MARITAL_STATUSES } from '../employee-records/fields';
import { CITIES, DEPARTMENTS, FIRST_NAMES, GENDERS, JOB_TITLES, LAST_NAMES, PAY_GRADES, STREETS, TIMEZONES } from './names';
import { Random } from './random';

/** Rows per INSERT: 500 x 40 columns stays under SQLite's 32766 bound parameters. */
const BATCH_SIZE = 500;
/** One employee in this many is a manager; everyone else reports to one of them. */
const REPORTS_PER_MANAGER = 40;

interface SeedResult {
  count: number;
  firstId: number;
  lastId: number;
}

/**
 * Inserts `count` realistic demo employees after the existing ones: names, contact details,
 * reference data, and a reporting hierarchy (a few managers, everyone else reporting to one).
 * Creates the demo departments, job titles and pay grades it uses when they are missing.
 * Ids are assigned here, in one transaction, so supervisors can point at rows of the same batch.
 */
export async function seedEmployees(db: Db, options: { count: number; now: Date; seed?: number }): Promise<SeedResult> {
  const random = new Random(options.seed ?? 20261122);
  const now = toSqlDateTime(options.now);
  return db.transaction(async (trx) => {
    const references = await ensureReferenceData(trx);
    const maxRow = await trx('employees').max({ max: 'id' }).first();
    const firstId = Number(maxRow?.max ?? 0) + 1;
    const managers = Math.max(1, Math.ceil(options.count / REPORTS_PER_MANAGER));

    for (let offset = 0; offset < options.count; offset += BATCH_SIZE) {
      const rows: Array<EmployeeColumns & { id: number; created_at: string; updated_at: string }> = [];
      for (let index = offset; index < Math.min(options.count, offset + BATCH_SIZE); index++) {
        const id = firstId + index;
        // Managers report to the first manager; the first manager reports to no one.
        const supervisor = index === 0 ? null : index < managers ? firstId : firstId + random.int(0, managers - 1);
        const employee = demoEmployee(random, id, { supervisor, manager: index < managers }, references);
        rows.push({ id, ...employee, created_at: now, updated_at: now });
      }
      await trx('employees').insert(rows);
    }
    return { count: options.count, firstId, lastId: firstId + options.count - 1 };
  });
}

interface ReferenceIds {
  departments: number[];
  jobTitles: number[];
  payGrades: number[];
  nationalities: number[];
  employmentStatuses: number[];
  usProvinces: number[];
}

function demoEmployee(
  random: Random,
  id: number,
  { supervisor, manager }: { supervisor: number | null; manager: boolean },
  refs: ReferenceIds,
): EmployeeColumns {
  const first = random.pick(FIRST_NAMES);
  const last = random.pick(LAST_NAMES);
  const handle = `${first}.${last}`
    .toLowerCase()
    .normalize('NFD')
    .replace(/[^a-z.]/g, '');
  const inUs = random.chance(0.7);
  const joined = random.date(2008, 2025);
  const terminated = !manager && random.chance(0.05);
  return {
    employee_id: `EMP${String(id).padStart(6, '0')}`,
    first_name: first,
    middle_name: random.chance(0.3) ? random.pick(FIRST_NAMES) : null,
    last_name: last,
    nationality_id: random.pick(refs.nationalities),
    birthday: random.date(1960, 2004),
    gender: random.pick(GENDERS),
    marital_status: random.pick(MARITAL_STATUSES),
    ssn_num: inUs ? `${random.int(100, 899)}-${random.int(10, 99)}-${random.int(1000, 9999)}` : null,
    nic_num: `NIC${random.int(10000000, 99999999)}`,
    other_id: null,
    driving_license: random.chance(0.6) ? `DL${random.int(1000000, 9999999)}` : null,
    employment_status_id: random.pick(refs.employmentStatuses),
    job_title_id: random.pick(refs.jobTitles),
    pay_grade_id: random.pick(refs.payGrades),
    work_station_id: `WS-${random.int(100, 999)}`,
    address1: `${random.int(1, 9999)} ${random.pick(STREETS)}`,
    address2: random.chance(0.2) ? `Apt ${random.int(1, 300)}` : null,
    city: random.pick(CITIES),
    country_code: inUs ? 'US' : random.pick(['GB', 'DE', 'IN', 'CA', 'FR', 'NL', 'ES']),
    province_id: inUs ? random.pick(refs.usProvinces) : null,
    postal_code: String(random.int(10000, 99999)),
    home_phone: null,
    mobile_phone: `+1-555-${String(random.int(0, 9999)).padStart(4, '0')}`,
    work_phone: `+1-555-${String(random.int(0, 9999)).padStart(4, '0')}`,
    work_email: `${handle}.${id}@example.com`,
    private_email: random.chance(0.5) ? `${handle}${random.int(1, 99)}@example.net` : null,
    joined_date: joined,
    confirmation_date: random.chance(0.8) ? joined : null,
    supervisor_id: supervisor,
    indirect_supervisors: null,
    department_id: random.pick(refs.departments),
    termination_date: terminated ? '2026-06-30' : null,
    status: terminated ? 'Terminated' : 'Active',
    approver1_id: supervisor,
    approver2_id: null,
    approver3_id: null,
    timezone: random.pick(TIMEZONES),
    // The badge number terminals know them by: unique, as the employee id.
    attendance_device_id: String(100000 + id),
    payroll_id: null,
  };
}

async function ensureReferenceData(db: Db): Promise<ReferenceIds> {
  await insertMissingNames(
    db,
    'departments',
    DEPARTMENTS.map((name) => ({ name })),
  );
  await insertMissingNames(
    db,
    'job_titles',
    JOB_TITLES.map((name) => ({ name })),
  );
  await insertMissingNames(
    db,
    'pay_grades',
    PAY_GRADES.map(([name, min, max]) => ({ name, currency: 'USD', min_salary: min, max_salary: max })),
  );
  const ids = async (table: string, where: Record<string, string> = {}) =>
    ((await db(table).where(where).select('id')) as Array<{ id: number }>).map((row) => Number(row.id));
  const refs = {
    departments: await ids('departments'),
    jobTitles: await ids('job_titles'),
    payGrades: await ids('pay_grades'),
    nationalities: await ids('nationalities'),
    employmentStatuses: await ids('employment_statuses'),
    usProvinces: await ids('provinces', { country_code: 'US' }),
  };
  for (const [name, list] of Object.entries(refs)) {
    if (list.length === 0) throw new Error(`No ${name} to seed employees with`);
  }
  return refs;
}

async function insertMissingNames(db: Db, table: string, rows: Array<{ name: string } & Record<string, unknown>>): Promise<void> {
  const existing = new Set(((await db(table).select('name')) as Array<{ name: string }>).map((row) => row.name.toLowerCase()));
  const missing = rows.filter((row) => !existing.has(row.name.toLowerCase()));
  if (missing.length > 0) await db(table).insert(missing);
}
