import type { Knex } from 'knex';
import { certifiesWrites, type Db, dialectOf } from '../db/connect';
import { batchedLookup } from '../db/coalesced-reads';
import { parameter, preparedQuery, preparedWrite } from '../db/driver-statements';

/** An `attendance` row: instants as UTC text 'YYYY-MM-DD HH:MM:SS', local times in the record's zone. */
export interface AttendanceRow {
  id: number;
  employee_id: number;
  in_time_utc: string;
  in_time_local: string;
  out_time_utc: string | null;
  out_time_local: string | null;
  timezone: string;
  note: string | null;
  out_note: string | null;
  latitude: number | null;
  longitude: number | null;
  out_latitude: number | null;
  out_longitude: number | null;
  in_ip: string | null;
  out_ip: string | null;
  /**
   * Left without an out_time when its pay period was locked (docs/pay-periods.md, "Period end,
   * step by step"): it counts no hours and is not the employee's open record (open_employee_id).
   */
  missed_punch_out: boolean;
  created_at: string;
  updated_at: string;
}

export type AttendanceColumns = Omit<AttendanceRow, 'id'>;

/** A record with the `display` of its employee reference ("First Last"). */
export interface AttendanceRecord extends AttendanceRow {
  employeeDisplay: string;
}

/** What attendance needs to know of an employee: access relation, zone, display name, last day. */
export interface AttendanceEmployee {
  id: number;
  supervisor_id: number | null;
  timezone: string;
  display: string;
  /** YYYY-MM-DD: no punch may fall after this day on the employee's wall clock (assertNotTerminated). */
  termination_date: string | null;
}

const EMPLOYEE_COLUMNS = ['id', 'supervisor_id', 'timezone', 'first_name', 'last_name', 'termination_date'];

/** An employee reference's `display` ("First Last") from a row holding first_name and last_name. */
export function employeeDisplayOf(row: Record<string, unknown>): string {
  return `${String(row.first_name)} ${String(row.last_name)}`;
}

function toAttendanceEmployee(row: Record<string, unknown>): AttendanceEmployee {
  return {
    id: Number(row.id),
    supervisor_id: row.supervisor_id == null ? null : Number(row.supervisor_id),
    timezone: String(row.timezone),
    display: employeeDisplayOf(row),
    termination_date: row.termination_date == null ? null : String(row.termination_date).slice(0, 10),
  };
}

const lookUpAttendanceEmployee = batchedLookup(
  (db, ids) => db('employees').whereIn('id', ids).select(EMPLOYEE_COLUMNS),
  (row) => Number(row.id),
);

/** The employee of an attendance path (a read by id: prepared, and batched under load). */
export async function findAttendanceEmployee(db: Db, id: number): Promise<AttendanceEmployee | undefined> {
  const row = await lookUpAttendanceEmployee(db, id);
  return row && toAttendanceEmployee(row);
}

/**
 * Reads the employee and locks their row until the transaction ends (MySQL: read `FOR UPDATE`,
 * on a certifying cluster written first, claimAttendanceEmployee; SQLite lets one writer at a
 * time anyway), so that the attendance writes of one employee run one after
 * another and each sees what the previous one committed. Call it as the FIRST statement of the
 * transaction: InnoDB (REPEATABLE READ) fixes a transaction's snapshot at its first plain read,
 * and a snapshot taken before the lock would miss the record the previous holder just wrote.
 */
export async function lockAttendanceEmployee(trx: Db, id: number): Promise<AttendanceEmployee | undefined> {
  await claimAttendanceEmployee(trx, id);
  const row = (await trx('employees').where({ id }).forUpdate().first(EMPLOYEE_COLUMNS)) as Record<string, unknown> | undefined;
  return row && toAttendanceEmployee(row);
}

/**
 * On a cluster that certifies writes (Galera, Group Replication: certifiesWrites), writes the
 * employee's row (attendance_version + 1, migration 0015) as the first statement of an
 * attendance write. Locks there are node-local; the write puts the row in the transaction's
 * write set, so certification lets only one of two concurrent attendance writes of the employee
 * commit, whichever nodes they ran on (the other is retried: src/db/retry-conflicts.ts). A
 * locking statement takes no snapshot: the reads after it see what the previous writer
 * committed. On one MySQL/MariaDB server the `FOR UPDATE` of the statement that follows orders
 * the writes by itself, and SQLite runs one writer at a time: neither needs the extra statement.
 */
async function claimAttendanceEmployee(trx: Db, id: number): Promise<void> {
  if (await certifiesWrites(trx)) await incrementAttendanceVersion(trx, [id]);
}

const incrementAttendanceVersion = preparedWrite((db) =>
  db('employees')
    .where('id', parameter(0))
    .update({ attendance_version: db.raw('attendance_version + 1') }),
);

