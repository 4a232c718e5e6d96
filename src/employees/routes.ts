import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock';
import type { Db } from '../db/connect';
import { NotFoundError } from '../errors';
import { callerEmployeeOf, callerOf, instanceOf } from '../http/context';
import { runWrite } from '../idempotency/idempotent';
import { requireJsonObject } from '../http/json-body';
import { sendJsonText } from '../http/json-text';
import { toPageJson } from '../http/pagination';
import { pathId, param } from '../http/params';
import { parseQuery } from '../http/parse';
import { route } from '../http/routes';
import { assertMayCreateEmployees, findVisibleEmployee } from './access';
import { createEmployee } from './create-employee';
import { deleteEmployee } from './delete-employee';
import { listEmployees } from './list';
import { assertMayFilter, listEmployeesQuery } from './list-query';
import { employeeReferenceNames, toEmployeeJson, toEmployeeResponse, toMeJson } from './output';
import type { EmployeeRecord } from './repository';
import { updateEmployee } from './update-employee';

export function registerEmployeeRoutes(app: FastifyInstance, { clock }: { clock: Clock }): void {
  // `db` is the write's transaction when there is one: the names are read on it if need be.
  const respond = async (request: FastifyRequest, employee: EmployeeRecord, db?: Db) =>
    toEmployeeResponse(employee, callerOf(request), await employeeReferenceNames(instanceOf(request), [employee], db));
  const send = async (request: FastifyRequest, reply: FastifyReply, employee: EmployeeRecord) =>
    sendJsonText(reply, toEmployeeJson(employee, callerOf(request), await employeeReferenceNames(instanceOf(request), [employee])));
  const writeContext = (request: FastifyRequest) => ({ caller: callerOf(request), now: clock.now(), requestId: request.id });

  // Before /employees/:id, so "me" is never taken for an id.
  route(
    app,
    '/employees/me',
    {
      get: async (request, reply) => {
        const employee = callerEmployeeOf(request);
        if (!employee) throw new NotFoundError({ code: 'no_employee', detail: 'Your user is not linked to an employee record' });
        const names = await employeeReferenceNames(instanceOf(request), [employee]);
        return sendJsonText(reply, toMeJson(employee, callerOf(request), names, clock.now()));
      },
    },
    { callerEmployee: true },
  );

  route(app, '/employees', {
    get: async (request, reply) => {
      const query = parseQuery(listEmployeesQuery, request.query);
      const caller = callerOf(request);
      assertMayFilter(caller, query);
      const instance = instanceOf(request);
      const { records, total, hasMore } = await listEmployees(instance.db, caller, query, instance.employeeLists);
      const names = await employeeReferenceNames(instance, records);
      const items = records.map((record) => toEmployeeJson(record, caller, names));
      return sendJsonText(reply, toPageJson(items, total, query.page, hasMore));
    },
    post: async (request, reply) => {
      assertMayCreateEmployees(callerOf(request));
      const body = requireJsonObject(request);
      const { defaultTimezone } = await instanceOf(request).settings.get();
      return runWrite(request, reply, clock, async (db) => {
        const employee = await createEmployee(db, body, { ...writeContext(request), defaultTimezone });
        instanceOf(request).employeeLists.clear();
        const collection = request.url.split('?')[0]?.replace(/\/+$/, '');
        return { status: 201, headers: { Location: `${collection}/${employee.id}` }, body: await respond(request, employee, db) };
      });
    },
  });

  const update = async (request: FastifyRequest, reply: Parameters<typeof runWrite>[1]) => {
    const id = pathId(param(request.params, 'id'), 'employee');
    const body = requireJsonObject(request);
    return runWrite(request, reply, clock, async (db) => {
      const employee = await updateEmployee(db, id, body, writeContext(request));
      instanceOf(request).employeeLists.clear();
      return { status: 200, body: await respond(request, employee, db) };
    });
  };

  route(app, '/employees/:id', {
    get: async (request, reply) => {
      const id = pathId(param(request.params, 'id'), 'employee');
      return send(request, reply, await findVisibleEmployee(instanceOf(request).db, callerOf(request), id));
    },
    put: update,
    patch: update,
    delete: async (request, reply) => {
      const id = pathId(param(request.params, 'id'), 'employee');
      return runWrite(request, reply, clock, async (db) => {
        await deleteEmployee(db, id, writeContext(request));
        instanceOf(request).employeeLists.clear();
        return { status: 200, body: { id: String(id) } };
      });
    },
  });
}
