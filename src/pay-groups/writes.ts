import type { Caller } from '../caller';
import { writeAudit } from '../audit/repository';
import type { Db } from '../db/connect';
import { ConflictError, type FieldError, NotFoundError, ValidationError } from '../errors';
import { findExportProfile } from '../export-profiles/repository';
import { fieldErrorsOf } from '../http/parse';
import { DEFAULT_GROUP_RULES, type GroupRules } from '../pay-rules/settings';
import {
  DEFAULT_GROUP_ID,
  deletePayGroup,
  findPayGroup,
  groupHasEmployees,
  groupHasLocks,
  insertPayGroup,
  type PayGroup,
  settingsJson,
  updatePayGroup,
} from './repository';
import { payGroupPatchSchema, payGroupReplaceSchema, payGroupWriteSchema, type PayGroupWrite } from './schemas';

// The writes of /pay-groups (CONTRACT 6.5): the body checked by the group's one schema (every
// invalid field a 422 naming it, nothing written), then what the schema cannot know: double time
// against daily hours, the export profile's existence, group 1's name; audited.

interface WriteContext {
  caller: Caller;
  now: Date;
  requestId: string;
}

/**
 * What a change of a group's rules does to the numbers, in the write's transaction (given by the
 * app: period-guard's reopenForGroupRules, which reopens the approved timesheets whose numbers
 * change; a lock's numbers never change). `settingsChanged`: the 6.3 settings (periods, workweek).
 */
export type RulesChanged = (trx: Db, groupId: number, context: WriteContext, settingsChanged: boolean) => Promise<void>;

type GroupValues = GroupRules & { name: string; export_profile: string | null };

const DEFAULTS: GroupValues = { ...DEFAULT_GROUP_RULES, name: '', export_profile: null };

/** The fields a group's audit row compares (its overtime rules one by one). */
const AUDITED = ['name', 'frequency', 'anchor_date', 'month_start_day', 'workweek_start', 'exempt', 'export_profile'] as const;

/** POST /pay-groups: `name` required, the rest at their defaults unless sent. */
export async function createPayGroup(trx: Db, body: Record<string, unknown>, context: WriteContext): Promise<PayGroup> {
  const values = applyBody(DEFAULTS, parse(payGroupWriteSchema, body));
  await assertValid(trx, values);
  const group = await insertPayGroup(trx, values, context.now);
  await audit(trx, 'pay_group.create', group.id, DEFAULTS, values, context);
  return group;
}

/** PUT /pay-groups/{id}: the whole group again (as POST); `id`, `created_at`, `updated_at` may be sent back. */
export async function replacePayGroup(
  trx: Db,
  id: number,
  body: Record<string, unknown>,
  context: WriteContext,
  rulesChanged?: RulesChanged,
): Promise<PayGroup> {
  const current = await storedGroup(trx, id);
  return changeGroup(trx, current, applyBody(DEFAULTS, parse(payGroupReplaceSchema, body, id)), context, rulesChanged);
}

/** PATCH /pay-groups/{id}: the sent fields (and `overtime` keys) replace theirs; the rest keep their value. */
export async function patchPayGroup(
  trx: Db,
  id: number,
  body: Record<string, unknown>,
  context: WriteContext,
  rulesChanged?: RulesChanged,
): Promise<PayGroup> {
  const current = await storedGroup(trx, id);
  return changeGroup(trx, current, applyBody(current, parse(payGroupPatchSchema, body, id)), context, rulesChanged);
}

/** DELETE /pay-groups/{id}: never group 1; never a group with employees or locks (409 `in_use`). */
export async function removePayGroup(trx: Db, id: number, context: WriteContext): Promise<{ id: string }> {
  const current = await storedGroup(trx, id);
  if (id === DEFAULT_GROUP_ID) throw new ConflictError({ detail: 'Group 1 (Default) always exists and cannot be deleted' });
  if (await groupHasEmployees(trx, id))
    throw new ConflictError({ code: 'in_use', detail: 'Employees belong to this group: move them to another group first' });
  if (await groupHasLocks(trx, id))
    throw new ConflictError({ code: 'in_use', detail: 'The group has locked pay periods: their frozen numbers name it' });
  await deletePayGroup(trx, id);
  await audit(trx, 'pay_group.delete', id, current, current, context, ['id']);
  return { id: String(id) };
}

