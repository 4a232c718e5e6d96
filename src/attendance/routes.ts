import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock';
import { NotFoundError } from '../errors';
import { callerOf, instanceOf } from '../http/context';
import { optionalJsonObject, requireJsonObject } from '../http/json-body';
import { toPage } from '../http/pagination';
import { param, pathId } from '../http/params';
import { parseQuery } from '../http/parse';
import { route } from '../http/routes';
import { runWrite } from '../idempotency/idempotent';
import { isCalendarDate, todayIn, wallClockIn } from '../time';
import { assertAttendanceAccess } from './access';
import { correctAttendance, createAttendance, deleteAttendanceRecord } from './corrections';
import { toAttendanceResponse } from './output';
import { punchIn, punchOut } from './punch';
import { type AttendanceEmployee, findAttendance, findAttendanceEmployee, findAttendanceEmployeeId, findOpenAttendance, listAttendance } from './repository';
import { attendanceListQuery, attendanceSummaryQuery, employeeAttendanceQuery } from './schemas';
import { summarizeAttendance } from './summary';
import type { AttendanceWriteContext } from './writes';

export function registerAttendanceRoutes(app: FastifyInstance, { clock }: { clock: Clock }): void {
  const writeContext = async (request: FastifyRequest): Promise<AttendanceWriteContext> => ({
    caller: callerOf(request),
    now: clock.now(),
    requestId: request.id,
    ip: request.ip,
    settings: await instanceOf(request).settings.get(),
  });
  /** `<base>/attendance/<id>`, from the path of a request under `<base>/attendance`. */
  const recordLocation = (request: FastifyRequest, id: number) => {
    const path = request.url.split('?')[0] ?? '';
    return `${path.slice(0, path.lastIndexOf('/attendance'))}/attendance/${id}`;
  };
  /** The employee of a path, when the caller may see their attendance; else 404 as if missing. */
  const visibleEmployee = async (request: FastifyRequest): Promise<AttendanceEmployee> => {
    const id = pathId(param(request.params, 'id'), 'employee');
    const employee = await findAttendanceEmployee(instanceOf(request).db, id);
    if (!employee) throw new NotFoundError({ detail: 'No such employee' });
    assertAttendanceAccess(callerOf(request), employee, 'read', 'No such employee');
    return employee;
  };

  // Before /attendance/:id, so that a reader of this list sees the fixed paths first (Fastify's
  // router would prefer them anyway).
  route(app, '/attendance/punch-in', {
    post: async (request, reply) => {
      const body = optionalJsonObject(request);
      const context = await writeContext(request);
      return runWrite(request, reply, clock, async (db) => {
        const record = await punchIn(db, body, context);
        return { status: 201, headers: { Location: recordLocation(request, record.id) }, body: toAttendanceResponse(record) };
      });
    },
  });

  route(app, '/attendance/punch-out', {
    post: async (request, reply) => {
      const body = optionalJsonObject(request);
      const context = await writeContext(request);
      return runWrite(request, reply, clock, async (db) => ({ status: 200, body: toAttendanceResponse(await punchOut(db, body, context)) }));
    },
  });

  route(app, '/attendance', {
    get: async (request) => {
      const query = parseQuery(attendanceListQuery, request.query);
      const criteria = { visibleTo: callerOf(request), employeeId: query.employee, from: query.from, to: query.to, open: query.open };
      const { records, total } = await listAttendance(instanceOf(request).db, criteria, query);
      return toPage(records.map(toAttendanceResponse), total, query.page, query.limit);
    },
    post: async (request, reply) => {
      const body = requireJsonObject(request);
      const context = await writeContext(request);
      return runWrite(request, reply, clock, async (db) => {
        const record = await createAttendance(db, body, context);
        return { status: 201, headers: { Location: recordLocation(request, record.id) }, body: toAttendanceResponse(record) };
      });
    },
  });

  const correct = async (request: FastifyRequest, reply: FastifyReply) => {
    const id = pathId(param(request.params, 'id'), 'attendance record');
    const body = requireJsonObject(request);
    const context = await writeContext(request);
    // Read before the write's transaction: the transaction must lock the employee first.
    const employeeId = await findAttendanceEmployeeId(instanceOf(request).db, id);
    return runWrite(request, reply, clock, async (db) => ({
      status: 200,
      body: toAttendanceResponse(await correctAttendance(db, { id, employeeId }, body, context)),
    }));
  };

  route(app, '/attendance/:id', {
    get: async (request) => {
      const id = pathId(param(request.params, 'id'), 'attendance record');
      const found = await findAttendance(instanceOf(request).db, id);
      if (!found) throw new NotFoundError({ detail: 'No such attendance record' });
      assertAttendanceAccess(callerOf(request), found.employee, 'read', 'No such attendance record');
      return toAttendanceResponse(found.record);
    },
    put: correct,
    patch: correct,
    delete: async (request, reply) => {
      const id = pathId(param(request.params, 'id'), 'attendance record');
      const context = await writeContext(request);
      return runWrite(request, reply, clock, async (db) => {
        await deleteAttendanceRecord(db, id, context);
        return { status: 200, body: { id: String(id) } };
      });
    },
  });

  const employeeAttendance = async (request: FastifyRequest) => {
    const employee = await visibleEmployee(request);
    const query = parseQuery(employeeAttendanceQuery, request.query);
    const criteria = { employeeId: employee.id, from: query.from, to: query.to };
    const { records, total } = await listAttendance(instanceOf(request).db, criteria, query);
    return toPage(records.map(toAttendanceResponse), total, query.page, query.limit);
  };
  route(app, '/employees/:id/attendance', { get: employeeAttendance });
  // IceHrm's path.
  route(app, '/employee/:id/attendance', { get: employeeAttendance });

  route(app, '/employees/:id/attendance/summary', {
    get: async (request) => {
      const employee = await visibleEmployee(request);
      const range = parseQuery(attendanceSummaryQuery, request.query);
      return summarizeAttendance(instanceOf(request).db, employee, range, clock.now());
    },
  });

  route(app, '/employee/:id/open-punch-in/:date', {
    get: async (request) => {
      const employee = await visibleEmployee(request);
      const now = clock.now();
      const date = openPunchDate(param(request.params, 'date'), employee, now);
      // The open record, if it began on or before that date: a night shift that began yesterday
      // is still the open punch-in today (IceHrm matches the in_time date exactly).
      const open = await findOpenAttendance(instanceOf(request).db, employee.id);
      const record = open && open.in_time_local.slice(0, 10) <= date ? { ...open, employeeDisplay: employee.display } : undefined;
      return { attendance: record ? toAttendanceResponse(record) : null, time: wallClockIn(employee.timezone, now) };
    },
  });
}

/** `today` (in the employee's zone) or a date; anything else names nothing: 404. */
function openPunchDate(value: unknown, employee: AttendanceEmployee, now: Date): string {
  if (value === 'today') return todayIn(employee.timezone, now);
  if (typeof value === 'string' && isCalendarDate(value)) return value;
  throw new NotFoundError({ detail: 'The date must be YYYY-MM-DD or today' });
}
