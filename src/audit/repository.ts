import type { Caller } from '../caller';
import type { Db } from '../db/connect';
import { parameter, preparedWrite } from '../db/driver-statements';
import { sqlDateTimeToIso, toSqlDateTime } from '../db/sql-time';

/**
 * What an audit row is about. A timesheet's entity id is its employee's; a pay period's is its
 * start date as a number (20260101); the pay-period settings are entity 0 of `settings`.
 */
export type AuditEntity =
  | 'employee'
  | 'attendance'
  | 'timesheet'
  | 'pay_period'
  | 'settings'
  | 'pay_group'
  | 'leave'
  | 'leave_type'
  | 'holiday'
  | 'shift'
  | 'shift_type';

export interface AuditEntry {
  action: string;
  entityType: AuditEntity;
  entityId: number;
  /** The employee the entity belongs to, when the entity is not the employee (attendance). */
  employeeId?: number;
  /** Names of the fields the change touched. */
  fields: string[];
  /** Before/after values of fields whose values may be recorded (never personal fields). */
  changes?: Record<string, { from: unknown; to: unknown }>;
}

interface AuditContext {
  caller: Caller | undefined;
  requestId: string | undefined;
  now: Date;
}

const AUDIT_COLUMNS = [
  'occurred_at',
  'actor_user_id',
  'actor_username',
  'action',
  'entity_type',
  'entity_id',
  'employee_id',
  'fields',
  'changes',
  'request_id',
] as const;

// Prepared: every write of the API writes one.
const insertAuditRow = preparedWrite((db) =>
  db('audit_log').insert(Object.fromEntries(AUDIT_COLUMNS.map((column, index) => [column, parameter(index)]))),
);

/** Writes one audit row; call it with the transaction of the change it records. */
export async function writeAudit(db: Db, entry: AuditEntry, context: AuditContext): Promise<void> {
  const row = auditRow(entry, context);
  await insertAuditRow(
    db,
    AUDIT_COLUMNS.map((column) => row[column]),
  );
}

/** Rows per INSERT of writeAudits: 10 columns each stay far below SQLite's limit on bound values. */
const AUDIT_BATCH = 500;

/** Writes the audit rows of one change touching several entities, a few hundred per statement. */
export async function writeAudits(db: Db, entries: AuditEntry[], context: AuditContext): Promise<void> {
  for (let start = 0; start < entries.length; start += AUDIT_BATCH) {
    await db('audit_log').insert(entries.slice(start, start + AUDIT_BATCH).map((entry) => auditRow(entry, context)));
  }
}

function auditRow(entry: AuditEntry, context: AuditContext): Record<(typeof AUDIT_COLUMNS)[number], unknown> {
  return {
    occurred_at: toSqlDateTime(context.now),
    actor_user_id: context.caller?.userId ?? null,
    actor_username: context.caller?.username ?? null,
    action: entry.action,
    entity_type: entry.entityType,
    entity_id: entry.entityId,
    employee_id: entry.employeeId ?? null,
    fields: JSON.stringify(entry.fields),
    changes: entry.changes && Object.keys(entry.changes).length > 0 ? JSON.stringify(entry.changes) : null,
    request_id: context.requestId ?? null,
  };
}

interface AuditRow {
  id: number;
  occurred_at: string;
  actor: string | null;
  action: string;
  entity_type: string;
  entity_id: number;
  employee_id: number | null;
  fields: string[];
  changes: Record<string, { from: unknown; to: unknown }> | null;
  request_id: string | null;
}

/**
 * The newest audit rows first, optionally of one entity, or about one employee: their employee
 * record and everything that belongs to them (attendance).
 */
export async function listAudit(
  db: Db,
  options: { entityType?: AuditEntity; entityId?: number; aboutEmployee?: number; limit: number },
): Promise<AuditRow[]> {
  const query = db('audit_log').orderBy('id', 'desc').limit(options.limit);
  if (options.entityType) query.where('entity_type', options.entityType);
  if (options.entityId !== undefined) query.where('entity_id', options.entityId);
  const employeeId = options.aboutEmployee;
  if (employeeId !== undefined) {
    query.where((about) => about.where({ entity_type: 'employee', entity_id: employeeId }).orWhere('employee_id', employeeId));
  }
  const rows: Array<Record<string, unknown>> = await query.select();
  return rows.map((row) => ({
    id: Number(row.id),
    occurred_at: sqlDateTimeToIso(String(row.occurred_at)),
    actor: (row.actor_username as string | null) ?? null,
    action: String(row.action),
    entity_type: String(row.entity_type),
    entity_id: Number(row.entity_id),
    employee_id: row.employee_id == null ? null : Number(row.employee_id),
    fields: JSON.parse(String(row.fields)) as string[],
    changes: row.changes ? (JSON.parse(String(row.changes)) as AuditRow['changes']) : null,
    request_id: (row.request_id as string | null) ?? null,
  }));
}
