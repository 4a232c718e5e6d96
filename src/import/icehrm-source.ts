import knex, { type Knex } from 'knex';

/** The source cannot be used: unreachable, not IceHrm. One line, for the operator. */
export class SourceError extends Error {}

/** The tables and columns the import reads, as IceHrm's published schema names them. */
const READ_COLUMNS = {
  Nationality: ['id', 'name'],
  Province: ['id', 'name', 'code', 'country'],
  EmploymentStatus: ['id', 'name', 'description'],
  JobTitles: ['id', 'code', 'name', 'description'],
  PayGrades: ['id', 'name', 'currency', 'min_salary', 'max_salary'],
  CompanyStructures: ['id', 'title', 'description', 'parent', 'timezone'],
  Employees: [
    'id',
    'employee_id',
    'first_name',
    'middle_name',
    'last_name',
    'nationality',
    'birthday',
    'gender',
    'marital_status',
    'ssn_num',
    'nic_num',
    'other_id',
    'driving_license',
    'employment_status',
    'job_title',
    'pay_grade',
    'work_station_id',
    'address1',
    'address2',
    'city',
    'country',
    'province',
    'postal_code',
    'home_phone',
    'mobile_phone',
    'work_phone',
    'work_email',
    'private_email',
    'joined_date',
    'confirmation_date',
    'supervisor',
    'indirect_supervisors',
    'department',
    'termination_date',
    'status',
    'approver1',
    'approver2',
    'approver3',
  ],
  Attendance: ['id', 'employee', 'in_time', 'out_time', 'note', 'map_lat', 'map_lng', 'map_out_lat', 'map_out_lng', 'in_ip', 'out_ip'],
  Users: ['id', 'username', 'email', 'employee', 'user_level'],
} satisfies Record<string, readonly string[]>;

/**
 * The columns without which a row means nothing: a database lacking one is not IceHrm's. The
 * others may be missing (IceHrm's base schema, core/scripts/icehrmdb.sql, and releases before 26
 * have no attendance positions and addresses: run-time migrations add them) and read as empty.
 */
const ESSENTIAL_COLUMNS: Record<keyof typeof READ_COLUMNS, readonly string[]> = {
  Nationality: ['id'],
  Province: ['id', 'name', 'country'],
  EmploymentStatus: ['id', 'name'],
  JobTitles: ['id', 'name'],
  PayGrades: ['id', 'name'],
  CompanyStructures: ['id', 'title', 'parent'],
  Employees: ['id', 'employee_id', 'first_name', 'last_name'],
  Attendance: ['id', 'employee', 'in_time', 'out_time'],
  Users: ['id', 'username', 'employee', 'user_level'],
};

type SourceTable = keyof typeof READ_COLUMNS;

/**
 * Tables the import carries when IceHrm has them (its leave module): a database without one is
 * still IceHrm's, and the report says what was not there.
 */
export const OPTIONAL_TABLES = ['Country', 'LeaveTypes', 'EmployeeLeaves', 'EmployeeLeaveDays', 'HoliDays', 'WorkDays'] as const;
export type OptionalTable = (typeof OPTIONAL_TABLES)[number];

export type SourceRow = Record<string, unknown>;

export interface IcehrmAttendanceRow {
  id: number;
  employee: number;
  in_time: string | null;
  out_time: string | null;
  note: string | null;
  map_lat: string | null;
  map_lng: string | null;
  map_out_lat: string | null;
  map_out_lng: string | null;
  in_ip: string | null;
  out_ip: string | null;
}

/** A read-only view of an IceHrm database. */
export interface IcehrmSource {
  /** Where it is, without the password: for messages. */
  label: string;
  /** IceHrm's version as its newest applied migration names it, e.g. "26.0 (migration 260004)". */
  version: string;
  /** The columns the import reads that the source lacks, by table: read as empty (null). */
  missingColumns: ReadonlyMap<string, readonly string[]>;
  rows(table: SourceTable): Promise<SourceRow[]>;
  /** The rows of a table IceHrm may lack (OPTIONAL_TABLES), by id; undefined when it has no such table. */
  optionalRows(table: OptionalTable): Promise<SourceRow[] | undefined>;
  /** Attendance rows per employee, to plan batches. */
  attendanceCounts(since: string | undefined): Promise<Map<number, number>>;
  /** The attendance of employees with ids in [first, last], by employee, then time. */
  attendanceOf(first: number, last: number, since: string | undefined): Promise<IcehrmAttendanceRow[]>;
  /** The values of these Settings rows (a name IceHrm lacks is missing); undefined without a Settings table. */
  settings(names: readonly string[]): Promise<Map<string, string | null> | undefined>;
  close(): Promise<void>;
}

