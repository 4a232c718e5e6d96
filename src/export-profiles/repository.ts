import type { Db } from '../db/connect';
import { toSqlDateTime } from '../db/sql-time';
import { type ExportProfile, findTemplate, type ProfileDefinition, templateProfile, TEMPLATES } from './definition';

// The profiles admins made (export_profiles); the templates live in definition.ts. A profile id
// is a number for a stored profile and a word for a template, so the two never meet.

interface ProfileRow {
  id: number | string;
  name: string;
  definition: string;
  version: number | string;
}

function toProfile(row: ProfileRow): ExportProfile {
  const definition = JSON.parse(row.definition) as ProfileDefinition;
  return { id: String(row.id), name: row.name, template: false, version: Number(row.version), ...definition };
}

/** Only the definition's own keys, in their order: what is stored is what a GET answers. */
function definitionJson(definition: ProfileDefinition): string {
  const { layout, columns, codes, hours_format, decimals, delimiter, include_zero, constants, filename } = definition;
  return JSON.stringify({ layout, columns, codes, hours_format, decimals, delimiter, include_zero, constants, filename });
}

/** A template or a stored profile by its id; undefined when there is none. */
export async function findExportProfile(db: Db, id: string): Promise<ExportProfile | undefined> {
  const builtIn = findTemplate(id);
  if (builtIn) return templateProfile(builtIn);
  if (!/^[1-9][0-9]{0,9}$/.test(id)) return undefined;
  const row = (await db('export_profiles')
    .where({ id: Number(id) })
    .first('id', 'name', 'definition', 'version')) as ProfileRow | undefined;
  return row ? toProfile(row) : undefined;
}

/** A page of profiles: the templates first, then the stored ones by id. */
export async function listExportProfiles(db: Db, offset: number, limit: number): Promise<{ rows: ExportProfile[]; total: number }> {
  const templates = TEMPLATES.slice(offset, offset + limit).map(templateProfile);
  const storedOffset = Math.max(0, offset - TEMPLATES.length);
  const storedLimit = limit - templates.length;
  const [stored, counted] = await Promise.all([
    storedLimit > 0
      ? (db('export_profiles')
          .orderBy('id')
          .offset(storedOffset)
          .limit(storedLimit)
          .select('id', 'name', 'definition', 'version') as Promise<ProfileRow[]>)
      : Promise.resolve([]),
    db('export_profiles').count({ n: '*' }).first() as Promise<{ n: number | string } | undefined>,
  ]);
  return { rows: [...templates, ...stored.map(toProfile)], total: TEMPLATES.length + Number(counted?.n ?? 0) };
}

export async function insertExportProfile(db: Db, name: string, definition: ProfileDefinition, now: Date): Promise<ExportProfile> {
  const at = toSqlDateTime(now);
  const [id] = await db('export_profiles').insert({
    name,
    definition: definitionJson(definition),
    version: 1,
    created_at: at,
    updated_at: at,
  });
  return (await findExportProfile(db, String(id)))!;
}

/** Replaces a stored profile's name and definition; false when it does not exist. */
export async function replaceExportProfile(db: Db, id: number, name: string, definition: ProfileDefinition, now: Date): Promise<boolean> {
  const changed = await db('export_profiles')
    .where({ id })
    .update({ name, definition: definitionJson(definition), version: db.raw('version + 1'), updated_at: toSqlDateTime(now) });
  return changed > 0;
}

/** The first pay group whose export uses the profile by default (pay_groups.export_profile), if any. */
export async function groupUsingProfile(db: Db, id: string): Promise<{ id: number; name: string } | undefined> {
  const row = (await db('pay_groups').where({ export_profile: id }).orderBy('id').first('id', 'name')) as
    { id: number | string; name: string } | undefined;
  return row && { id: Number(row.id), name: row.name };
}

export async function deleteExportProfile(db: Db, id: number): Promise<boolean> {
  return (await db('export_profiles').where({ id }).delete()) > 0;
}

/** The codes of the leave types (docs/leave.md): codes a profile may name beside REG, OT, DT, PTO and HOL. */
export async function leaveTypeCodes(db: Db): Promise<string[]> {
  const rows = (await db('leave_types').whereNotNull('code').distinct('code')) as Array<{ code: string }>;
  return rows.map((row) => String(row.code));
}
