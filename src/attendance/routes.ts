import type { Request, Response } from 'express';
import type { Clock } from '../clock';
import { BadRequestError, NotFoundError } from '../errors';
import { callerOf, instanceOf, requestIdOf } from '../http/context';
import { optionalJsonObject, requireJsonObject } from '../http/json-body';
import { toPage } from '../http/pagination';
import { pathId } from '../http/params';
import { parseQuery } from '../http/parse';
import { Routes } from '../http/routes';
import { sendJson, sendJsonText } from '../http/send';
import { entityTag, ifMatchOf, sendJsonWithEntityTag } from '../http/conditional';
import { deletedAttendancePage, deletionFeedQuery } from '../deletions/tombstones';
import { sendWrite } from '../http/write';
import { isCalendarDate, todayIn, wallClockIn } from '../time';
import { assertAttendanceAccess } from './access';
import { correctAttendance, createAttendance, deleteAttendanceRecord } from './corrections';
import { attendancePageStartsOf, forgetAttendancePages } from './page-starts';
import { attendanceJson, toAttendanceResponse } from './output';
import { punchIn, punchOut } from './punch';
import { type AttendanceCriteria, listAttendance } from './list-repository';
import {
  type AttendanceEmployee,
  findAttendance,
  findAttendanceEmployee,
  findAttendanceEmployeeId,
  findOpenAttendance,
} from './repository';
import { attendanceListQuery, attendanceSummaryQuery, employeeAttendanceQuery } from './schemas';
import { summarizeAttendance } from './summary';
import type { AttendanceWriteContext } from './writes';

/**
 * Attendance, under three prefixes: the records (/attendance), an employee's records and summary
 * (/employees/{id}/attendance), and IceHrm's paths for the same (/employee/{id}/...).
 */
