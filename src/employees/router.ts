import { Router } from 'express';
import type { Clock } from '../clock';
import { NotFoundError } from '../errors';
import { callerOf, instanceOf } from '../http/context';
import { requireJsonObject } from '../http/json-body';
import { route } from '../http/routes';
import { assertMayCreateEmployees } from './access';
import { createEmployee } from './create-employee';
import { toEmployeeResponse } from './output';
import { findEmployeeById } from './repository';

export function employeesRouter({ clock }: { clock: Clock }): Router {
  const router = Router();

  // Before any /employees/:id route, so "me" is never taken for an id.
  route(router, '/employees/me', {
    get: async (_req, res) => {
      const caller = callerOf(res);
      const employee = caller.employeeId === null ? undefined : await findEmployeeById(instanceOf(res).db, caller.employeeId);
      if (!employee) throw new NotFoundError({ code: 'no_employee', detail: 'Your user is not linked to an employee record' });
      res.json(toEmployeeResponse(employee, caller));
    },
  });

  route(router, '/employees', {
    post: async (req, res) => {
      const caller = callerOf(res);
      assertMayCreateEmployees(caller);
      const body = requireJsonObject(req);
      const { db, settings } = instanceOf(res);
      const { defaultTimezone } = await settings.get();
      const employee = await createEmployee(db, body, { now: clock.now(), defaultTimezone });
      res.status(201).location(`${req.baseUrl}/employees/${employee.id}`).json(toEmployeeResponse(employee, caller));
    },
  });

  return router;
}
