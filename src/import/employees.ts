import type { EmployeeColumns } from '../employee-records/record';
import { toEmployeeColumns } from '../employees/columns';
import { columnOf, EMPLOYEE_FIELDS } from '../employee-records/fields';
import { parameter, preparedWrite } from '../db/driver-statements';
import { rowInserter } from './insert-rows';
import { parseEmployeeInput, REQUIRED_ON_CREATE } from '../employees/schemas';
import { FIRST_ADMIN_USERNAME } from '../provisioning/first-admin';
import { isTimeZone, todayIn } from '../time';
import { fingerprintOf, type LedgerRow, readLedger, writeLedger } from './ledger';
import { type ImportContext, quoted, textOrNull } from './report';
import type { SourceRow } from './icehrm-source';

// IceHrm has no pay groups: imported employees take the column's default, group 1.
const insertEmployees = rowInserter('employees', [
  'id',
  ...EMPLOYEE_FIELDS.filter((field) => field !== 'pay_group').map(columnOf),
  'created_at',
  'updated_at',
]);

/** Ids of the reference rows employees may point at, after the reference tables were imported. */
interface UsableReferences {
  nationalities: Set<number>;
  /** Province id → its country. */
  provinces: Map<number, string>;
  countries: Set<string>;
  employmentStatuses: Set<number>;
  jobTitles: Set<number>;
  payGrades: Set<number>;
  departments: Set<number>;
}

/** The IceHrm columns copied as they are (text and dates), validated by the API's own field rules. */
const PLAIN_FIELDS = [
  'employee_id',
  'first_name',
  'middle_name',
  'last_name',
  'birthday',
  'gender',
  'marital_status',
  'ssn_num',
  'nic_num',
  'other_id',
  'driving_license',
  'work_station_id',
  'address1',
  'address2',
  'city',
  'postal_code',
  'home_phone',
  'mobile_phone',
  'work_phone',
  'work_email',
  'private_email',
  'joined_date',
  'confirmation_date',
  'termination_date',
] as const;

/** IceHrm column → the reference it names here (ids kept) and the column it fills. */
const REFERENCES = [
  { field: 'nationality', column: 'nationality_id', set: 'nationalities', noun: 'nationality' },
  { field: 'employment_status', column: 'employment_status_id', set: 'employmentStatuses', noun: 'employment status' },
  { field: 'job_title', column: 'job_title_id', set: 'jobTitles', noun: 'job title' },
  { field: 'pay_grade', column: 'pay_grade_id', set: 'payGrades', noun: 'pay grade' },
  { field: 'department', column: 'department_id', set: 'departments', noun: 'department' },
] as const;

const EMPLOYEE_LINKS = [
  { field: 'supervisor', column: 'supervisor_id' },
  { field: 'approver1', column: 'approver1_id' },
  { field: 'approver2', column: 'approver2_id' },
  { field: 'approver3', column: 'approver3_id' },
] as const;

type LinkColumns = Pick<EmployeeColumns, 'supervisor_id' | 'approver1_id' | 'approver2_id' | 'approver3_id' | 'indirect_supervisors'>;

interface PlannedEmployee {
  id: number;
  columns: EmployeeColumns;
  action: 'add' | 'update' | 'keep';
  fingerprint: string;
}

/** An IceHrm id or "no value": IceHrm writes NULL, '' or 0 for none. */
function idOf(value: unknown): number | null {
  if (value === null || value === undefined || value === '' || Number(value) === 0) return null;
  const id = Number(value);
  return Number.isInteger(id) && id > 0 ? id : null;
}

/**
 * Copies IceHrm's employees, ids kept: every field of the write shape, checked by the API's own
 * rules. A missing or invalid employee_id, first_name or last_name leaves the employee out; any
 * other invalid value, and a reference to a row that is missing (a deleted supervisor) or was
 * left out, is imported empty and noted, never invented. Each employee's time zone is its
 * department's (IceHrm keeps time zones on the company structure), up the tree, else `fallback`.
 *
 * Rows are written in two passes of batches, a transaction each: the employees without their
 * links to other employees, then the links (a supervisor may come in a later batch). Returns
 * the time zone of every IceHrm employee now here, by id.
 */
