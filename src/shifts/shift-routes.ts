import type { Request, Response } from 'express';
import type { Clock } from '../clock';
import { canSeeEmployee } from '../employees/access';
import { findAttendanceEmployee } from '../attendance/repository';
import { deletionFeedQuery } from '../deletions/tombstones';
import { NotFoundError, ValidationError } from '../errors';
import { entityTag, ifMatchOf, sendJsonWithEntityTag } from '../http/conditional';
import { callerOf, instanceOf, requestIdOf } from '../http/context';
import { isPlainObject } from '../http/field-schemas';
import { requireJsonObject } from '../http/json-body';
import { offsetOf, toPage } from '../http/pagination';
import { pathId } from '../http/params';
import { parseQuery } from '../http/parse';
import { Routes } from '../http/routes';
import { sendJson, sendJsonText } from '../http/send';
import { sendWrite } from '../http/write';
import { switchShifts } from './publishing';
import { mayReadShift } from './shift-access';
import { deletedShiftsPage } from './shift-deletions';
import type { ShiftWriteContext } from './shift-guards';
import { type Shift, shiftJson, toShiftResponse } from './shift-model';
import { employeeShiftsQuery, shiftListQuery } from './shift-queries';
import { findShift, listShifts, type ShiftCriteria } from './shift-repository';
import { assignShift, changeShift, createShifts, MAX_BATCH, removeShift } from './shift-writes';

/** A batch of 500 shifts is more than BODY_LIMIT's default 100 kB. */
const BATCH_BODY_BYTES = 1024 * 1024;

