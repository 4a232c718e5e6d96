import type { Request, Response } from 'express';
import type { Clock } from '../clock';
import { ForbiddenError, NotFoundError } from '../errors';
import { callerOf, instanceOf, requestIdOf } from '../http/context';
import { requireJsonObject } from '../http/json-body';
import { offsetOf, toPage } from '../http/pagination';
import { pathId } from '../http/params';
import { parseQuery } from '../http/parse';
import { Routes } from '../http/routes';
import { sendJson } from '../http/send';
import { sendWrite } from '../http/write';
import { referenceNamesOf } from '../lookups/reference-names';
import { findPayGroup, listPayGroups, type PayGroup } from './repository';
import { payGroupListQuery } from './schemas';
import { createPayGroup, patchPayGroup, removePayGroup, replacePayGroup, type RulesChanged } from './writes';

/** The read shape (CONTRACT 6.5), keys in the contract's order. */
export function toPayGroupResponse(group: PayGroup): Record<string, unknown> {
  const { id, name, frequency, anchor_date, month_start_day, workweek_start, overtime } = group;
  const { exempt, meal_break, rounding, export_profile, created_at, updated_at } = group;
  const { daily_after_hours, daily_double_after_hours, weekly_after_hours, seventh_day } = overtime;
  return {
    id: String(id),
    name,
    frequency,
    anchor_date,
    month_start_day,
    workweek_start,
    overtime: { daily_after_hours, daily_double_after_hours, weekly_after_hours, seventh_day },
    exempt,
    meal_break,
    rounding,
    export_profile,
    created_at,
    updated_at,
  };
}

/**
 * /pay-groups (docs/pay-periods.md, "Pay groups"): admins write, admins and managers read.
 * Group 1 is the pay-period settings' group (/pay-periods/settings reads and writes it too).
 */
export function payGroupRoutes({
  clock,
  rulesChanged,
  afterRulesChanged,
}: {
  clock: Clock;
  /** Reopens the approved timesheets a change of a group's rules changes (period-guard, given by the app). */
  rulesChanged?: RulesChanged;
  /** After such a write: what caches the numbers' statuses (the timesheet list's totals). */
  afterRulesChanged?: (instance: ReturnType<typeof instanceOf>) => void;
}): Routes {
  const requireReader = (req: Request) => {
    if (callerOf(req).role === 'employee') throw new ForbiddenError({ detail: 'Only admins and managers may read pay groups' });
  };
  const requireAdmin = (req: Request) => {
    if (callerOf(req).role !== 'admin') throw new ForbiddenError({ detail: 'Only admins may change pay groups' });
  };
  const context = (req: Request) => ({ caller: callerOf(req), now: clock.now(), requestId: requestIdOf(req) });
  /** After a write: an employee's `pay_group` shows the group's name (a rename, a new group). */
  const forgetNames = (req: Request) => () => referenceNamesOf(instanceOf(req)).invalidate();
  /** PUT and PATCH: the same flow shape, a whole body or a partial one. */
  const change = (write: typeof replacePayGroup) => async (req: Request, res: Response) => {
    requireAdmin(req);
    const id = pathId(req.params.id, 'pay group');
    const body = requireJsonObject(req);
    const written = context(req);
    await sendWrite(
      req,
      res,
      written.now,
      async (trx) => ({
        status: 200,
        body: toPayGroupResponse(await write(trx, id, body, written, rulesChanged)),
      }),
      () => {
        forgetNames(req)();
        afterRulesChanged?.(instanceOf(req));
      },
    );
  };
  return new Routes('/pay-groups')
    .route('/', {
      get: async (req, res) => {
        requireReader(req);
        const query = parseQuery(payGroupListQuery, req.query);
        const { rows, total } = await listPayGroups(instanceOf(req).db, offsetOf(query.page, query.limit), query.limit);
        sendJson(res, toPage(rows.map(toPayGroupResponse), total, query.page, query.limit));
      },
      post: async (req, res) => {
        requireAdmin(req);
        const body = requireJsonObject(req);
        const write = context(req);
        await sendWrite(
          req,
          res,
          write.now,
          async (trx) => {
            const group = await createPayGroup(trx, body, write);
            return { status: 201, headers: { Location: `${req.baseUrl}/${group.id}` }, body: toPayGroupResponse(group) };
          },
          forgetNames(req),
        );
      },
    })
    .route('/:id', {
      get: async (req, res) => {
        requireReader(req);
        const group = await findPayGroup(instanceOf(req).db, pathId(req.params.id, 'pay group'));
        if (!group) throw new NotFoundError({ detail: 'No such pay group' });
        sendJson(res, toPayGroupResponse(group));
      },
      put: change(replacePayGroup),
      patch: change(patchPayGroup),
      delete: async (req, res) => {
        requireAdmin(req);
        const id = pathId(req.params.id, 'pay group');
        const write = context(req);
        await sendWrite(
          req,
          res,
          write.now,
          async (trx) => ({ status: 200, body: await removePayGroup(trx, id, write) }),
          forgetNames(req),
        );
      },
    });
}
