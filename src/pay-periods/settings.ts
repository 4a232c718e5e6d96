import type { Caller } from '../caller';
import { writeAudit } from '../audit/repository';
import type { Db } from '../db/connect';
import { BadRequestError, type FieldError, ValidationError } from '../errors';
import { fieldErrorsOf } from '../http/parse';
import { DEFAULT_GROUP_ID, findDefaultGroup, findPayGroup, readDefaultGroupSettings, writeGroupSettings } from '../pay-groups/repository';
import { parseStoredPayPeriodSettings, type PayPeriodSettings } from '../pay-rules/settings';
import { payPeriodSettingsUpdateSchema } from './schemas';

// The settings of 6.3 are group 1's (docs/pay-periods.md, "Pay groups"): its row in `pay_groups`
// is the only place they live, and these read and write it exactly as the settings row was.

/** The settings in force: group 1's, each missing or unreadable key at its default. */
export async function readPayPeriodSettings(db: Db): Promise<PayPeriodSettings> {
  return readDefaultGroupSettings(db);
}

/** The pay group a pay-period path is of (`?group=`, `--group`), as those paths read it. */
export interface PeriodGroup {
  id: number;
  name: string;
  /** Its 6.3 settings: the periods are drawn from them, its employees' hours classified under them. */
  settings: PayPeriodSettings;
  /** The stored settings JSON exactly (null: the defaults), which an export's fingerprint covers. */
  storedSettings: string | null;
  /** The export profile of its CSV when the request names none; null: `default`. */
  exportProfile: string | null;
}

/**
 * The pay group `?group=` names (docs/pay-periods.md, "Groups"): 400 invalid_query naming `group`
 * for an id no group has, as `?profile=` is refused for a profile that does not exist. Group 1
 * always answers (its defaults, should a hand edit have removed its row).
 */
export async function readPeriodGroup(db: Db, id: number = DEFAULT_GROUP_ID): Promise<PeriodGroup> {
  const group = await findPayGroup(db, id);
  if (group)
    return {
      id,
      name: group.name,
      settings: parseStoredPayPeriodSettings(group.storedSettings ?? undefined),
      storedSettings: group.storedSettings,
      exportProfile: group.export_profile,
    };
  if (id === DEFAULT_GROUP_ID)
    return { id, name: 'Default', settings: parseStoredPayPeriodSettings(undefined), storedSettings: null, exportProfile: null };
  throw new BadRequestError({
    code: 'invalid_query',
    title: 'Invalid query parameters',
    detail: `group names no pay group: ${id}`,
    errors: [{ field: 'group', message: 'names no pay group (GET /pay-groups lists them)' }],
  });
}

/** The stored JSON exactly (an export's fingerprint covers it); undefined while unset. */
export async function readStoredPayPeriodSettings(db: Db): Promise<string | undefined> {
  return (await findDefaultGroup(db))?.storedSettings ?? undefined;
}

/** The API shape, keys in a fixed order. */
export function payPeriodSettingsResponse(settings: PayPeriodSettings): PayPeriodSettings {
  return {
    frequency: settings.frequency,
    anchor_date: settings.anchor_date,
    month_start_day: settings.month_start_day,
    workweek_start: settings.workweek_start,
    overtime: {
      daily_after_hours: settings.overtime.daily_after_hours,
      daily_double_after_hours: settings.overtime.daily_double_after_hours,
      weekly_after_hours: settings.overtime.weekly_after_hours,
      seventh_day: settings.overtime.seventh_day,
    },
  };
}

const OVERTIME_KEYS = ['daily_after_hours', 'daily_double_after_hours', 'weekly_after_hours', 'seventh_day'] as const;

/**
 * A PUT body applied to the current settings: the sent keys replace theirs, omitted ones keep
 * their value (docs/pay-periods.md, "Settings"). The body is parsed by the settings' schema
 * (schemas.ts), every invalid key reported at once (422, one error per key); double time is then
 * checked against daily hours as they will be, sent or stored.
 */
export function applySettingsBody(current: PayPeriodSettings, body: Record<string, unknown>): PayPeriodSettings {
  const parsed = payPeriodSettingsUpdateSchema.safeParse(body);
  if (!parsed.success) throw new ValidationError(onePerField(fieldErrorsOf(parsed.error)));
  const { overtime, ...top } = parsed.data;
  const next: PayPeriodSettings = { ...current, ...top, overtime: { ...current.overtime, ...overtime } };
  const { daily_after_hours: daily, daily_double_after_hours: double } = next.overtime;
  if (daily !== null && double !== null && double < daily)
    throw new ValidationError([{ field: 'overtime.daily_double_after_hours', message: `must be at least daily_after_hours (${daily})` }]);
  return next;
}

/** A key failing several checks (above 0, 2 decimals) is named once. */
function onePerField(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((error) => !seen.has(error.field) && seen.add(error.field));
}

/** Stores new settings (group 1's) with an audit row naming what changed; in the write's transaction. */
export async function savePayPeriodSettings(
  trx: Db,
  before: PayPeriodSettings,
  after: PayPeriodSettings,
  context: { caller: Caller; now: Date; requestId: string },
): Promise<void> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of ['frequency', 'anchor_date', 'month_start_day', 'workweek_start'] as const) {
    if (before[key] !== after[key]) changes[key] = { from: before[key], to: after[key] };
  }
  for (const key of OVERTIME_KEYS) {
    if (before.overtime[key] !== after.overtime[key]) changes[`overtime.${key}`] = { from: before.overtime[key], to: after.overtime[key] };
  }
  // A PUT that changes nothing writes nothing (the stored row stays as it was, defaults unstored).
  if (Object.keys(changes).length === 0) return;
  await writeGroupSettings(trx, DEFAULT_GROUP_ID, after, context.now);
  await writeAudit(
    trx,
    { action: 'pay_periods.settings', entityType: 'settings', entityId: 0, fields: Object.keys(changes), changes },
    context,
  );
}