export async function importEmployees(
  context: ImportContext,
  source: { employees: SourceRow[]; departments: SourceRow[] },
  usable: UsableReferences,
  fallbackTimezone: string,
): Promise<Map<number, string>> {
  const { db, report } = context;
  const counts = report.counts('employees');
  const timezoneOf = departmentTimezones(source.departments, fallbackTimezone);
  const ledger = await readLedger(db, 'employee');
  const here = new Map(
    ((await db('employees').select('id', 'employee_id')) as Array<{ id: number; employee_id: string }>).map((row) => [
      Number(row.id),
      row.employee_id,
    ]),
  );
  const firstStart = await findFirstStartEmployee(context);
  const foreignCodes = new Map<string, number>();
  for (const [id, code] of here) if (!ledger.has(id)) foreignCodes.set(code.toLowerCase(), id);
  if (firstStart !== undefined) foreignCodes.delete(here.get(firstStart)!.toLowerCase());

  const accepted = new Map<number, { columns: EmployeeColumns; links: SourceRow }>();
  const codes = new Map<string, number>();
  // Payroll ids held here (any case) by employees the import does not write: a copied one must not meet them.
  const payrollIds = new Map<string, number>();
  if (context.payrollIdFrom !== undefined) {
    const held = (await db('employees').whereNotNull('payroll_id').select('id', 'payroll_id')) as Array<{ id: number; payroll_id: string }>;
    for (const row of held) if (!ledger.has(Number(row.id))) payrollIds.set(row.payroll_id.toLowerCase(), Number(row.id));
  }
  for (const row of source.employees) {
    counts.read++;
    const id = Number(row.id);
    const code = textOrNull(row.employee_id)?.trim() ?? '';
    const what = `employee ${id}${code ? ` (${code})` : ''}`;
    const notes: string[] = [];
    const columns = employeeColumns(row, usable, timezoneOf, notes, context.now);
    if ('reject' in columns) {
      report.reject('employees', `${what}: ${columns.reject}`);
      continue;
    }
    const ours = ledger.has(id);
    if (!ours && here.has(id) && id !== firstStart) {
      report.reject('employees', `${what}: id ${id} is taken here by employee ${here.get(id)}, which did not come from IceHrm`);
      continue;
    }
    const codeKey = columns.employee_id.toLowerCase();
    const holder = codes.get(codeKey) ?? foreignCodes.get(codeKey);
    if (holder !== undefined && holder !== id) {
      report.reject(
        'employees',
        `${what}: employee_id ${quoted(columns.employee_id)} is already employee ${holder}'s (employee ids are unique in any case here)`,
      );
      continue;
    }
    codes.set(codeKey, id);
    if (context.payrollIdFrom !== undefined) columns.payroll_id = payrollIdOf(row, context.payrollIdFrom, id, payrollIds, notes);
    for (const note of notes) report.notes.push(`${what}: ${note}`);
    accepted.set(id, { columns, links: row });
  }

  const planned: PlannedEmployee[] = [];
  for (const [id, { columns, links }] of accepted) {
    const notes: string[] = [];
    Object.assign(columns, employeeLinks(id, links, accepted, notes));
    for (const note of notes) report.notes.push(`employee ${id} (${columns.employee_id}): ${note}`);
    const fingerprint = fingerprintOf(columns);
    const previous = ledger.get(id);
    const action = !previous || id === firstStart ? 'add' : previous.fingerprint === fingerprint ? 'keep' : 'update';
    if (action === 'add') counts.added++;
    else if (action === 'update') counts.updated++;
    else counts.unchanged++;
    planned.push({ id, columns, action, fingerprint });
  }
  // The first-start record gives way to IceHrm's employee of the same id or employee_id.
  const firstStartCode = firstStart === undefined ? undefined : here.get(firstStart)!.toLowerCase();
  const displacer = planned.find((employee) => employee.id === firstStart || employee.columns.employee_id.toLowerCase() === firstStartCode);
  if (displacer) {
    report.notes.push(
      `employee ${displacer.id}: this server's first-start record ADMIN (employee ${firstStart}) makes room for it; the admin user stays`,
    );
  }

  if (!context.dryRun) await writeEmployees(context, planned, new Set(here.keys()), displacer ? firstStart : undefined);
  context.progress.tableDone('employees', counts);
  return new Map([...accepted].map(([id, { columns }]) => [id, columns.timezone]));
}