/** Connects to the IceHrm database at `url` (mysql://user:pass@host:3306/db) and checks its schema and version. */
export async function openIcehrmSource(url: string): Promise<IcehrmSource> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SourceError('--from must be a URL like mysql://user:password@host:3306/icehrm');
  }
  const database = decodeURIComponent(parsed.pathname.slice(1));
  if (!['mysql:', 'mariadb:'].includes(parsed.protocol) || !parsed.hostname || !database) {
    throw new SourceError('--from must be a URL like mysql://user:password@host:3306/icehrm');
  }
  const port = parsed.port ? Number(parsed.port) : 3306;
  const label = `${parsed.hostname}:${port}/${database}`;
  const db = knex({
    client: 'mysql2',
    connection: {
      host: parsed.hostname,
      port,
      user: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password),
      database,
      charset: 'utf8mb4',
      // IceHrm's DATETIMEs are wall-clock readings: read them as the text stored, zero dates included.
      dateStrings: true,
      decimalNumbers: false,
      connectTimeout: 5000,
    },
    pool: { min: 0, max: 1 },
    acquireConnectionTimeout: 10_000,
    // Knex prints a failed connection attempt itself; the command says it once, in one line.
    log: { warn: () => undefined, error: () => undefined, deprecate: () => undefined, debug: () => undefined },
  });
  try {
    const { version, missingColumns, hasSettings, present } = await checkSchema(db, label);
    // A missing column is read as NULL, so every row has every key the import reads.
    const columnsOf = (table: SourceTable) => {
      const missing = missingColumns.get(table) ?? [];
      return READ_COLUMNS[table].map((column) => (missing.includes(column) ? db.raw('NULL as ??', [column]) : column));
    };
    return {
      label,
      version,
      missingColumns,
      rows: async (table) => {
        const missing = missingColumns.get(table) ?? [];
        const rows = (await db(table).orderBy('id').select('*')) as SourceRow[];
        return missing.length === 0
          ? rows
          : rows.map((row) => ({ ...row, ...Object.fromEntries(missing.map((column) => [column, null])) }));
      },
      optionalRows: async (table) => {
        if (!present.has(`${table}.id`)) return undefined;
        return (await db(table).orderBy('id').select('*')) as SourceRow[];
      },
      attendanceCounts: async (since) => {
        const query = db('Attendance').select('employee').count({ n: '*' }).groupBy('employee');
        if (since) query.where('in_time', '>=', `${since} 00:00:00`);
        const rows = (await query) as Array<{ employee: number; n: number | string }>;
        return new Map(rows.map((row) => [Number(row.employee), Number(row.n)]));
      },
      attendanceOf: async (first, last, since) => {
        const query = db('Attendance')
          .whereBetween('employee', [first, last])
          .orderBy([{ column: 'employee' }, { column: 'in_time' }, { column: 'id' }])
          .select(columnsOf('Attendance'));
        if (since) query.where('in_time', '>=', `${since} 00:00:00`);
        return (await query) as IcehrmAttendanceRow[];
      },
      settings: async (names) => {
        if (!hasSettings) return undefined;
        const rows = (await db('Settings')
          .whereIn('name', [...names])
          .select('name', 'value')) as Array<{ name: string; value: string | null }>;
        return new Map(rows.map((row) => [String(row.name), row.value === null ? null : String(row.value)]));
      },
      close: () => db.destroy(),
    };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

async function checkSchema(
  db: Knex,
  label: string,
): Promise<{ version: string; missingColumns: Map<string, string[]>; hasSettings: boolean; present: Set<string> }> {
  let columns: Array<{ table_name: string; column_name: string }>;
  try {
    columns = (await db('information_schema.columns')
      .whereRaw('table_schema = database()')
      .select({ table_name: 'table_name', column_name: 'column_name' })) as typeof columns;
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new SourceError(`Cannot read the IceHrm database at ${label}${code ? ` (${code})` : ''}`);
  }
  const present = new Set(columns.map((row) => `${row.table_name}.${row.column_name}`));
  const missingColumns = new Map<string, string[]>();
  for (const [table, names] of Object.entries(READ_COLUMNS) as Array<[SourceTable, readonly string[]]>) {
    const missing = names.filter((name) => !present.has(`${table}.${name}`));
    if (missing.length === names.length) throw new SourceError(`${label} is not an IceHrm database: it has no table ${table}`);
    const essential = missing.filter((name) => ESSENTIAL_COLUMNS[table].includes(name));
    if (essential.length > 0) throw new SourceError(`${label} is not an IceHrm database: table ${table} lacks ${essential.join(', ')}`);
    if (missing.length > 0) missingColumns.set(table, missing);
  }
  // Optional: the import carries IceHrm's overtime settings when it has them.
  const hasSettings = present.has('Settings.name') && present.has('Settings.value');
  return { version: await versionOf(db, present), missingColumns, hasSettings, present };
}

/**
 * IceHrm's version as its newest applied migration names it. Informative only: what the import
 * can read is decided by the columns there are, and IceHrm's base schema records no migration.
 */
async function versionOf(db: Knex, present: ReadonlySet<string>): Promise<string> {
  if (!['file', 'version', 'status'].every((column) => present.has(`Migrations.${column}`))) return '(no Migrations table)';
  const newest = (await db('Migrations').where({ status: 'Up' }).max({ version: 'version' }).first()) as
    { version: number | null } | undefined;
  const version = Number(newest?.version ?? 0);
  if (version === 0) return '(no applied migration recorded)';
  return `${Math.floor(version / 10000)}.${Math.floor(version / 100) % 100} (migration ${version})`;
}
