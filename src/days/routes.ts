import { z } from 'zod';
import type { Clock } from '../clock';
import { DAY_STATUSES } from '../day-rules/types';
import { NotFoundError } from '../errors';
import { callerOf, instanceOf } from '../http/context';
import { idSchema } from '../http/field-schemas';
import { paginationFields, toPage } from '../http/pagination';
import { pathId } from '../http/params';
import { parseQuery } from '../http/parse';
import { Routes } from '../http/routes';
import { sendJson } from '../http/send';
import { daysBetween, isCalendarDate } from '../time';
import { findDayEmployee, readDays, readDaysPage, toDayResponse } from './read-days';

/** The longest range GET /employees/{id}/days answers. */
export const MAX_DAYS = 62;

const queryDate = z
  .string({ error: 'must be a date YYYY-MM-DD' })
  .refine(isCalendarDate, { error: 'must be a real date YYYY-MM-DD' })
  .meta({ format: 'date' });

export const employeeDaysQuery = z
  .strictObject({ from: queryDate, to: queryDate.meta({ description: `At most ${MAX_DAYS} days from from, both included` }) })
  .superRefine((query, context) => {
    const days = daysBetween(query.from, query.to);
    if (days < 0) context.addIssue({ code: 'custom', path: ['to'], message: 'must not be before from' });
    else if (days >= MAX_DAYS)
      context.addIssue({
        code: 'custom',
        path: ['to'],
        message: `must be at most ${MAX_DAYS - 1} days after from (${MAX_DAYS} days, both included)`,
      });
  });

export const daysListQuery = z.strictObject({
  date: queryDate,
  status: z.enum(DAY_STATUSES, { error: `must be one of ${DAY_STATUSES.join(', ')}` }).optional(),
  department: idSchema('a department').optional(),
  ...paginationFields({ defaultLimit: 50, maxLimit: 200 }),
});

/** GET /employees/{id}/days and GET /days (CONTRACT 6.7): day statuses, computed at the read, with the visibility of attendance. */
export function dayRoutes({ clock }: { clock: Clock }): Routes[] {
  const ofEmployee = new Routes('/employees/:id/days').route('/', {
    get: async (req, res) => {
      const id = pathId(req.params.id, 'employee');
      const { db } = instanceOf(req);
      const employee = await findDayEmployee(db, callerOf(req), id);
      if (!employee) throw new NotFoundError({ detail: 'No such employee' });
      const query = parseQuery(employeeDaysQuery, req.query);
      const days = (await readDays(db, [employee], query, clock.now())).get(employee.id) ?? [];
      sendJson(
        res,
        toPage(
          days.map((day) => toDayResponse(employee, day)),
          days.length,
          1,
          Math.max(days.length, 1),
        ),
      );
    },
  });
  const all = new Routes('/days').route(
    '/',
    {
      get: async (req, res) => {
        const query = parseQuery(daysListQuery, req.query);
        const { db } = instanceOf(req);
        const { rows, total } = await readDaysPage(db, callerOf(req), query, clock.now());
        sendJson(res, toPage(rows, total, query.page, query.limit));
      },
    },
    { heavy: true },
  );
  return [ofEmployee, all];
}