/**
 * The payroll id `--payroll-id-from` copies from the IceHrm employee's `field`: its text, trimmed;
 * empty, longer than 64 characters or another employee's (any case): left empty, noted.
 */
function payrollIdOf(row: SourceRow, field: string, id: number, taken: Map<string, number>, notes: string[]): string | null {
  const value = textOrNull(row[field])?.trim() || null;
  if (value === null) return null;
  if (value.length > 64) {
    notes.push(`payroll_id from ${field} ${quoted(value)} is longer than 64 characters: left empty`);
    return null;
  }
  const holder = taken.get(value.toLowerCase());
  if (holder !== undefined && holder !== id) {
    notes.push(`payroll_id from ${field} ${quoted(value)} is already employee ${holder}'s: left empty`);
    return null;
  }
  taken.set(value.toLowerCase(), id);
  return value;
}

function employeeColumns(
  row: SourceRow,
  usable: UsableReferences,
  timezoneOf: (department: number | null) => string,
  notes: string[],
  now: Date,
): EmployeeColumns | { reject: string } {
  const body: Record<string, unknown> = {};
  for (const field of PLAIN_FIELDS) body[field] = row[field] === undefined ? null : row[field];
  body.status = row.status === 'Terminated' ? 'Terminated' : 'Active';
  const { values, errors } = parseEmployeeInput(body);
  const required = errors.filter((error) => (REQUIRED_ON_CREATE as readonly string[]).includes(error.field));
  if (required.length > 0 || values.employee_id === undefined || values.first_name === undefined || values.last_name === undefined) {
    const reasons = required.map((error) => `${error.field} ${row[error.field] === null ? 'is empty' : error.message}`);
    return { reject: reasons.join('; ') || 'employee_id, first_name and last_name are required' };
  }
  for (const error of errors) notes.push(`${error.field} ${quoted(row[error.field])} ${error.message}: left empty`);

  const columns = { ...EMPTY_LINKS, ...(toEmployeeColumns(values) as EmployeeColumns) };
  for (const field of PLAIN_FIELDS) {
    const column = field as keyof EmployeeColumns;
    if (!(field in values)) (columns as unknown as Record<string, unknown>)[column] = null;
  }
  for (const reference of REFERENCES) {
    const id = idOf(row[reference.field]);
    const known = id !== null && (usable[reference.set] as Set<number>).has(id);
    if (id !== null && !known)
      notes.push(`${reference.field} ${id} is not a ${reference.noun} here (missing in IceHrm or left out): left empty`);
    (columns as unknown as Record<string, unknown>)[reference.column] = known ? id : null;
  }
  const country = textOrNull(row.country)?.trim().toUpperCase() ?? null;
  columns.country_code = country !== null && usable.countries.has(country) ? country : null;
  if (country !== null && columns.country_code === null)
    notes.push(`country ${quoted(row.country)} is not a known ISO 3166-1 code: left empty`);
  const province = idOf(row.province);
  const provinceCountry = province === null ? undefined : usable.provinces.get(province);
  columns.province_id = provinceCountry !== undefined && provinceCountry === columns.country_code ? province : null;
  if (province !== null && columns.province_id === null) {
    notes.push(
      provinceCountry === undefined
        ? `province ${province} is not a province here: left empty`
        : `province ${province} is in ${provinceCountry}, not in the employee's country ${columns.country_code ?? '(none)'}: left empty`,
    );
  }
  columns.timezone = timezoneOf(columns.department_id);
  if (columns.birthday !== null && columns.birthday >= todayIn(columns.timezone, now)) {
    notes.push(`birthday ${columns.birthday} is not in the past: left empty`);
    columns.birthday = null;
  }
  if (columns.joined_date && columns.termination_date && columns.termination_date < columns.joined_date) {
    notes.push(`termination_date ${columns.termination_date} is before joined_date ${columns.joined_date}: left empty`);
    columns.termination_date = null;
  }
  columns.status = body.status as string;
  return columns;
}

