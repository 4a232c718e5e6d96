import type { Request } from 'express';
import type { Clock } from '../clock';
import { deletedLeavesPage, deletionFeedQuery } from '../deletions/tombstones';
import { ForbiddenError, NotFoundError } from '../errors';
import { entityTag, ifMatchOf, sendJsonWithEntityTag } from '../http/conditional';
import { callerOf, instanceOf, requestIdOf } from '../http/context';
import { optionalJsonObject, requireJsonObject } from '../http/json-body';
import { offsetOf, toPage } from '../http/pagination';
import { pathId } from '../http/params';
import { parseBody, parseQuery } from '../http/parse';
import { Routes } from '../http/routes';
import { sendJson, sendJsonText } from '../http/send';
import { sendWrite } from '../http/write';
import { assertLeaveAccess } from './access';
import { cancelLeave, createLeave, decideLeave, removeLeave, replaceLeave } from './flows';
import { listHolidays } from './holidays-repository';
import { createHoliday, importHolidays, removeHoliday } from './holidays';
import { createLeaveType, removeLeaveType, replaceLeaveType, type WriteContext } from './leave-types';
import { leaveJson, toHolidayResponse, toLeaveResponse, toLeaveTypeResponse } from './output';
import { findLeave, findLeaveEmployee, findLeaveType, type LeaveCriteria, listLeaves, listLeaveTypes } from './repository';
import { employeeLeaveQuery, holidayListQuery, leaveListQuery, leaveTypeListQuery } from './schemas';
import { leaveSettingsUpdate, readLeaveSettings } from './settings';
import { changeLeaveSettings } from './settings-change';

/**
 * Leave and holidays (CONTRACT 6.8, docs/leave.md): leave types, leaves (also under IceHrm's
 * /employees/{id}/leaves), holidays and the settings of the work week.
 */
