import type { Knex } from 'knex';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors';
import {
  definitionErrors,
  definitionFromTemplate,
  definitionOf,
  type ExportProfile,
  findTemplate,
  parseProfileFields,
  TEMPLATES,
} from './definition';
import {
  deleteExportProfile,
  findExportProfile,
  groupUsingProfile,
  insertExportProfile,
  leaveTypeCodes,
  replaceExportProfile,
} from './repository';

// The writes of /export-profiles: every field checked and every problem named before anything
// is written (422), the templates read-only (403).

/**
 * POST /export-profiles: a profile of its own (`layout` and `columns` required), or one made from
 * `template` whose fields the body's replace and whose constants it adds to.
 */
export async function createExportProfile(trx: Knex.Transaction, body: Record<string, unknown>, now: Date): Promise<ExportProfile> {
  const { values, errors } = parseProfileFields(body, ['template']);
  if (values.name === undefined && !errors.some((error) => error.field === 'name')) errors.push({ field: 'name', message: 'is required' });
  let definition;
  if (body.template !== undefined) {
    const template = typeof body.template === 'string' ? findTemplate(body.template) : undefined;
    if (!template) {
      errors.push({
        field: 'template',
        message: `must name a built-in template (${TEMPLATES.map((known) => known.id).join(', ')})`,
      });
      throw new ValidationError(errors);
    }
    definition = definitionFromTemplate(template, values, errors);
  } else definition = definitionOf(values, errors);
  if (errors.length === 0) errors.push(...definitionErrors(definition, await leaveTypeCodes(trx)));
  if (errors.length > 0) throw new ValidationError(errors);
  return insertExportProfile(trx, values.name!, definition, now);
}

/** PUT /export-profiles/{id}: the whole profile again (as POST without a template). */
export async function replaceProfile(trx: Knex.Transaction, id: string, body: Record<string, unknown>, now: Date): Promise<ExportProfile> {
  const current = await storedProfile(trx, id);
  const { values, errors } = parseProfileFields(body, ['id', 'template']);
  if (body.id !== undefined && String(body.id) !== current.id) errors.push({ field: 'id', message: 'must match the id in the path' });
  if (body.template !== undefined && body.template !== false)
    errors.push({ field: 'template', message: 'is read-only (false for a profile of your own)' });
  if (values.name === undefined && !errors.some((error) => error.field === 'name')) errors.push({ field: 'name', message: 'is required' });
  const definition = definitionOf(values, errors);
  if (errors.length === 0) errors.push(...definitionErrors(definition, await leaveTypeCodes(trx)));
  if (errors.length > 0) throw new ValidationError(errors);
  await replaceExportProfile(trx, Number(current.id), values.name!, definition, now);
  return (await findExportProfile(trx, current.id))!;
}

/**
 * DELETE /export-profiles/{id}: refused (409 `in_use`) while a pay group's export uses it by
 * default (its `export_profile`), so no group ever names a profile that is gone.
 */
export async function deleteProfile(trx: Knex.Transaction, id: string): Promise<{ id: string }> {
  const current = await storedProfile(trx, id);
  const group = await groupUsingProfile(trx, current.id);
  if (group)
    throw new ConflictError({
      code: 'in_use',
      detail: `The pay group ${group.id} (${group.name}) exports with this profile; give it another export_profile first`,
    });
  await deleteExportProfile(trx, Number(current.id));
  return { id: current.id };
}

async function storedProfile(trx: Knex.Transaction, id: string): Promise<ExportProfile> {
  const found = await findExportProfile(trx, id);
  if (!found) throw new NotFoundError({ detail: 'No such export profile' });
  if (found.template)
    throw new ForbiddenError({ detail: 'Built-in export profiles are read-only; make one from it with POST /export-profiles' });
  return found;
}
