import type { Request } from 'express';
import type { Clock } from '../../clock';
import { callerOf, instanceOf, requestIdOf } from '../../http/context';
import { requireJsonObject } from '../../http/json-body';
import { offsetOf, paginationFields, toPage } from '../../http/pagination';
import { pathId } from '../../http/params';
import { parseQuery } from '../../http/parse';
import { Routes } from '../../http/routes';
import { sendJson } from '../../http/send';
import { sendWrite } from '../../http/write';
import { z } from 'zod';
import { ForbiddenError } from '../../errors';
import { toRotationResponse } from './rotation-model';
import { findRotation, listRotations } from './rotation-repository';
import { assertMayManageRotation, createRotation, removeRotation, replaceRotation } from './rotation-writes';

export const rotationListQuery = z.strictObject(paginationFields({ defaultLimit: 50, maxLimit: 200 }));

/** /rotations (CONTRACT 6.7): admins, and managers for their direct reports. */
export function rotationRoutes({ clock }: { clock: Clock }): Routes {
  const context = (req: Request) => ({ caller: callerOf(req), now: clock.now(), requestId: requestIdOf(req) });
  /** The rotation's employee, read before the write's transaction (which locks the employee first). */
  const employeeOf = async (req: Request, id: number) =>
    assertMayManageRotation(callerOf(req), await findRotation(instanceOf(req).db, id)).employee_id;
  return new Routes('/rotations')
    .route('/', {
      get: async (req, res) => {
        if (callerOf(req).role === 'employee') throw new ForbiddenError({ detail: 'Only admins and managers read rotations' });
        const query = parseQuery(rotationListQuery, req.query);
        const { rows, total } = await listRotations(instanceOf(req).db, callerOf(req), {
          offset: offsetOf(query.page, query.limit),
          limit: query.limit,
        });
        sendJson(res, toPage(rows.map(toRotationResponse), total, query.page, query.limit));
      },
      post: async (req, res) => {
        const body = requireJsonObject(req);
        const write = context(req);
        await sendWrite(req, res, write.now, async (trx) => {
          const rotation = await createRotation(trx, body, write);
          return { status: 201, headers: { Location: `${req.baseUrl}/${rotation.id}` }, body: toRotationResponse(rotation) };
        });
      },
    })
    .route('/:id', {
      get: async (req, res) => {
        const rotation = assertMayManageRotation(callerOf(req), await findRotation(instanceOf(req).db, pathId(req.params.id, 'rotation')));
        sendJson(res, toRotationResponse(rotation));
      },
      put: async (req, res) => {
        const id = pathId(req.params.id, 'rotation');
        const body = requireJsonObject(req);
        const write = context(req);
        const employeeId = await employeeOf(req, id);
        await sendWrite(req, res, write.now, async (trx) => ({
          status: 200,
          body: toRotationResponse(await replaceRotation(trx, id, employeeId, body, write)),
        }));
      },
      delete: async (req, res) => {
        const id = pathId(req.params.id, 'rotation');
        const write = context(req);
        const employeeId = await employeeOf(req, id);
        await sendWrite(req, res, write.now, async (trx) => ({ status: 200, body: await removeRotation(trx, id, employeeId, write) }));
      },
    });
}
