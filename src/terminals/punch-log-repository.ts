import type { Db } from '../db/connect';
import { sqlDateTimeToIso } from '../db/sql-time';
import { asListRead } from '../db/statement-time';
import { utcIso } from '../attendance/output';

// The raw punch log: every entry as received, with what became of it.

/** device_id of the entries an admin sent (manual back-fill). */
export const MANUAL_DEVICE_ID = 0;

export interface PunchLogColumns {
  device_id: number;
  log_id: string;
  uploaded_by_user_id: number | null;
  attendance_device_id: string | null;
  employee_id: number | null;
  time: string;
  time_utc: string | null;
  direction: string;
  result: 'created' | 'duplicate' | 'rejected';
  action: 'opened' | 'closed' | null;
  attendance_id: number | null;
  code: string | null;
  message: string | null;
  received_at: string;
}

/** Rows per INSERT: 14 values each stay far below either database's limit on bound values. */
const INSERT_BATCH = 500;

export async function insertPunchLogs(db: Db, rows: PunchLogColumns[]): Promise<void> {
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    await db('attendance_punch_logs').insert(rows.slice(start, start + INSERT_BATCH));
  }
}

/** Which of these log ids the device has already sent. */
export async function findReceivedLogIds(db: Db, deviceId: number, logIds: string[]): Promise<Set<string>> {
  const received = new Set<string>();
  for (let start = 0; start < logIds.length; start += INSERT_BATCH) {
    const rows = (await db('attendance_punch_logs')
      .where('device_id', deviceId)
      .whereIn('log_id', logIds.slice(start, start + INSERT_BATCH))
      .select('log_id')) as Array<{ log_id: string }>;
    for (const row of rows) received.add(String(row.log_id));
  }
  return received;
}

/**
 * Of each of these employees, the time (UTC SQL text) of the latest punch the log holds: a batch
 * whose entries come before it must derive the employee's records again. One index step per
 * employee (the last entry of (employee_id, time_utc)), however long the log.
 */
export async function findLatestPunchTimes(db: Db, employeeIds: number[]): Promise<Map<number, string>> {
  const latest = new Map<number, string>();
  for (let start = 0; start < employeeIds.length; start += INSERT_BATCH) {
    const rows = (await db('employees as e')
      .whereIn('e.id', employeeIds.slice(start, start + INSERT_BATCH))
      .select(
        'e.id',
        db('attendance_punch_logs as p')
          .whereRaw('p.employee_id = e.id')
          .whereNotNull('p.time_utc')
          .orderBy('p.time_utc', 'desc')
          .limit(1)
          .select('p.time_utc')
          .as('latest'),
      )) as Array<{
      id: number;
      latest: string | null;
    }>;
    for (const row of rows) if (row.latest != null) latest.set(Number(row.id), String(row.latest));
  }
  return latest;
}

/** A stored entry's outcome, as a derivation reads and rewrites it. */
export interface StoredPunch {
  id: number;
  log_id: string;
  time_utc: string;
  direction: 'in' | 'out' | 'auto';
  result: 'created' | 'duplicate' | 'rejected';
  action: 'opened' | 'closed' | null;
  attendance_id: number | null;
  code: string | null;
}

/** Rows per read of findPunchesOfEmployeesFrom: one (employee, from) condition each. */
const WINDOWS_PER_READ = 200;

/**
 * Of each employee, the entries whose punch time is `from` (UTC SQL text) or later, in time
 * order, then as received: one index range of (employee_id, time_utc) each, a few hundred
 * employees per statement.
 */
export async function findPunchesOfEmployeesFrom(
  db: Db,
  windows: Array<{ employeeId: number; from: string }>,
): Promise<Map<number, StoredPunch[]>> {
  const punches = new Map<number, StoredPunch[]>();
  for (let start = 0; start < windows.length; start += WINDOWS_PER_READ) {
    const rows = (await db('attendance_punch_logs')
      .where((query) => {
        for (const { employeeId, from } of windows.slice(start, start + WINDOWS_PER_READ)) {
          query.orWhere((window) => window.where('employee_id', employeeId).where('time_utc', '>=', from));
        }
      })
      .orderBy([
        { column: 'time_utc', order: 'asc' },
        { column: 'id', order: 'asc' },
      ])
      .select('id', 'employee_id', 'log_id', 'time_utc', 'direction', 'result', 'action', 'attendance_id', 'code')) as Array<
      Record<string, unknown>
    >;
    for (const row of rows) {
      const employeeId = Number(row.employee_id);
      const ofEmployee = punches.get(employeeId) ?? [];
      punches.set(employeeId, ofEmployee);
      ofEmployee.push({
        id: Number(row.id),
        log_id: String(row.log_id),
        time_utc: String(row.time_utc),
        direction: row.direction as StoredPunch['direction'],
        result: row.result as StoredPunch['result'],
        action: (row.action as StoredPunch['action']) ?? null,
        attendance_id: row.attendance_id == null ? null : Number(row.attendance_id),
        code: (row.code as string | null) ?? null,
      });
    }
  }
  return punches;
}

