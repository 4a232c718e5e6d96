import knex, { type Knex } from 'knex';

/** The source cannot be used: unreachable, not IceHrm, too old. One line, for the operator. */
export class SourceError extends Error {}

/** The oldest IceHrm the import reads: its Migrations rows carry versions like 260004 (26.0, migration 4). */
const OLDEST_VERSION = 260000;

/**
 * The tables and columns the import reads, as IceHrm's published schema names them. A database
 * lacking any of them is not an IceHrm database (or one too old to read).
 */
const REQUIRED_COLUMNS = {
  Nationality: ['id', 'name'],
  Province: ['id', 'name', 'code', 'country'],
  EmploymentStatus: ['id', 'name', 'description'],
  JobTitles: ['id', 'code', 'name', 'description'],
  PayGrades: ['id', 'name', 'currency', 'min_salary', 'max_salary'],
  CompanyStructures: ['id', 'title', 'description', 'parent', 'timezone'],
  Employees: [
    'id', 'employee_id', 'first_name', 'middle_name', 'last_name', 'nationality', 'birthday', 'gender', 'marital_status',
    'ssn_num', 'nic_num', 'other_id', 'driving_license', 'employment_status', 'job_title', 'pay_grade', 'work_station_id',
    'address1', 'address2', 'city', 'country', 'province', 'postal_code', 'home_phone', 'mobile_phone', 'work_phone',
    'work_email', 'private_email', 'joined_date', 'confirmation_date', 'supervisor', 'indirect_supervisors', 'department',
    'termination_date', 'status', 'approver1', 'approver2', 'approver3',
  ],
  Attendance: ['id', 'employee', 'in_time', 'out_time', 'note', 'map_lat', 'map_lng', 'map_out_lat', 'map_out_lng', 'in_ip', 'out_ip'],
  Users: ['id', 'username', 'email', 'employee', 'user_level'],
  Migrations: ['file', 'version', 'status'],
} satisfies Record<string, readonly string[]>;

export type SourceRow = Record<string, unknown>;

export interface IcehrmEmployeeRow extends SourceRow {
  id: number;
}

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
  rows(table: string): Promise<SourceRow[]>;
  /** Attendance rows per employee, to plan batches. */
  attendanceCounts(since: string | undefined): Promise<Map<number, number>>;
  /** The attendance of employees with ids in [first, last], by employee, then time. */
  attendanceOf(first: number, last: number, since: string | undefined): Promise<IcehrmAttendanceRow[]>;
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
    const version = await checkSchema(db, label);
    return {
      label,
      version,
      rows: (table) => db(table).orderBy('id').select('*') as Promise<SourceRow[]>,
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
          .select(REQUIRED_COLUMNS.Attendance);
        if (since) query.where('in_time', '>=', `${since} 00:00:00`);
        return (await query) as IcehrmAttendanceRow[];
      },
      close: () => db.destroy(),
    };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

async function checkSchema(db: Knex, label: string): Promise<string> {
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
  for (const [table, names] of Object.entries(REQUIRED_COLUMNS) as Array<[string, readonly string[]]>) {
    const missing = names.filter((name) => !present.has(`${table}.${name}`));
    if (missing.length === names.length) throw new SourceError(`${label} is not an IceHrm database: it has no table ${table}`);
    if (missing.length > 0) {
      throw new SourceError(`${label} is not an IceHrm database of version 26 or newer: table ${table} lacks ${missing.join(', ')}`);
    }
  }
  const newest = (await db('Migrations').where({ status: 'Up' }).max({ version: 'version' }).first()) as { version: number | null } | undefined;
  const version = Number(newest?.version ?? 0);
  const named = `${Math.floor(version / 10000)}.${Math.floor(version / 100) % 100} (migration ${version})`;
  if (version < OLDEST_VERSION) {
    throw new SourceError(
      version === 0
        ? `${label} records no applied IceHrm migration: only IceHrm 26 or newer can be imported`
        : `${label} is IceHrm ${named}: only IceHrm 26 or newer can be imported (upgrade IceHrm first)`,
    );
  }
  return named;
}