/** /shifts, /employees/{id}/shifts and /employees/me/shifts (CONTRACT 6.7). */
export function shiftRoutes({ clock }: { clock: Clock }): Routes[] {
  const writeContext = async (req: Request): Promise<ShiftWriteContext> => ({
    caller: callerOf(req),
    now: clock.now(),
    requestId: requestIdOf(req),
    defaultTimezone: (await instanceOf(req).settings.get()).defaultTimezone,
  });
  const withTag = (req: Request, shift: Shift) => {
    const json = shiftJson(shift);
    return { headers: { ETag: entityTag(instanceOf(req).entityTagKey, json) }, body: JSON.parse(json) as unknown };
  };
  const listed = async (req: Request, res: Response, criteria: ShiftCriteria, query: { page: number; limit: number }) => {
    const { shifts, total } = await listShifts(instanceOf(req).db, criteria, {
      offset: offsetOf(query.page, query.limit),
      limit: query.limit,
    });
    sendJson(res, toPage(shifts.map(toShiftResponse), total, query.page, query.limit));
  };
  /** The employee id of a shift before the write's transaction (which locks the employee first); 404 when there is none. */
  const employeeOfShift = async (req: Request, id: number) => {
    const found = await findShift(instanceOf(req).db, id);
    if (!found || !mayReadShift(callerOf(req), found)) throw new NotFoundError({ detail: 'No such shift' });
    return found.employee_id;
  };
  const change = async (req: Request, res: Response) => {
    const id = pathId(req.params.id, 'shift');
    const body = requireJsonObject(req);
    const context = await writeContext(req);
    const employeeId = await employeeOfShift(req, id);
    await sendWrite(req, res, context.now, async (trx) => ({
      status: 200,
      ...withTag(req, await changeShift(trx, id, employeeId, body, context, ifMatchOf(req))),
    }));
  };
  const switchTo = (target: 'published' | 'draft') => async (req: Request, res: Response) => {
    const body = requireJsonObject(req);
    const context = await writeContext(req);
    await sendWrite(req, res, context.now, async (trx) => ({ status: 200, body: await switchShifts(trx, body, context, target) }));
  };

  const shifts = new Routes('/shifts')
    .route(
      '/',
      {
        get: async (req, res) => {
          const query = parseQuery(shiftListQuery, req.query);
          const criteria: ShiftCriteria = {
            visibleTo: callerOf(req),
            employeeId: query.employee,
            from: query.from,
            to: query.to,
            departmentId: query.department,
            status: query.status,
            open: query.open,
            updatedSince: query.updated_since,
          };
          await listed(req, res, criteria, query);
        },
        post: async (req, res) => {
          const body = requireJsonObject(req);
          const context = await writeContext(req);
          const batch = Object.hasOwn(body, 'shifts');
          const bodies = batch ? batchOf(body) : [body];
          await sendWrite(req, res, context.now, async (trx) => {
            const created = await createShifts(trx, bodies, context, { batch });
            if (batch) return { status: 201, body: { data: created.map(toShiftResponse) } };
            const [shift] = created as [Shift];
            const tagged = withTag(req, shift);
            return { status: 201, headers: { ...tagged.headers, Location: `${req.baseUrl}/${shift.id}` }, body: tagged.body };
          });
        },
      },
      { bodyLimitBytes: BATCH_BODY_BYTES },
    )
    // The fixed paths before /:id, which would take them for an id.
    .route('/deleted', {
      get: async (req, res) => {
        const query = parseQuery(deletionFeedQuery, req.query);
        sendJsonText(res, await deletedShiftsPage(instanceOf(req).db, callerOf(req), query));
      },
    })
    .route('/publish', { post: switchTo('published') })
    .route('/unpublish', { post: switchTo('draft') })
    .route('/:id', {
      get: async (req, res) => {
        const found = await findShift(instanceOf(req).db, pathId(req.params.id, 'shift'));
        if (!found || !mayReadShift(callerOf(req), found)) throw new NotFoundError({ detail: 'No such shift' });
        const json = shiftJson(found);
        sendJsonWithEntityTag(req, res, json, entityTag(instanceOf(req).entityTagKey, json));
      },
      put: change,
      patch: change,
      delete: async (req, res) => {
        const id = pathId(req.params.id, 'shift');
        const context = await writeContext(req);
        const employeeId = await employeeOfShift(req, id);
        await sendWrite(req, res, context.now, async (trx) => ({
          status: 200,
          body: await removeShift(trx, id, employeeId, context, ifMatchOf(req)),
        }));
      },
    })
    .route('/:id/assign', {
      post: async (req, res) => {
        const id = pathId(req.params.id, 'shift');
        const body = requireJsonObject(req);
        const context = await writeContext(req);
        await employeeOfShift(req, id);
        await sendWrite(req, res, context.now, async (trx) => ({
          status: 200,
          ...withTag(req, await assignShift(trx, id, body, context, ifMatchOf(req))),
        }));
      },
    });

  const mine = new Routes('/employees/me/shifts').route('/', {
    get: async (req, res) => {
      const query = parseQuery(employeeShiftsQuery, req.query);
      const employeeId = callerOf(req).employeeId;
      if (employeeId === null) throw new NotFoundError({ code: 'no_employee', detail: 'Your user is not linked to an employee record' });
      await listed(req, res, { visibleTo: callerOf(req), employeeId, from: query.from, to: query.to }, query);
    },
  });
  const ofEmployee = new Routes('/employees/:id/shifts').route('/', {
    get: async (req, res) => {
      const id = pathId(req.params.id, 'employee');
      const employee = await findAttendanceEmployee(instanceOf(req).db, id);
      if (!employee || !canSeeEmployee(callerOf(req), employee)) throw new NotFoundError({ detail: 'No such employee' });
      const query = parseQuery(employeeShiftsQuery, req.query);
      await listed(req, res, { visibleTo: callerOf(req), employeeId: id, from: query.from, to: query.to }, query);
    },
  });
  return [shifts, mine, ofEmployee];
}

/** `{"shifts": [...]}`: 1 to 500 objects; nothing else in the body. */
function batchOf(body: Record<string, unknown>): Array<Record<string, unknown>> {
  const errors = Object.keys(body)
    .filter((key) => key !== 'shifts')
    .map((field) => ({ field, message: 'is not a known field (a batch holds only "shifts")' }));
  const list = body.shifts;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_BATCH)
    errors.push({ field: 'shifts', message: `must be a list of 1 to ${MAX_BATCH} shifts` });
  else list.forEach((item, index) => isPlainObject(item) || errors.push({ field: `shifts.${index}`, message: 'must be an object' }));
  if (errors.length > 0) throw new ValidationError(errors);
  return list as Array<Record<string, unknown>>;
}