const EMPTY_LINKS: LinkColumns = {
  supervisor_id: null,
  approver1_id: null,
  approver2_id: null,
  approver3_id: null,
  indirect_supervisors: null,
};

/** Supervisor, approvers and indirect supervisors, kept only where they name an employee imported. */
function employeeLinks(id: number, row: SourceRow, accepted: Map<number, unknown>, notes: string[]): LinkColumns {
  const links: LinkColumns = { ...EMPTY_LINKS };
  const usableLink = (field: string, target: number | null): number | null => {
    if (target === null) return null;
    if (target === id) {
      notes.push(`${field} is the employee itself: left empty`);
      return null;
    }
    if (!accepted.has(target)) {
      notes.push(`${field} ${target} is not an employee here (deleted in IceHrm, or left out): left empty`);
      return null;
    }
    return target;
  };
  for (const link of EMPLOYEE_LINKS) links[link.column] = usableLink(link.field, idOf(row[link.field]));

  const listed = textOrNull(row.indirect_supervisors);
  if (listed !== null) {
    const ids = idList(listed);
    if (ids === undefined) {
      notes.push(`indirect_supervisors ${quoted(listed)} is not a list of employee ids: left empty`);
    } else {
      const kept = [...new Set(ids.map((target) => usableLink('indirect_supervisors lists', target)).filter((target) => target !== null))];
      links.indirect_supervisors = kept.length === 0 ? null : JSON.stringify(kept.map(String));
    }
  }
  return links;
}

/** IceHrm's list of ids: a JSON array of numbers or strings ("[3,7]", '["3","7"]'), or "3,7". */
function idList(text: string): number[] | undefined {
  let items: unknown;
  try {
    items = JSON.parse(text);
  } catch {
    items = text.split(',');
  }
  if (!Array.isArray(items)) items = [items];
  const ids = (items as unknown[]).map((item) => (String(item).trim() === '' ? null : Number(String(item).trim())));
  if (ids.some((value) => value !== null && (!Number.isInteger(value) || value <= 0))) return undefined;
  return ids.filter((value): value is number => value !== null);
}

/** The time zone of an IceHrm department, or of the nearest parent that has a valid one. */
function departmentTimezones(departments: SourceRow[], fallback: string): (department: number | null) => string {
  const byId = new Map(departments.map((row) => [Number(row.id), row]));
  return (department) => {
    for (let id = department, depth = 0; id !== null && depth < 100; depth++) {
      const row = byId.get(id);
      if (!row) break;
      const zone = textOrNull(row.timezone)?.trim();
      if (zone && isTimeZone(zone)) return zone;
      id = idOf(row.parent);
    }
    return fallback;
  };
}

/**
 * The employee record the first start of this server created for its `admin` user (ADMIN, no
 * attendance), which an import into a fresh installation may replace: it is the installation's
 * own, not an employee of the company.
 */
async function findFirstStartEmployee(context: ImportContext): Promise<number | undefined> {
  const row = (await context
    .db('employees as e')
    .join('users as u', 'u.employee_id', 'e.id')
    .where('u.username', FIRST_ADMIN_USERNAME)
    .where('e.employee_id', 'ADMIN')
    .whereNotExists((query) => query.select('id').from('attendance as a').whereRaw('a.employee_id = e.id'))
    .whereNotExists((query) => query.select('kind').from('import_ledger as l').where('l.kind', 'employee').whereRaw('l.target_id = e.id'))
    .select('e.id')
    .first()) as { id: number } | undefined;
  return row === undefined ? undefined : Number(row.id);
}