/** Of an employee's records, the one that starts last: the only one a new open record can overlap. */
export type LatestRecord = Pick<AttendanceRow, 'id' | 'in_time_utc' | 'out_time_utc' | 'missed_punch_out'>;

/**
 * lockAttendanceEmployee, and the employee's record that starts last (a punch-in's first
 * statements). On MySQL (after claimAttendanceEmployee) both come from one UNION: first the
 * employee's row, locked (a primary-key lookup, read while the statement is optimised), then the
 * record, a plain read. The record is
 * the transaction's first consistent read, so its snapshot is taken after the lock is granted and
 * holds whatever the previous holder of the lock committed. It is not locked itself: a locking
 * read of the index range would take gap locks shared with the neighbouring employee's records,
 * and concurrent punch-ins of different employees would deadlock on them.
 */
export async function lockAttendanceEmployeeWithLatestRecord(
  trx: Db,
  id: number,
): Promise<{ employee: AttendanceEmployee; latest: LatestRecord | undefined } | undefined> {
  if (dialectOf(trx) === 'sqlite') {
    // One writer at a time and no network: two statements.
    const [employee] = await selectAttendanceEmployee(trx, [id]);
    const [latest] = await selectLatestRecord(trx, [id]);
    return employee && { employee: toAttendanceEmployee(employee), latest: latest && toLatestRecord(latest) };
  }
  await claimAttendanceEmployee(trx, id);
  const [employeeRow, latestRow] = await lockEmployeeAndSelectLatestRecord(trx, [id, id]);
  // Without the employee, the first row (if any) is the record's: there is no employee to punch.
  if (!employeeRow || employeeRow.id == null) return undefined;
  const latest = latestRow && {
    id: latestRow.latest_id,
    in_time_utc: latestRow.latest_in_time_utc,
    out_time_utc: latestRow.latest_out_time_utc,
    missed_punch_out: latestRow.latest_missed_punch_out,
  };
  return { employee: toAttendanceEmployee(employeeRow), latest: latest && toLatestRecord(latest) };
}

