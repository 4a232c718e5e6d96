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

export interface PunchLogCriteria {
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
    device: deviceId === MANUAL_DEVICE_ID ? null : { type: 'AttendanceDevice', id: String(deviceId), display: (row.device_name as string | null) ?? null },
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
  };
}