/**
 * An entry's new outcome after a derivation. The first one (what the device was answered) is
 * kept in first_* the first time it changes; changed_at is when it last did.
 */
export async function updatePunchOutcome(
  db: Db,
  punch: StoredPunch,
  outcome: Pick<PunchLogColumns, 'result' | 'action' | 'attendance_id' | 'code' | 'message'>,
  changedAt: string,
): Promise<void> {
  await db('attendance_punch_logs')
    .where('id', punch.id)
    .update({
      ...outcome,
      first_action: db.raw('CASE WHEN first_result IS NULL THEN ? ELSE first_action END', [punch.action]),
      first_code: db.raw('CASE WHEN first_result IS NULL THEN ? ELSE first_code END', [punch.code]),
      first_result: db.raw('COALESCE(first_result, ?)', [punch.result]),
      changed_at: changedAt,
    });
}

interface PunchLogCriteria {
  /** A device's id, or MANUAL_DEVICE_ID. */
  deviceId?: number;
  employeeId?: number;
  result?: 'created' | 'duplicate' | 'rejected';
  /** Instants (UTC SQL text) the punch's time lies in, both inclusive. */
  from?: string;
  to?: string;
  /** Keyset: only entries received before the one with this id. */
  beforeId?: number;
}

/** A page of the log, newest received first, the total matching (without `beforeId`), and whether more follow. */
export async function listPunchLogs(
  db: Db,
  criteria: PunchLogCriteria,
  page: { limit: number; offset: number },
): Promise<{ rows: Array<Record<string, unknown>>; total: number; more: boolean }> {
  const filtered = () => {
    const query = asListRead(db('attendance_punch_logs as p'));
    if (criteria.deviceId !== undefined) query.where('p.device_id', criteria.deviceId);
    if (criteria.employeeId !== undefined) query.where('p.employee_id', criteria.employeeId);
    if (criteria.result !== undefined) query.where('p.result', criteria.result);
    if (criteria.from !== undefined) query.where('p.time_utc', '>=', criteria.from);
    if (criteria.to !== undefined) query.where('p.time_utc', '<=', criteria.to);
    return query;
  };
  const pageQuery = filtered()
    .leftJoin('attendance_devices as d', 'd.id', 'p.device_id')
    .select('p.*', 'd.name as device_name')
    .orderBy('p.id', 'desc')
    .limit(page.limit + 1)
    .offset(page.offset);
  if (criteria.beforeId !== undefined) pageQuery.where('p.id', '<', criteria.beforeId);
  const rows = (await pageQuery) as Array<Record<string, unknown>>;
  const counted = (await filtered().count({ total: '*' }).first()) as { total: number | string } | undefined;
  return { rows: rows.slice(0, page.limit), total: Number(counted?.total ?? 0), more: rows.length > page.limit };
}

/** An entry of the log as answered. */
export function toPunchLogResponse(row: Record<string, unknown>): Record<string, unknown> {
  const deviceId = Number(row.device_id);
  const optionalId = (value: unknown) => (value == null ? null : String(value));
  return {
    id: String(row.id),
    device:
      deviceId === MANUAL_DEVICE_ID
        ? null
        : { type: 'AttendanceDevice', id: String(deviceId), display: (row.device_name as string | null) ?? null },
    uploaded_by: optionalId(row.uploaded_by_user_id),
    log_id: String(row.log_id),
    attendance_device_id: (row.attendance_device_id as string | null) ?? null,
    employee: optionalId(row.employee_id),
    time: String(row.time),
    time_utc: row.time_utc == null ? null : utcIso(String(row.time_utc)),
    direction: String(row.direction),
    result: String(row.result),
    action: (row.action as string | null) ?? null,
    attendance: optionalId(row.attendance_id),
    code: (row.code as string | null) ?? null,
    message: (row.message as string | null) ?? null,
    received_at: sqlDateTimeToIso(String(row.received_at)),
    // What the device was answered, when a later derivation changed the result (else the same).
    first_result: String(row.first_result ?? row.result),
    first_action: ((row.first_result == null ? row.action : row.first_action) as string | null) ?? null,
    first_code: ((row.first_result == null ? row.code : row.first_code) as string | null) ?? null,
    changed_at: row.changed_at == null ? null : sqlDateTimeToIso(String(row.changed_at)),
  };
}