export function attendanceRoutes({ clock }: { clock: Clock }): Routes[] {
  const forgetPages = (req: Request) => () => forgetAttendancePages(instanceOf(req));
  const listPage = async (req: Request, criteria: AttendanceCriteria, query: { page: number; limit: number }) => {
    const instance = instanceOf(req);
    const starts = attendancePageStartsOf(instance);
    const question = JSON.stringify([
      criteria.employeeId,
      criteria.from,
      criteria.to,
      criteria.open,
      criteria.updatedSince?.getTime(),
      callerOf(req).role === 'admin' ? 'all' : callerOf(req).employeeId,
      criteria.visibleTo !== undefined,
    ]);
    const { records, total, first, next } = await listAttendance(instance.db, criteria, { ...query, start: starts.get(question, query) });
    starts.remember(question, query, first, next);
    return toPage(records.map(toAttendanceResponse), total, query.page, query.limit, next !== undefined);
  };
  const writeContext = async (req: Request): Promise<AttendanceWriteContext> => ({
    caller: callerOf(req),
    now: clock.now(),
    requestId: requestIdOf(req),
    ip: req.clientIp,
    settings: await instanceOf(req).settings.get(),
  });
  /** `<base>/attendance/<id>`, from the path of a request under `<base>/attendance`. */
  const recordLocation = (req: Request, id: number) => `${req.baseUrl}/${id}`;
  /** The employee of a path, when the caller may see their attendance; else 404 as if missing. */
  const visibleEmployee = async (req: Request): Promise<AttendanceEmployee> => {
    const id = pathId(req.params.id, 'employee');
    const employee = await findAttendanceEmployee(instanceOf(req).db, id);
    if (!employee) throw new NotFoundError({ detail: 'No such employee' });
    assertAttendanceAccess(callerOf(req), employee, 'read', 'No such employee');
    return employee;
  };

  const correct = async (req: Request, res: Response) => {
    const id = pathId(req.params.id, 'attendance record');
    const body = requireJsonObject(req);
    const context = await writeContext(req);
    // Read before the write's transaction: the transaction must lock the employee first.
    const employeeId = await findAttendanceEmployeeId(instanceOf(req).db, id);
    await sendWrite(
      req,
      res,
      context.now,
      async (trx) => {
        const json = attendanceJson(await correctAttendance(trx, { id, employeeId }, body, context, ifMatchOf(req)));
        return { status: 200, headers: { ETag: entityTag(instanceOf(req).entityTagKey, json) }, body: JSON.parse(json) as unknown };
      },
      forgetPages(req),
    );
  };

  const records = new Routes('/attendance')
    // Before /:id, so that a reader of this list sees the fixed paths first.
    .route('/punch-in', {
      post: async (req, res) => {
        const body = optionalJsonObject(req);
        const context = await writeContext(req);
        await sendWrite(
          req,
          res,
          context.now,
          async (trx) => {
            const record = await punchIn(trx, body, context);
            return { status: 201, headers: { Location: recordLocation(req, record.id) }, body: toAttendanceResponse(record) };
          },
          forgetPages(req),
        );
      },
    })
    .route('/punch-out', {
      post: async (req, res) => {
        const body = optionalJsonObject(req);
        const context = await writeContext(req);
        await sendWrite(
          req,
          res,
          context.now,
          async (trx) => ({ status: 200, body: toAttendanceResponse(await punchOut(trx, body, context)) }),
          forgetPages(req),
        );
      },
    })
    .route(
      '/',
      {
        get: async (req, res) => {
          const query = parseQuery(attendanceListQuery, req.query);
          const criteria = {
            visibleTo: callerOf(req),
            employeeId: query.employee,
            from: query.from,
            to: query.to,
            open: query.open,
            updatedSince: query.updated_since,
          };
          sendJson(res, await listPage(req, criteria, query));
        },
        post: async (req, res) => {
          const body = requireJsonObject(req);
          const context = await writeContext(req);
          await sendWrite(
            req,
            res,
            context.now,
            async (trx) => {
              const record = await createAttendance(trx, body, context);
              return { status: 201, headers: { Location: recordLocation(req, record.id) }, body: toAttendanceResponse(record) };
            },
            forgetPages(req),
          );
        },
      },
      { heavy: true },
    )
    // Before /:id, which would take it for a record's id.
    .route('/deleted', {
      get: async (req, res) => {
        const query = parseQuery(deletionFeedQuery, req.query);
        sendJsonText(res, await deletedAttendancePage(instanceOf(req).db, callerOf(req), query));
      },
    })
    .route('/:id', {
      get: async (req, res) => {
        const id = pathId(req.params.id, 'attendance record');
        const found = await findAttendance(instanceOf(req).db, id);
        if (!found) throw new NotFoundError({ detail: 'No such attendance record' });
        assertAttendanceAccess(callerOf(req), found.employee, 'read', 'No such attendance record');
        const json = attendanceJson(found.record);
        sendJsonWithEntityTag(req, res, json, entityTag(instanceOf(req).entityTagKey, json));
      },
      put: correct,
      patch: correct,
      delete: async (req, res) => {
        const id = pathId(req.params.id, 'attendance record');
        const context = await writeContext(req);
        // Read before the write's transaction, as for a correction.
        const employeeId = await findAttendanceEmployeeId(instanceOf(req).db, id);
        await sendWrite(
          req,
          res,
          context.now,
          async (trx) => {
            await deleteAttendanceRecord(trx, { id, employeeId }, context, ifMatchOf(req));
            return { status: 200, body: { id: String(id) } };
          },
          forgetPages(req),
        );
      },
    });

  const employeeAttendance = async (req: Request, res: Response) => {
    const employee = await visibleEmployee(req);
    const query = parseQuery(employeeAttendanceQuery, req.query);
    sendJson(res, await listPage(req, { employeeId: employee.id, from: query.from, to: query.to }, query));
  };

  const ofEmployee = new Routes('/employees/:id/attendance').route('/', { get: employeeAttendance }).route('/summary', {
    get: async (req, res) => {
      const employee = await visibleEmployee(req);
      const range = parseQuery(attendanceSummaryQuery, req.query);
      sendJson(res, await summarizeAttendance(instanceOf(req).db, employee, range, clock.now()));
    },
  });

  // IceHrm's paths.
  const iceHrm = new Routes('/employee/:id').route('/attendance', { get: employeeAttendance }).route('/open-punch-in/:date', {
    get: async (req, res) => {
      const day = openPunchDay(req.params.date);
      const employee = await visibleEmployee(req);
      const now = clock.now();
      const date = day === 'today' ? todayIn(employee.timezone, now) : day;
      // The open record, if it began on or before that date: a night shift that began yesterday
      // is still the open punch-in today (IceHrm matches the in_time date exactly).
      const open = await findOpenAttendance(instanceOf(req).db, employee.id);
      const record = open && open.in_time_local.slice(0, 10) <= date ? { ...open, employeeDisplay: employee.display } : undefined;
      sendJson(res, { attendance: record ? toAttendanceResponse(record) : null, time: wallClockIn(employee.timezone, now) });
    },
  });

  return [records, ofEmployee, iceHrm];
}

/** `today` or a calendar date; anything else (2026-02-30, yesterday) is a malformed request: 400. */
function openPunchDay(value: unknown): string {
  if (value === 'today' || (typeof value === 'string' && isCalendarDate(value))) return value;
  throw new BadRequestError({
    code: 'invalid_query',
    title: 'Invalid query parameters',
    detail: 'date must be a date YYYY-MM-DD or today',
    errors: [{ field: 'date', message: 'must be a date YYYY-MM-DD or today' }],
  });
}