/** Employees here that no import wrote, the first start's record aside: the reason to need --merge. */
export async function countForeignEmployees(context: ImportContext): Promise<number> {
  const firstStart = await findFirstStartEmployee(context);
  const row = (await context
    .db('employees as e')
    .whereNotExists((query) => query.select('kind').from('import_ledger as l').where('l.kind', 'employee').whereRaw('l.target_id = e.id'))
    .modify((query) => {
      if (firstStart !== undefined) query.whereNot('e.id', firstStart);
    })
    .count({ n: '*' })
    .first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}

/**
 * Writes the planned employees in batches, a transaction each; `removeFirst` is the first-start
 * record giving way to them. An employee whose supervisor and approvers are already here (rows
 * go in id order, and supervisors mostly come first) is written whole. The others are written
 * without those links, marked pending in the ledger, and get them in a second pass, once every
 * employee exists: a run stopped in between redoes them.
 */
async function writeEmployees(
  context: ImportContext,
  planned: PlannedEmployee[],
  present: Set<number>,
  removeFirst: number | undefined,
): Promise<void> {
  const { db, nowSql, batchSize } = context;
  const changed = planned.filter((employee) => employee.action !== 'keep');
  if (removeFirst !== undefined) present.delete(removeFirst);
  const deferred: PlannedEmployee[] = [];
  let done = 0;
  for (let start = 0; start < changed.length; start += batchSize) {
    const batch = changed.slice(start, start + batchSize);
    const rows = batch.map((employee) => {
      const ready = EMPLOYEE_LINKS.every((link) => employee.columns[link.column] === null || present.has(employee.columns[link.column]!));
      present.add(employee.id);
      if (!ready) deferred.push(employee);
      return {
        employee,
        columns: ready ? employee.columns : { ...employee.columns, ...FOREIGN_KEY_LINKS_EMPTY },
        fingerprint: ready ? employee.fingerprint : 'pending',
      };
    });
    await db.transaction(async (trx) => {
      if (start === 0 && removeFirst !== undefined) await trx('employees').where({ id: removeFirst }).delete();
      await insertEmployees(
        trx,
        rows
          .filter((row) => row.employee.action === 'add')
          .map((row) => ({ id: row.employee.id, ...row.columns, created_at: nowSql, updated_at: nowSql })),
      );
      for (const row of rows.filter((r) => r.employee.action === 'update')) {
        await trx('employees')
          .where({ id: row.employee.id })
          .update({ ...row.columns, updated_at: nowSql });
      }
      await writeLedger(
        trx,
        rows.map((row) => ledgerRow(row.employee, row.fingerprint)),
        nowSql,
      );
    });
    done += batch.length;
    context.progress.running('employees', done, changed.length + deferred.length);
  }
  for (let start = 0; start < deferred.length; start += batchSize) {
    const batch = deferred.slice(start, start + batchSize);
    await db.transaction(async (trx) => {
      for (const employee of batch) {
        const { supervisor_id, approver1_id, approver2_id, approver3_id } = employee.columns;
        await updateLinks(trx, [supervisor_id, approver1_id, approver2_id, approver3_id, employee.id]);
      }
      await writeLedger(
        trx,
        batch.map((employee) => ledgerRow(employee, employee.fingerprint)),
        nowSql,
      );
    });
    done += batch.length;
    context.progress.running('employees', done, changed.length + deferred.length);
  }
}

const FOREIGN_KEY_LINKS_EMPTY = { supervisor_id: null, approver1_id: null, approver2_id: null, approver3_id: null };

const updateLinks = preparedWrite((db) =>
  db('employees')
    .where({ id: parameter(4) })
    .update({ supervisor_id: parameter(0), approver1_id: parameter(1), approver2_id: parameter(2), approver3_id: parameter(3) }),
);

function ledgerRow(employee: PlannedEmployee, fingerprint: string): LedgerRow {
  return { kind: 'employee', sourceId: employee.id, targetId: employee.id, fingerprint };
}