export function leaveRoutes({ clock }: { clock: Clock }): Routes[] {
  const requireAdmin = (req: Request, what: string) => {
    if (callerOf(req).role !== 'admin') throw new ForbiddenError({ detail: `Only admins may ${what}` });
  };
  const context = (req: Request): WriteContext => ({ caller: callerOf(req), now: clock.now(), requestId: requestIdOf(req) });
  const leavePage = async (req: Request, criteria: LeaveCriteria, query: { page: number; limit: number }) => {
    const { rows, total } = await listLeaves(
      instanceOf(req).db,
      { ...criteria, visibleTo: callerOf(req) },
      offsetOf(query.page, query.limit),
      query.limit,
    );
    return toPage(rows.map(toLeaveResponse), total, query.page, query.limit);
  };
  const leaveAnswer = (req: Request, json: string) => ({
    status: 200,
    headers: { ETag: entityTag(instanceOf(req).entityTagKey, json) },
    body: JSON.parse(json) as unknown,
  });
  const decide = (decision: 'approved' | 'rejected') => async (req: Request, res: Parameters<typeof sendWrite>[1]) => {
    const id = pathId(req.params.id, 'leave');
    optionalJsonObject(req);
    const write = context(req);
    await sendWrite(req, res, write.now, async (trx) =>
      leaveAnswer(req, leaveJson(await decideLeave(trx, id, decision, write, ifMatchOf(req)))),
    );
  };

  const types = new Routes('/leave-types')
    .route('/', {
      get: async (req, res) => {
        const query = parseQuery(leaveTypeListQuery, req.query);
        const { rows, total } = await listLeaveTypes(instanceOf(req).db, offsetOf(query.page, query.limit), query.limit);
        sendJson(res, toPage(rows.map(toLeaveTypeResponse), total, query.page, query.limit));
      },
      post: async (req, res) => {
        requireAdmin(req, 'manage leave types');
        const body = requireJsonObject(req);
        const write = context(req);
        await sendWrite(req, res, write.now, async (trx) => {
          const type = await createLeaveType(trx, body, write);
          return { status: 201, headers: { Location: `${req.baseUrl}/${type.id}` }, body: toLeaveTypeResponse(type) };
        });
      },
    })
    .route('/:id', {
      get: async (req, res) => {
        const type = await findLeaveType(instanceOf(req).db, pathId(req.params.id, 'leave type'));
        if (!type) throw new NotFoundError({ detail: 'No such leave type' });
        sendJson(res, toLeaveTypeResponse(type));
      },
      put: async (req, res) => {
        requireAdmin(req, 'manage leave types');
        const id = pathId(req.params.id, 'leave type');
        const body = requireJsonObject(req);
        const write = context(req);
        await sendWrite(req, res, write.now, async (trx) => ({
          status: 200,
          body: toLeaveTypeResponse(await replaceLeaveType(trx, id, body, write)),
        }));
      },
      delete: async (req, res) => {
        requireAdmin(req, 'manage leave types');
        const id = pathId(req.params.id, 'leave type');
        const write = context(req);
        await sendWrite(req, res, write.now, async (trx) => ({ status: 200, body: await removeLeaveType(trx, id, write) }));
      },
    });

  // /leaves/deleted before /leaves/:id, which would take "deleted" for an id (and answer 404).
  const leaves = new Routes('/leaves')
    .route(
      '/',
      {
        get: async (req, res) => {
          const query = parseQuery(leaveListQuery, req.query);
          sendJson(res, await leavePage(req, { employeeId: query.employee, from: query.from, to: query.to, status: query.status }, query));
        },
        post: async (req, res) => {
          const body = requireJsonObject(req);
          const write = context(req);
          await sendWrite(req, res, write.now, async (trx) => {
            const leave = await createLeave(trx, body, write);
            const json = leaveJson(leave);
            return {
              ...leaveAnswer(req, json),
              status: 201,
              headers: { Location: `${req.baseUrl}/${leave.id}`, ETag: entityTag(instanceOf(req).entityTagKey, json) },
            };
          });
        },
      },
      { heavy: true },
    )
    .route('/deleted', {
      get: async (req, res) => {
        const query = parseQuery(deletionFeedQuery, req.query);
        sendJsonText(res, await deletedLeavesPage(instanceOf(req).db, callerOf(req), query));
      },
    })
    .route('/:id', {
      get: async (req, res) => {
        const leave = await findLeave(instanceOf(req).db, pathId(req.params.id, 'leave'));
        if (!leave) throw new NotFoundError({ detail: 'No such leave' });
        assertLeaveAccess(callerOf(req), { id: leave.employee_id, supervisor_id: leave.supervisor_id }, 'read', 'No such leave');
        const json = leaveJson(leave);
        sendJsonWithEntityTag(req, res, json, entityTag(instanceOf(req).entityTagKey, json));
      },
      put: async (req, res) => {
        const id = pathId(req.params.id, 'leave');
        const body = requireJsonObject(req);
        const write = context(req);
        await sendWrite(req, res, write.now, async (trx) =>
          leaveAnswer(req, leaveJson(await replaceLeave(trx, id, body, write, ifMatchOf(req)))),
        );
      },
      delete: async (req, res) => {
        const id = pathId(req.params.id, 'leave');
        const write = context(req);
        await sendWrite(req, res, write.now, async (trx) => ({ status: 200, body: await removeLeave(trx, id, write, ifMatchOf(req)) }));
      },
    })
    .route('/:id/approve', { post: decide('approved') })
    .route('/:id/reject', { post: decide('rejected') })
    .route('/:id/cancel', {
      post: async (req, res) => {
        const id = pathId(req.params.id, 'leave');
        optionalJsonObject(req);
        const write = context(req);
        await sendWrite(req, res, write.now, async (trx) => leaveAnswer(req, leaveJson(await cancelLeave(trx, id, write, ifMatchOf(req)))));
      },
    });

  const employeeLeaves = new Routes('/employees/:id/leaves').route('/', {
    get: async (req, res) => {
      const employee = await findLeaveEmployee(instanceOf(req).db, pathId(req.params.id, 'employee'));
      if (!employee) throw new NotFoundError({ detail: 'No such employee' });
      assertLeaveAccess(callerOf(req), employee, 'read', 'No such employee');
      const query = parseQuery(employeeLeaveQuery, req.query);
      sendJson(res, await leavePage(req, { employeeId: employee.id, from: query.from, to: query.to, status: query.status }, query));
    },
  });

  const holidays = new Routes('/holidays')
    .route('/', {
      get: async (req, res) => {
        const query = parseQuery(holidayListQuery, req.query);
        const country = query.country === undefined ? undefined : query.country === 'none' ? null : query.country.toUpperCase();
        const { rows, total } = await listHolidays(
          instanceOf(req).db,
          { from: query.from, to: query.to, country },
          offsetOf(query.page, query.limit),
          query.limit,
        );
        sendJson(res, toPage(rows.map(toHolidayResponse), total, query.page, query.limit));
      },
      post: async (req, res) => {
        requireAdmin(req, 'manage holidays');
        const body = requireJsonObject(req);
        const write = context(req);
        await sendWrite(req, res, write.now, async (trx) => {
          const holiday = await createHoliday(trx, body, write);
          return { status: 201, headers: { Location: `${req.baseUrl}/${holiday.id}` }, body: toHolidayResponse(holiday) };
        });
      },
    })
    .route('/import', {
      post: async (req, res) => {
        requireAdmin(req, 'manage holidays');
        const body = requireJsonObject(req);
        const write = context(req);
        await sendWrite(req, res, write.now, async (trx) => ({ status: 200, body: await importHolidays(trx, body, write) }));
      },
    })
    .route('/:id', {
      delete: async (req, res) => {
        requireAdmin(req, 'manage holidays');
        const id = pathId(req.params.id, 'holiday');
        const write = context(req);
        await sendWrite(req, res, write.now, async (trx) => ({ status: 200, body: await removeHoliday(trx, id, write) }));
      },
    });

  const settings = new Routes('/leave-settings').route('/', {
    get: async (req, res) => {
      sendJson(res, await readLeaveSettings(instanceOf(req).db));
    },
    put: async (req, res) => {
      requireAdmin(req, 'change the leave settings');
      const change = parseBody(leaveSettingsUpdate, requireJsonObject(req));
      const write = context(req);
      await sendWrite(req, res, write.now, async (trx) => ({ status: 200, body: await changeLeaveSettings(trx, change, write) }));
    },
  });

  return [types, leaves, employeeLeaves, holidays, settings];
}
