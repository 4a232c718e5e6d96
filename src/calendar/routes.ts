import { createHash, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import type { Clock } from '../clock';
import { findAttendanceEmployee } from '../attendance/repository';
import { canSeeEmployee } from '../employees/access';
import { NotFoundError } from '../errors';
import { answeredNotModified, entityTag } from '../http/conditional';
import { callerOf, instanceOf } from '../http/context';
import { toPage } from '../http/pagination';
import { pathId } from '../http/params';
import { Routes } from '../http/routes';
import { sendJson, sendText } from '../http/send';
import { sendWrite } from '../http/write';
import { addDays, todayIn } from '../time';
import { feedDaysOff } from './days-off';
import { calendarText } from './ics';
import { deleteFeed, feedShifts, findFeedEmployee, insertFeed, listFeeds } from './repository';

// Calendar feeds (CONTRACT 6.7, docs/schedules.md "Calendar feeds"): an employee's shifts as an
// RFC 5545 calendar, with their approved leave and holidays, behind a secret URL, for calendar
// clients that send no bearer token.

/** Days before and after today (the employee's) a feed shows. */
const DAYS_BACK = 30;
const DAYS_AHEAD = 90;

const FILE_PATTERN = /^([A-Za-z0-9_-]{43})\.ics$/;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** /employees/{id}/calendar-feeds: the employee, their managers and admins. */
export function calendarFeedRoutes({ clock }: { clock: Clock }): Routes {
  const visibleEmployee = async (req: Request) => {
    const id = pathId(req.params.id, 'employee');
    const employee = await findAttendanceEmployee(instanceOf(req).db, id);
    if (!employee || !canSeeEmployee(callerOf(req), employee)) throw new NotFoundError({ detail: 'No such employee' });
    return employee;
  };
  return new Routes('/employees/:id/calendar-feeds')
    .route('/', {
      get: async (req, res) => {
        const employee = await visibleEmployee(req);
        const feeds = await listFeeds(instanceOf(req).db, employee.id);
        const rows = feeds.map((feed) => ({ id: String(feed.id), created_at: feed.created_at }));
        sendJson(res, toPage(rows, rows.length, 1, Math.max(rows.length, 1)));
      },
      post: async (req, res) => {
        const employee = await visibleEmployee(req);
        const now = clock.now();
        // The API's base, from this request's path: <base>/employees/<id>/calendar-feeds.
        const base = req.baseUrl.slice(0, req.baseUrl.length - `/employees/${req.params.id}/calendar-feeds`.length);
        await sendWrite(req, res, now, async (trx) => {
          const token = randomBytes(32).toString('base64url');
          const feed = await insertFeed(trx, employee.id, hashOf(token), now);
          const url = `${req.protocol}://${req.get('host') ?? 'localhost'}${base}/calendar/${token}.ics`;
          // The token is shown in this answer only: an Idempotency-Key replay must not store it.
          return { status: 201, body: { id: String(feed.id), url, created_at: feed.created_at }, secret: true };
        });
      },
    })
    .route('/:feed', {
      delete: async (req, res) => {
        const employee = await visibleEmployee(req);
        const id = pathId(req.params.feed, 'calendar feed');
        await sendWrite(req, res, clock.now(), async (trx) => {
          if (!(await deleteFeed(trx, employee.id, id))) throw new NotFoundError({ detail: 'No such calendar feed' });
          return { status: 200, body: { id: String(id) } };
        });
      },
    });
}

/** GET /calendar/{token}.ics: no bearer token, behind the settings gate; unknown and revoked tokens alike 404. */
export function calendarRoutes({ clock }: { clock: Clock }): Routes {
  return new Routes('/calendar').route('/:file', {
    get: async (req, res) => {
      const token = FILE_PATTERN.exec(String(req.params.file))?.[1];
      const { db, entityTagKey } = instanceOf(req);
      const employee = token === undefined ? undefined : await findFeedEmployee(db, hashOf(token));
      if (!employee) throw new NotFoundError({ detail: 'No such calendar' });
      const today = todayIn(employee.timezone, clock.now());
      const from = addDays(today, -DAYS_BACK);
      let to = addDays(today, DAYS_AHEAD);
      // Nothing after the termination date.
      if (employee.termination_date !== null && employee.termination_date < to) to = employee.termination_date;
      const [shifts, daysOff] =
        to < from ? [[], []] : await Promise.all([feedShifts(db, employee.id, from, to), feedDaysOff(db, employee.id, from, to)]);
      const text = calendarText(shifts, daysOff);
      if (answeredNotModified(req, res, entityTag(entityTagKey, text))) return;
      sendText(res, 200, 'text/calendar; charset=utf-8', text);
    },
  });
}