// The statements of a punch, prepared: punches are the busiest write.
const latestRecordOf = (db: Db, employeeId: string) =>
  db('attendance')
    .where('employee_id', employeeId)
    .orderBy([
      { column: 'in_time_utc', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    // In the SQL text: mysql2 binds numbers as DOUBLE, which MySQL 8 refuses for LIMIT.
    .limit(1, { skipBinding: true });
const selectAttendanceEmployee = preparedQuery((db) => db('employees').where('id', parameter(0)).select(EMPLOYEE_COLUMNS));
const LATEST_COLUMNS = ['id', 'in_time_utc', 'out_time_utc', 'missed_punch_out'];
const selectLatestRecord = preparedQuery((db) => latestRecordOf(db, parameter(0)).select(LATEST_COLUMNS));
const lockEmployeeAndSelectLatestRecord = preparedQuery((db) => {
  // A UNION's column names are its first part's.
  const none = db.raw('null');
  const employeePart = db('employees')
    .where('id', parameter(0))
    .forUpdate()
    .select([
      ...EMPLOYEE_COLUMNS,
      db.raw('null as latest_id'),
      db.raw('null as latest_in_time_utc'),
      db.raw('null as latest_out_time_utc'),
      db.raw('null as latest_missed_punch_out'),
    ]);
  const latestPart = latestRecordOf(db, parameter(1)).select([...EMPLOYEE_COLUMNS.map(() => none), ...LATEST_COLUMNS]);
  return db.queryBuilder().unionAll([employeePart, latestPart], true);
});

function toLatestRecord(row: Record<string, unknown>): LatestRecord {
  return {
    id: Number(row.id),
    in_time_utc: String(row.in_time_utc),
    out_time_utc: (row.out_time_utc as string | null) ?? null,
    missed_punch_out: Boolean(Number(row.missed_punch_out)),
  };
}

/**
 * lockAttendanceEmployee, and the employee's open record in the same statement (a punch-out's
 * first): both rows are locked, so both are read as last committed.
 */
export async function lockAttendanceEmployeeWithOpenRecord(
  trx: Db,
  id: number,
): Promise<{ employee: AttendanceEmployee; open: AttendanceRow | undefined } | undefined> {
  await claimAttendanceEmployee(trx, id);
  const [row] = await lockEmployeeAndSelectOpenRecord(trx, [id]);
  if (!row) return undefined;
  const employee = toAttendanceEmployee(Object.fromEntries(EMPLOYEE_COLUMNS.map((column) => [column, row[`employee__${column}`]])));
  return { employee, open: row.id == null ? undefined : toAttendanceRow(row) };
}

const lockEmployeeAndSelectOpenRecord = preparedQuery((db) =>
  db('employees as e')
    .leftJoin('attendance as a', 'a.open_employee_id', 'e.id')
    .where('e.id', parameter(0))
    .forUpdate()
    .select([...EMPLOYEE_COLUMNS.map((column) => `e.${column} as employee__${column}`), ...ATTENDANCE_COLUMNS]),
);

/** MySQL answers DECIMAL columns as strings; ids may come back as strings too. */
export function toAttendanceRow(row: Record<string, unknown>): AttendanceRow {
  const decimal = (value: unknown) => (value == null ? null : Number(value));
  return {
    id: Number(row.id),
    employee_id: Number(row.employee_id),
    in_time_utc: String(row.in_time_utc),
    in_time_local: String(row.in_time_local),
    out_time_utc: (row.out_time_utc as string | null) ?? null,
    out_time_local: (row.out_time_local as string | null) ?? null,
    timezone: String(row.timezone),
    note: (row.note as string | null) ?? null,
    out_note: (row.out_note as string | null) ?? null,
    latitude: decimal(row.latitude),
    longitude: decimal(row.longitude),
    out_latitude: decimal(row.out_latitude),
    out_longitude: decimal(row.out_longitude),
    in_ip: (row.in_ip as string | null) ?? null,
    out_ip: (row.out_ip as string | null) ?? null,
    // Stored as 0/1 by both databases (a UNION may answer it as text).
    missed_punch_out: Boolean(Number(row.missed_punch_out)),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
  };
}

export const ATTENDANCE_COLUMNS = [
  'a.id',
  'a.employee_id',
  'a.in_time_utc',
  'a.in_time_local',
  'a.out_time_utc',
  'a.out_time_local',
  'a.timezone',
  'a.note',
  'a.out_note',
  'a.latitude',
  'a.longitude',
  'a.out_latitude',
  'a.out_longitude',
  'a.in_ip',
  'a.out_ip',
  'a.missed_punch_out',
  'a.created_at',
  'a.updated_at',
];

/** A record with its employee's access relation and name, or undefined. */
export async function findAttendance(db: Db, id: number): Promise<{ record: AttendanceRecord; employee: AttendanceEmployee } | undefined> {
  const row = (await db('attendance as a')
    .join('employees as e', 'e.id', 'a.employee_id')
    .where('a.id', id)
    .first([...ATTENDANCE_COLUMNS, 'e.supervisor_id', 'e.timezone as employee_timezone', 'e.first_name', 'e.last_name'])) as
    Record<string, unknown> | undefined;
  if (!row) return undefined;
  const employee = toAttendanceEmployee({ ...row, id: row.employee_id, timezone: row.employee_timezone });
  return { record: { ...toAttendanceRow(row), employeeDisplay: employee.display }, employee };
}

/** The employee a record belongs to, or undefined when there is no such record. */
export async function findAttendanceEmployeeId(db: Db, id: number): Promise<number | undefined> {
  const row = (await db('attendance').where({ id }).first('employee_id')) as { employee_id: number } | undefined;
  return row && Number(row.employee_id);
}

/** A record of one employee (undefined when it is missing or belongs to someone else). */
export async function findAttendanceOf(db: Db, employeeId: number, id: number): Promise<AttendanceRow | undefined> {
  const row = (await db('attendance as a').where({ 'a.id': id, 'a.employee_id': employeeId }).first(ATTENDANCE_COLUMNS)) as
    Record<string, unknown> | undefined;
  return row && toAttendanceRow(row);
}

/** The employee's open record (found through the unique open_employee_id index). */
export async function findOpenAttendance(db: Db, employeeId: number): Promise<AttendanceRow | undefined> {
  const row = (await db('attendance as a').where('a.open_employee_id', employeeId).first(ATTENDANCE_COLUMNS)) as
    Record<string, unknown> | undefined;
  return row && toAttendanceRow(row);
}

/**
 * `open_employee_id` is the employee's id while the record is open: its unique index allows one.
 * A missed punch-out has no out_time either, but it is nobody's open record.
 */
export function openEmployeeId(columns: Pick<AttendanceColumns, 'employee_id' | 'out_time_utc' | 'missed_punch_out'>): number | null {
  return columns.out_time_utc === null && !columns.missed_punch_out ? columns.employee_id : null;
}

/** The columns an attendance write sets, in the order of the prepared statements' arguments. */
const WRITTEN_COLUMNS: ReadonlyArray<keyof AttendanceColumns> = [
  'employee_id',
  'in_time_utc',
  'in_time_local',
  'out_time_utc',
  'out_time_local',
  'timezone',
  'note',
  'out_note',
  'latitude',
  'longitude',
  'out_latitude',
  'out_longitude',
  'in_ip',
  'out_ip',
  'missed_punch_out',
  'created_at',
  'updated_at',
];
// Booleans bound as 1/0: what both drivers store in a boolean column, prepared or not.
const writtenValues = (columns: AttendanceColumns) => [
  ...WRITTEN_COLUMNS.map((column) => (typeof columns[column] === 'boolean' ? Number(columns[column]) : columns[column])),
  openEmployeeId(columns),
];
const assignments = () => Object.fromEntries([...WRITTEN_COLUMNS, 'open_employee_id'].map((column, index) => [column, parameter(index)]));
const insertAttendanceRow = preparedWrite((db) => db('attendance').insert(assignments()));
const updateAttendanceRow = preparedWrite((db) =>
  db('attendance')
    .where('id', parameter(WRITTEN_COLUMNS.length + 1))
    .update({ ...assignments(), derived_from_log: parameter(WRITTEN_COLUMNS.length + 2) }),
);

/** A manual record (derived_from_log false: a terminal's punch log never rewrites it). */
export async function insertAttendance(db: Db, columns: AttendanceColumns): Promise<number> {
  return (await insertAttendanceRow(db, writtenValues(columns))).insertId;
}

/**
 * Writes a record. Every write but a terminal batch's makes it manual (`derivedFromLog` false),
 * so that a correction or an API punch-out is never undone by a later upload.
 */
export async function updateAttendance(db: Db, id: number, columns: AttendanceColumns, derivedFromLog = false): Promise<void> {
  await updateAttendanceRow(db, [...writtenValues(columns), id, derivedFromLog ? 1 : 0]);
}

export async function deleteAttendance(db: Db, id: number): Promise<void> {
  await db('attendance').where({ id }).delete();
}

/**
 * Of the employee's records other than `excludeId`, the one that starts last before `before`
 * (before any time when undefined). Records of one employee never overlap, so they are ordered
 * by start as by end: a new interval [in, out) overlaps some record exactly when it overlaps this
 * one. One backward step on the (employee_id, in_time_utc) index, however long the history.
 */
export async function findLatestStartBefore(
  db: Db,
  options: { employeeId: number; excludeId: number; before: string | undefined },
): Promise<LatestRecord | undefined> {
  const query = db('attendance')
    .where('employee_id', options.employeeId)
    .whereNot('id', options.excludeId)
    .orderBy([
      { column: 'in_time_utc', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first(LATEST_COLUMNS);
  if (options.before !== undefined) query.where('in_time_utc', '<', options.before);
  const row = (await query) as Record<string, unknown> | undefined;
  return row && toLatestRecord(row);
}

// Batches (src/terminals, src/import): the same employee locks as the single punches, many at a time.

/** An employee a punch-log entry may name: by id, or by the badge number terminals know. */
export interface BadgedAttendanceEmployee extends AttendanceEmployee {
  attendance_device_id: string | null;
}

/**
 * lockAttendanceEmployee for a batch: the employees named by badge number or id, locked until
 * the transaction ends, so that a single punch of any of them waits for the batch (and the batch
 * for it). Call it first in the transaction (after the device's lock), for the same reason.
 */
export async function lockAttendanceEmployees(trx: Db, named: { badges: string[]; ids: number[] }): Promise<BadgedAttendanceEmployee[]> {
  const columns = [...EMPLOYEE_COLUMNS, 'attendance_device_id'];
  const mysql = dialectOf(trx) === 'mysql';
  const parts: Knex.QueryBuilder[] = [];
  // Each part is an index lookup (the unique badge index, the primary key): a locking read of
  // `badge IN (...) OR id IN (...)` could scan, and lock, the whole table.
  if (await certifiesWrites(trx)) {
    // As claimAttendanceEmployee: written first, so that on a Galera cluster a batch and any other
    // attendance write of one of these employees cannot both commit.
    const bump = { attendance_version: trx.raw('attendance_version + 1') };
    if (named.badges.length > 0) await trx('employees').whereIn('attendance_device_id', named.badges).update(bump);
    if (named.ids.length > 0) await trx('employees').whereIn('id', named.ids).update(bump);
  }
  if (named.badges.length > 0) parts.push(trx('employees').whereIn('attendance_device_id', named.badges).select(columns));
  if (named.ids.length > 0) parts.push(trx('employees').whereIn('id', named.ids).select(columns));
  if (mysql) for (const part of parts) part.forUpdate();
  const rows = (parts.length === 0 ? [] : parts.length === 1 ? await parts[0] : await trx.queryBuilder().unionAll(parts, mysql)) as Array<
    Record<string, unknown>
  >;
  const byId = new Map<number, BadgedAttendanceEmployee>();
  for (const row of rows) {
    byId.set(Number(row.id), { ...toAttendanceEmployee(row), attendance_device_id: (row.attendance_device_id as string | null) ?? null });
  }
  return [...byId.values()];
}
