import type { Request, Response } from 'express';
import type { Knex } from 'knex';
import type { Clock } from '../clock';
import type { Db } from '../db/connect';
import { NotFoundError } from '../errors';
import { callerOf, instanceOf, requestIdOf } from '../http/context';
import { requireJsonObject } from '../http/json-body';
import { toPageJsonOf } from '../http/pagination';
import { pathId } from '../http/params';
import { parseQuery } from '../http/parse';
import { Routes } from '../http/routes';
import { sendJsonText } from '../http/send';
import { sendWrite } from '../http/write';
import { findVisibleEmployee } from './access';
import { createEmployee } from './create-employee';
import { deleteEmployee } from './delete-employee';
import { employeeListCacheOf, forgetEmployeeLists, listEmployees } from './list';
import { assertMayFilter, listEmployeesQuery } from './list-query';
import { employeeNames, toEmployeeListJson, toMeJson } from './output';
import { employeeAnswer, sendEmployee } from './entity-tags';
import { deletedEmployeesPage, deletionFeedQuery } from '../deletions/tombstones';
import { ifMatchOf } from '../http/conditional';
import { referenceNamesOf } from '../lookups/reference-names';
import type { EmployeeRecord } from '../employee-records/record';
import { updateEmployee, type WriteContext } from './update-employee';
import { employeeQuery, type FieldSelection, meQuery } from './field-selection';

/** /employees: the list, one employee, the caller's own (/employees/me), and the writes. */
export function employeeRoutes({ clock }: { clock: Clock }): Routes {
  const forgetLists = (req: Request) => () => forgetEmployeeLists(instanceOf(req));
  /** The context of an employee write; If-Match is parsed here and checked by the flow. */
  const writeContext = (req: Request): WriteContext => ({
    caller: callerOf(req),
    now: clock.now(),
    requestId: requestIdOf(req),
    ifMatch: ifMatchOf(req),
    names: referenceNamesOf(instanceOf(req)),
  });
  // `trx` is the write's transaction: the reference names are read on it if need be. The answer
  // carries the employee's ETag, as a GET would (docs/api.md, "Keeping a copy in sync").
  const answer = (req: Request, employee: EmployeeRecord, trx: Db) => employeeAnswer(instanceOf(req), callerOf(req), employee, trx);
  const update = async (req: Request, res: Response) => {
    const id = pathId(req.params.id, 'employee');
    const body = requireJsonObject(req);
    const context = writeContext(req);
    const write = async (trx: Knex.Transaction) => ({
      status: 200,
      ...(await answer(req, await updateEmployee(trx, id, body, context), trx)),
    });
    await sendWrite(req, res, context.now, write, forgetLists(req));
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
            const names = await employeeNames(referenceNamesOf(instanceOf(req)), [employee]);
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
            const { records, read, total, hasMore } = await listEmployees(instance.db, caller, query, employeeListCacheOf(instance));
            const data = await toEmployeeListJson(instance, read, records, caller, query.fields);
            sendJsonText(res, toPageJsonOf(data, total, query.page, hasMore));
          },
          post: async (req, res) => {
            const body = requireJsonObject(req);
            const { defaultTimezone } = await instanceOf(req).settings.get();
            const context = { ...writeContext(req), defaultTimezone };
            const write = async (trx: Knex.Transaction) => {
              const employee = await createEmployee(trx, body, context);
              const { headers, body: created } = await answer(req, employee, trx);
              return { status: 201, headers: { Location: `${req.baseUrl}/${employee.id}`, ...headers }, body: created };
            };
            await sendWrite(req, res, context.now, write, forgetLists(req));
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
          await sendEmployee(req, res, await findVisibleEmployee(instanceOf(req).db, callerOf(req), id), fields);
        },
        put: update,
        patch: update,
        delete: async (req, res) => {
          const id = pathId(req.params.id, 'employee');
          const context = writeContext(req);
          const write = async (trx: Knex.Transaction) => {
            await deleteEmployee(trx, id, context);
            return { status: 200, body: { id: String(id) } };
          };
          await sendWrite(req, res, context.now, write, forgetLists(req));
        },
      })
  );
}

/** The fields= of a one-employee read; a request without a query string (most of them) parses nothing. */
function selectionOf(req: Request, schema: typeof employeeQuery): FieldSelection | undefined {
  return req.url.includes('?') ? parseQuery(schema, req.query).fields : undefined;
}
