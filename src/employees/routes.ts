import type { Request, Response } from 'express';
import type { Clock } from '../clock';
import type { Db } from '../db/connect';
import { NotFoundError } from '../errors';
import { callerOf, instanceOf, requestIdOf } from '../http/context';
import { requireJsonObject } from '../http/json-body';
import { toPage } from '../http/pagination';
import { pathId } from '../http/params';
import { parseQuery } from '../http/parse';
import { Routes } from '../http/routes';
import { sendJson, sendJsonText } from '../http/send';
import { sendWrite } from '../http/write';
import { findVisibleEmployee } from './access';
import { createEmployee } from './create-employee';
import { deleteEmployee } from './delete-employee';
import { employeeListCacheOf, forgetEmployeeLists, listEmployees } from './list';
import { assertMayFilter, listEmployeesQuery } from './list-query';
import { employeeReferenceNames, toEmployeeJson, toEmployeeViews, toMeJson } from './output';
import { employeeAnswer, employeePrecondition, employeeStateJson } from './entity-tags';
import { deletedEmployeesPage, deletionFeedQuery } from '../deletions/tombstones';
import { ifMatchOf, sendJsonWithEntityTag } from '../http/conditional';
import type { EmployeeRecord } from '../employee-records/record';
import { updateEmployee } from './update-employee';
import { employeeQuery, type FieldSelection, meQuery } from './field-selection';

/** /employees: the list, one employee, the caller's own (/employees/me), and the writes. */
export function employeeRoutes({ clock }: { clock: Clock }): Routes {
  const forgetLists = (req: Request) => () => forgetEmployeeLists(instanceOf(req));

  // `db` is the write's transaction: the reference names are read on it if need be. The answer
  // carries the employee's ETag, as a GET would (docs/api.md, "Keeping a copy in sync").
  const respond = (req: Request, employee: EmployeeRecord, db: Db) => employeeAnswer(instanceOf(req), callerOf(req), employee, db);
  const send = async (req: Request, res: Response, employee: EmployeeRecord, selection?: FieldSelection) => {
    const names = await employeeReferenceNames(instanceOf(req), [employee]);
    sendJsonWithEntityTag(req, res, toEmployeeJson(employee, callerOf(req), names, selection), employeeStateJson(employee, names));
  };
  const writeContext = (req: Request) => ({ caller: callerOf(req), now: clock.now(), requestId: requestIdOf(req) });
  /** The context of a write of one employee, with the request's If-Match checked in its transaction. */
  const conditionalContext = (req: Request, trx: Db, context: ReturnType<typeof writeContext>) => ({
    ...context,
    precondition: employeePrecondition(instanceOf(req), ifMatchOf(req), trx),
  });
  const update = async (req: Request, res: Response) => {
    const id = pathId(req.params.id, 'employee');
    const body = requireJsonObject(req);
    const context = writeContext(req);
    await sendWrite(
      req,
      res,
      context.now,
      async (trx) => ({
        status: 200,
        ...(await respond(req, await updateEmployee(trx, id, body, conditionalContext(req, trx, context)), trx)),
      }),
      forgetLists(req),
    );
  };

  return (
    new Routes('/employees')
      // Before /:id, so that "me" is never taken for an id.
      .route(
        '/me',
        {
          get: async (req, res) => {
            const fields = selectionOf(req, meQuery);
            const employee = req.callerEmployee;
            if (!employee) throw new NotFoundError({ code: 'no_employee', detail: 'Your user is not linked to an employee record' });
            const names = await employeeReferenceNames(instanceOf(req), [employee]);
            sendJsonText(res, toMeJson(employee, callerOf(req), names, clock.now(), fields));
          },
        },
        { callerEmployee: true },
      )
      .route(
        '/',
        {
          get: async (req, res) => {
            const query = parseQuery(listEmployeesQuery, req.query);
            const caller = callerOf(req);
            assertMayFilter(caller, query);
            const instance = instanceOf(req);
            const { records, total, hasMore } = await listEmployees(instance.db, caller, query, employeeListCacheOf(instance));
            const views = await toEmployeeViews(instance, records, caller, query.fields);
            sendJson(res, toPage(views, total, query.page, query.limit, hasMore));
          },
          post: async (req, res) => {
            const body = requireJsonObject(req);
            const { defaultTimezone } = await instanceOf(req).settings.get();
            const context = { ...writeContext(req), defaultTimezone };
            await sendWrite(
              req,
              res,
              context.now,
              async (trx) => {
                const employee = await createEmployee(trx, body, context);
                const { headers, body: created } = await respond(req, employee, trx);
                return { status: 201, headers: { Location: `${req.baseUrl}/${employee.id}`, ...headers }, body: created };
              },
              forgetLists(req),
            );
          },
        },
        { heavy: true },
      )
      // Before /:id, as /me.
      .route('/deleted', {
        get: async (req, res) => {
          const query = parseQuery(deletionFeedQuery, req.query);
          sendJsonText(res, await deletedEmployeesPage(instanceOf(req).db, callerOf(req), query));
        },
      })
      .route('/:id', {
        get: async (req, res) => {
          const id = pathId(req.params.id, 'employee');
          const fields = selectionOf(req, employeeQuery);
          await send(req, res, await findVisibleEmployee(instanceOf(req).db, callerOf(req), id), fields);
        },
        put: update,
        patch: update,
        delete: async (req, res) => {
          const id = pathId(req.params.id, 'employee');
          const context = writeContext(req);
          await sendWrite(
            req,
            res,
            context.now,
            async (trx) => {
              await deleteEmployee(trx, id, conditionalContext(req, trx, context));
              return { status: 200, body: { id: String(id) } };
            },
            forgetLists(req),
          );
        },
      })
  );
}

/** The fields= of a one-employee read; a request without a query string (most of them) parses nothing. */
function selectionOf(req: Request, schema: typeof employeeQuery): FieldSelection | undefined {
  return req.url.includes('?') ? parseQuery(schema, req.query).fields : undefined;
}
