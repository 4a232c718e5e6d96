import type { Request, Response } from 'express';
import { z } from 'zod';
import type { Clock } from '../clock';
import { ForbiddenError, NotFoundError } from '../errors';
import { callerOf, instanceOf } from '../http/context';
import { requireJsonObject } from '../http/json-body';
import { offsetOf, paginationFields, toPage } from '../http/pagination';
import { pathId } from '../http/params';
import { parseQuery } from '../http/parse';
import { Routes } from '../http/routes';
import { sendJson } from '../http/send';
import { sendWrite } from '../http/write';
import { findShiftType, listShiftTypes } from './type-repository';
import { changeShiftType, createShiftType, removeShiftType } from './type-writes';

export const shiftTypeListQuery = z.strictObject(paginationFields({ defaultLimit: 50, maxLimit: 200 }));

/** /shift-types (CONTRACT 6.7): every authenticated caller reads; admins write. */
export function shiftTypeRoutes({ clock }: { clock: Clock }): Routes {
  const requireAdmin = (req: Request) => {
    if (callerOf(req).role !== 'admin') throw new ForbiddenError({ detail: 'Only admins may change shift types' });
  };
  const change = (partial: boolean) => async (req: Request, res: Response) => {
    requireAdmin(req);
    const id = pathId(req.params.id, 'shift type');
    const body = requireJsonObject(req);
    const now = clock.now();
    await sendWrite(req, res, now, async (trx) => ({ status: 200, body: await changeShiftType(trx, id, body, { partial, now }) }));
  };
  return new Routes('/shift-types')
    .route('/', {
      get: async (req, res) => {
        const query = parseQuery(shiftTypeListQuery, req.query);
        const { rows, total } = await listShiftTypes(instanceOf(req).db, offsetOf(query.page, query.limit), query.limit);
        sendJson(res, toPage(rows, total, query.page, query.limit));
      },
      post: async (req, res) => {
        requireAdmin(req);
        const body = requireJsonObject(req);
        const now = clock.now();
        await sendWrite(req, res, now, async (trx) => {
          const type = await createShiftType(trx, body, now);
          return { status: 201, headers: { Location: `${req.baseUrl}/${type.id}` }, body: type };
        });
      },
    })
    .route('/:id', {
      get: async (req, res) => {
        const type = await findShiftType(instanceOf(req).db, pathId(req.params.id, 'shift type'));
        if (!type) throw new NotFoundError({ detail: 'No such shift type' });
        sendJson(res, type);
      },
      put: change(false),
      patch: change(true),
      delete: async (req, res) => {
        requireAdmin(req);
        const id = pathId(req.params.id, 'shift type');
        await sendWrite(req, res, clock.now(), async (trx) => ({ status: 200, body: await removeShiftType(trx, id) }));
      },
    });
}
