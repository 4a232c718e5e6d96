import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock';
import { NotFoundError } from '../errors';
import { callerEmployeeOf, callerOf, instanceOf } from '../http/context';
import { requireJsonObject } from '../http/json-body';
import { route } from '../http/routes';
import { assertMayCreateEmployees } from './access';
import { createEmployee } from './create-employee';
import { employeeReferenceNames, toEmployeeResponse } from './output';

export function registerEmployeeRoutes(app: FastifyInstance, { clock }: { clock: Clock }): void {
  // Before any /employees/:id route, so "me" is never taken for an id.
  route(
    app,
    '/employees/me',
    {
      get: async (request) => {
        const employee = callerEmployeeOf(request);
        if (!employee) throw new NotFoundError({ code: 'no_employee', detail: 'Your user is not linked to an employee record' });
        return toEmployeeResponse(employee, callerOf(request), await employeeReferenceNames(instanceOf(request), [employee]));
      },
    },
    { callerEmployee: true },
  );

  route(app, '/employees', {
    post: async (request, reply) => {
      const caller = callerOf(request);
      assertMayCreateEmployees(caller);
      const body = requireJsonObject(request);
      const instance = instanceOf(request);
      const { defaultTimezone } = await instance.settings.get();
      const employee = await createEmployee(instance.db, body, { now: clock.now(), defaultTimezone });
      const names = await employeeReferenceNames(instance, [employee]);
      const collection = request.url.split('?')[0]?.replace(/\/+$/, '');
      return reply.code(201).header('Location', `${collection}/${employee.id}`).send(toEmployeeResponse(employee, caller, names));
    },
  });
}
