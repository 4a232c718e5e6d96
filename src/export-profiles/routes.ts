import type { Request } from 'express';
import { z } from 'zod';
import type { Clock } from '../clock';
import { ForbiddenError, NotFoundError } from '../errors';
import { callerOf, instanceOf } from '../http/context';
import { requireJsonObject } from '../http/json-body';
import { offsetOf, paginationFields, toPage } from '../http/pagination';
import { parseQuery } from '../http/parse';
import { Routes } from '../http/routes';
import { sendJson } from '../http/send';
import { sendWrite } from '../http/write';
import type { ExportProfile } from './definition';
import { findExportProfile, listExportProfiles } from './repository';
import { createExportProfile, deleteProfile, replaceProfile } from './writes';

export const profileListQuery = z.strictObject(paginationFields({ defaultLimit: 50, maxLimit: 200 }));

/** The read shape (CONTRACT 6.6): the profile without its internal version. */
export function toProfileResponse({ version: _version, ...profile }: ExportProfile): Record<string, unknown> {
  const { id, name, layout, columns, codes, hours_format, decimals, delimiter, include_zero, constants, filename, template } = profile;
  return { id, name, layout, columns, codes, hours_format, decimals, delimiter, include_zero, constants, filename, template };
}

/**
 * /export-profiles (admins only, docs/pay-periods.md "Export profiles"): the built-in templates
 * (read-only) and the profiles admins made, which `GET /pay-periods/{start}/export?profile=` uses.
 */
export function exportProfileRoutes({ clock }: { clock: Clock }): Routes {
  const requireAdmin = (req: Request) => {
    if (callerOf(req).role !== 'admin') throw new ForbiddenError({ detail: 'Only admins may manage export profiles' });
  };
  return new Routes('/export-profiles')
    .route('/', {
      get: async (req, res) => {
        requireAdmin(req);
        const query = parseQuery(profileListQuery, req.query);
        const { rows, total } = await listExportProfiles(instanceOf(req).db, offsetOf(query.page, query.limit), query.limit);
        sendJson(res, toPage(rows.map(toProfileResponse), total, query.page, query.limit));
      },
      post: async (req, res) => {
        requireAdmin(req);
        const body = requireJsonObject(req);
        const now = clock.now();
        await sendWrite(req, res, now, async (trx) => {
          const profile = await createExportProfile(trx, body, now);
          return { status: 201, headers: { Location: `${req.baseUrl}/${profile.id}` }, body: toProfileResponse(profile) };
        });
      },
    })
    .route('/:id', {
      get: async (req, res) => {
        requireAdmin(req);
        const profile = await findExportProfile(instanceOf(req).db, String(req.params.id));
        if (!profile) throw new NotFoundError({ detail: 'No such export profile' });
        sendJson(res, toProfileResponse(profile));
      },
      put: async (req, res) => {
        requireAdmin(req);
        const body = requireJsonObject(req);
        const now = clock.now();
        await sendWrite(req, res, now, async (trx) => ({
          status: 200,
          body: toProfileResponse(await replaceProfile(trx, String(req.params.id), body, now)),
        }));
      },
      delete: async (req, res) => {
        requireAdmin(req);
        await sendWrite(req, res, clock.now(), async (trx) => ({ status: 200, body: await deleteProfile(trx, String(req.params.id)) }));
      },
    });
}