async function changeGroup(
  trx: Db,
  current: PayGroup,
  next: GroupValues,
  context: WriteContext,
  rulesChanged?: RulesChanged,
): Promise<PayGroup> {
  if (current.id === DEFAULT_GROUP_ID && next.name !== current.name)
    throw new ValidationError([{ field: 'name', message: `is ${current.name} for group 1, which cannot be renamed` }]);
  await assertValid(trx, next);
  const settingsChanged = settingsJson(current) !== settingsJson(next);
  const changed = await audit(trx, 'pay_group.update', current.id, current, next, context);
  if (changed) await updatePayGroup(trx, current.id, next, settingsChanged, context.now);
  // After the write, so that the numbers compared are the new rules'.
  if (settingsChanged || classifyingRulesOf(current) !== classifyingRulesOf(next))
    await rulesChanged?.(trx, current.id, context, settingsChanged);
  return (await findPayGroup(trx, current.id))!;
}

/** The rules of 6.5 a classification reads beyond the settings (a change of them can change numbers). */
function classifyingRulesOf(group: GroupValues): string {
  return JSON.stringify([group.exempt, group.meal_break, group.rounding]);
}

function parse(
  schema: typeof payGroupPatchSchema | typeof payGroupWriteSchema,
  body: Record<string, unknown>,
  pathId?: number,
): PayGroupWrite {
  const parsed = schema.safeParse(body);
  const errors = parsed.success ? [] : onePerField(fieldErrorsOf(parsed.error));
  if (pathId !== undefined && body.id !== undefined && String(body.id) !== String(pathId))
    errors.push({ field: 'id', message: 'must match the id in the path' });
  if (!parsed.success || errors.length > 0) throw new ValidationError(errors);
  return parsed.data;
}

/** A key failing several checks (above 0, 2 decimals) is named once. */
function onePerField(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((error) => !seen.has(error.field) && seen.add(error.field));
}

function applyBody(base: GroupValues, body: PayGroupWrite): GroupValues {
  const { overtime, id: _id, created_at: _created, updated_at: _updated, ...top } = body;
  const defined = Object.fromEntries(Object.entries(top).filter(([, value]) => value !== undefined));
  return {
    ...pickValues(base),
    ...defined,
    overtime: { ...base.overtime, ...Object.fromEntries(Object.entries(overtime ?? {}).filter(([, value]) => value !== undefined)) },
  } as GroupValues;
}

function pickValues(group: GroupValues): GroupValues {
  const { name, frequency, anchor_date, month_start_day, workweek_start, overtime, exempt, meal_break, rounding, export_profile } = group;
  return { name, frequency, anchor_date, month_start_day, workweek_start, overtime, exempt, meal_break, rounding, export_profile };
}

/** What the schema cannot check: double time against daily hours as they will be, the profile's existence. */
async function assertValid(trx: Db, values: GroupValues): Promise<void> {
  const errors: FieldError[] = [];
  const { daily_after_hours: daily, daily_double_after_hours: double } = values.overtime;
  if (daily !== null && double !== null && double < daily)
    errors.push({ field: 'overtime.daily_double_after_hours', message: `must be at least daily_after_hours (${daily})` });
  if (values.export_profile !== null && !(await findExportProfile(trx, values.export_profile)))
    errors.push({ field: 'export_profile', message: 'must name an export profile (GET /export-profiles)' });
  if (errors.length > 0) throw new ValidationError(errors);
}

async function storedGroup(trx: Db, id: number): Promise<PayGroup> {
  const group = await findPayGroup(trx, id);
  if (!group) throw new NotFoundError({ detail: 'No such pay group' });
  return group;
}

/** The audit row of a group's write, naming the fields that changed; false (and no row) when none did. */
async function audit(
  trx: Db,
  action: string,
  id: number,
  before: GroupValues,
  after: GroupValues,
  context: WriteContext,
  always: string[] = [],
): Promise<boolean> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of AUDITED) if (before[key] !== after[key]) changes[key] = { from: before[key], to: after[key] };
  for (const key of Object.keys(after.overtime) as Array<keyof GroupValues['overtime']>)
    if (before.overtime[key] !== after.overtime[key]) changes[`overtime.${key}`] = { from: before.overtime[key], to: after.overtime[key] };
  for (const key of ['meal_break', 'rounding'] as const)
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changes[key] = { from: before[key], to: after[key] };
  const fields = [...always, ...Object.keys(changes)];
  if (fields.length === 0) return false;
  await writeAudit(trx, { action, entityType: 'pay_group', entityId: id, fields, changes }, context);
  return true;
}
