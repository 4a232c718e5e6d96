import type { Db } from '../db/connect';
import { sqlDateTimeToIso, toSqlDateTime } from '../db/sql-time';
import { type GroupRules, parseStoredPayPeriodSettings, type PayPeriodSettings, type RoundingMinutes } from '../pay-rules/settings';

// The `pay_groups` table (migration 0027): each group's period layout and rules. The 6.3 settings
// are one JSON text (read leniently: a bad key reads as its default), the rules 6.5 adds are
// columns. Group 1 always exists: its row is where GET|PUT /pay-periods/settings read and write.

/** The group every employee, lock and approval belongs to unless told otherwise; never deleted. */
export const DEFAULT_GROUP_ID = 1;

export interface PayGroup extends GroupRules {
  id: number;
  name: string;
  export_profile: string | null;
  created_at: string;
  updated_at: string;
  /** The stored settings JSON exactly (null: the defaults), which an export's fingerprint covers. */
  storedSettings: string | null;
}

interface PayGroupRow {
  id: number | string;
  name: string;
  settings: string | null;
  exempt: number | boolean;
  meal_break_after_hours: number | string | null;
  meal_break_minutes: number | string | null;
  rounding_minutes: number | string | null;
  export_profile: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS = [
  'id',
  'name',
  'settings',
  'exempt',
  'meal_break_after_hours',
  'meal_break_minutes',
  'rounding_minutes',
  'export_profile',
  'created_at',
  'updated_at',
] as const;

function toPayGroup(row: PayGroupRow): PayGroup {
  const afterHours = row.meal_break_after_hours;
  const minutes = row.meal_break_minutes;
  return {
    id: Number(row.id),
    name: row.name,
    ...parseStoredPayPeriodSettings(row.settings ?? undefined),
    exempt: Boolean(row.exempt),
    meal_break: afterHours === null || minutes === null ? null : { after_hours: Number(afterHours), minutes: Number(minutes) },
    rounding: row.rounding_minutes === null ? null : { minutes: Number(row.rounding_minutes) as RoundingMinutes },
    export_profile: row.export_profile,
    created_at: sqlDateTimeToIso(String(row.created_at)),
    updated_at: sqlDateTimeToIso(String(row.updated_at)),
    storedSettings: row.settings,
  };
}

/** The 6.3 settings of a group as stored: the JSON of the API shape, keys in a fixed order. */
export function settingsJson(settings: PayPeriodSettings): string {
  const { frequency, anchor_date, month_start_day, workweek_start, overtime } = settings;
  const { daily_after_hours, daily_double_after_hours, weekly_after_hours, seventh_day } = overtime;
  return JSON.stringify({
    frequency,
    anchor_date,
    month_start_day,
    workweek_start,
    overtime: { daily_after_hours, daily_double_after_hours, weekly_after_hours, seventh_day },
  });
}

/** The columns of a group's rules (all but the settings JSON, which only changes when they do). */
function ruleColumns(group: GroupRules & { name: string; export_profile: string | null }): Record<string, unknown> {
  return {
    name: group.name,
    exempt: group.exempt,
    meal_break_after_hours: group.meal_break?.after_hours ?? null,
    meal_break_minutes: group.meal_break?.minutes ?? null,
    rounding_minutes: group.rounding?.minutes ?? null,
    export_profile: group.export_profile,
  };
}

/** Every group's rules by id: one query, for a reading that classifies employees of any group. */
export async function readGroupRules(db: Db): Promise<Map<number, GroupRules>> {
  const rows = (await db('pay_groups').select(COLUMNS)) as PayGroupRow[];
  return new Map(rows.map((row) => [Number(row.id), toPayGroup(row)]));
}

/** What a change of any group's rules changes (an export's tag covers it): their count and latest change. */
export async function groupRulesFingerprint(db: Db): Promise<unknown> {
  return db('pay_groups').first(db.raw('count(*) as n'), db.raw('max(updated_at) as changed'), db.raw('sum(id) as ids'));
}

export async function findPayGroup(db: Db, id: number): Promise<PayGroup | undefined> {
  const row = (await db('pay_groups').where({ id }).first(COLUMNS)) as PayGroupRow | undefined;
  return row ? toPayGroup(row) : undefined;
}

/** Group 1: always there (migration 0027 makes it, nothing deletes it); its defaults if a hand edit removed it. */
export async function findDefaultGroup(db: Db): Promise<PayGroup | undefined> {
  return findPayGroup(db, DEFAULT_GROUP_ID);
}

/** The 6.3 settings in force (group 1's): every missing or unreadable key at its default. */
export async function readDefaultGroupSettings(db: Db): Promise<PayPeriodSettings> {
  return parseStoredPayPeriodSettings((await findDefaultGroup(db))?.storedSettings ?? undefined);
}

/** A page of groups by id, and how many there are. */
export async function listPayGroups(db: Db, offset: number, limit: number): Promise<{ rows: PayGroup[]; total: number }> {
  const [rows, counted] = await Promise.all([
    db('pay_groups').orderBy('id').offset(offset).limit(limit).select(COLUMNS) as Promise<PayGroupRow[]>,
    db('pay_groups').count({ n: '*' }).first() as Promise<{ n: number | string } | undefined>,
  ]);
  return { rows: rows.map(toPayGroup), total: Number(counted?.n ?? 0) };
}

type NewPayGroup = GroupRules & { name: string; export_profile: string | null };

export async function insertPayGroup(db: Db, group: NewPayGroup, now: Date): Promise<PayGroup> {
  const at = toSqlDateTime(now);
  const [id] = await db('pay_groups').insert({ ...ruleColumns(group), settings: settingsJson(group), created_at: at, updated_at: at });
  return (await findPayGroup(db, Number(id)))!;
}

/**
 * Stores a group's name and rules. The settings JSON is written only when `settingsChanged`, so
 * a group whose settings were never set keeps reading the defaults (and its stored JSON stays).
 */
export async function updatePayGroup(db: Db, id: number, group: NewPayGroup, settingsChanged: boolean, now: Date): Promise<void> {
  await db('pay_groups')
    .where({ id })
    .update({ ...ruleColumns(group), ...(settingsChanged ? { settings: settingsJson(group) } : {}), updated_at: toSqlDateTime(now) });
}

/** Stores a group's 6.3 settings alone (PUT /pay-periods/settings, the IceHrm import). */
export async function writeGroupSettings(db: Db, id: number, settings: PayPeriodSettings, now: Date): Promise<void> {
  await db('pay_groups')
    .where({ id })
    .update({ settings: settingsJson(settings), updated_at: toSqlDateTime(now) });
}

export async function deletePayGroup(db: Db, id: number): Promise<void> {
  await db('timesheet_approvals').where({ group_id: id }).delete();
  await db('pay_groups').where({ id }).delete();
}

/** Whether any employee (of any status) belongs to the group. */
export async function groupHasEmployees(db: Db, id: number): Promise<boolean> {
  return (await db('employees').where({ pay_group_id: id }).first('id')) !== undefined;
}

/** Whether the group has a lock (locked or being locked): its frozen numbers name it. */
export async function groupHasLocks(db: Db, id: number): Promise<boolean> {
  return (await db('pay_period_locks').where({ group_id: id }).first('period_start')) !== undefined;
}
