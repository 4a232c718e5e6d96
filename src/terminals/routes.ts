import type { Request } from 'express';
import type { Clock } from '../clock';
import { retryConflicts } from '../db/retry-conflicts';
import { ForbiddenError, NotFoundError } from '../errors';
import { callerOf, instanceOf, requestIdOf } from '../http/context';
import { requireJsonObject } from '../http/json-body';
import { offsetOf } from '../http/pagination';
import { pathId } from '../http/params';
import { parseBody, parseQuery } from '../http/parse';
import { Routes } from '../http/routes';
import { sendJson } from '../http/send';
import { sendWrite } from '../http/write';
import { toSqlDateTimeSeconds } from '../db/sql-time';
import { forgetAttendancePages } from '../attendance/page-starts';
import { createDevice, createDeviceSchema, findDevice, listDevices, revokeDevice, toDeviceResponse } from './devices';
import { ingestPunchLogs, type Uploader } from './ingest';
import { listPunchLogs, MANUAL_DEVICE_ID, toPunchLogResponse } from './punch-log-repository';
import { punchLogBatchSchema, punchLogListQuery } from './schemas';

/** A batch of 1,000 entries is about 130 kB of JSON: the punch logs take bodies up to 1 MB. */
const PUNCH_LOG_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Attendance terminals: the devices (admins) and their punch logs (a device's token, or an admin
 * back-filling by hand). Device tokens reach no other route (requireBearer).
 */
export function terminalRoutes({ clock }: { clock: Clock }): Routes[] {
  const requireAdmin = (req: Request, what: string) => {
    if (callerOf(req).role !== 'admin') throw new ForbiddenError({ detail: `Only admins may ${what}` });
  };
  /** The device of a device token, else the admin behind a user's token. */
  const uploaderOf = (req: Request): Uploader => {
    if (req.device) return { deviceId: req.device.id, timezone: req.device.timezone, caller: undefined };
    requireAdmin(req, 'upload or read punch logs without a device token');
    return { deviceId: MANUAL_DEVICE_ID, timezone: undefined, caller: callerOf(req) };
  };

  const devices = new Routes('/attendance/devices')
    .route('/', {
      get: async (req, res) => {
        requireAdmin(req, 'manage attendance devices');
        const rows = await listDevices(instanceOf(req).db);
        sendJson(res, { data: rows.map(toDeviceResponse), total: rows.length, nextPage: null });
      },
      post: async (req, res) => {
        requireAdmin(req, 'manage attendance devices');
        const input = parseBody(createDeviceSchema, requireJsonObject(req));
        const instance = instanceOf(req);
        const now = clock.now();
        const { defaultTimezone } = await instance.settings.get();
        await sendWrite(req, res, now, async (trx) => {
          const { device, token } = await createDevice(trx, instance.signingKey, input, { now, defaultTimezone });
          return {
            status: 201,
            headers: { Location: `${req.baseUrl}/${device.id}` },
            body: { ...toDeviceResponse(device), token },
            secret: true,
          };
        });
      },
    })
    .route('/:id', {
      get: async (req, res) => {
        requireAdmin(req, 'manage attendance devices');
        const device = await findDevice(instanceOf(req).db, pathId(req.params.id, 'device'));
        if (!device) throw new NotFoundError({ detail: 'No such device' });
        sendJson(res, toDeviceResponse(device));
      },
      delete: async (req, res) => {
        requireAdmin(req, 'manage attendance devices');
        const id = pathId(req.params.id, 'device');
        const now = clock.now();
        await sendWrite(req, res, now, async (trx) => {
          if (!(await revokeDevice(trx, id, now))) throw new NotFoundError({ detail: 'No such device' });
          return { status: 200, body: { id: String(id) } };
        });
      },
    });

  const punchLogs = new Routes('/attendance/punch-logs').route(
    '/',
    {
      post: async (req, res) => {
        const uploader = uploaderOf(req);
        const { entries } = parseBody(punchLogBatchSchema, requireJsonObject(req));
        const instance = instanceOf(req);
        const now = clock.now();
        const context = { uploader, now, requestId: requestIdOf(req), ip: req.clientIp, settings: await instance.settings.get() };
        const write = async (trx: Parameters<typeof ingestPunchLogs>[0]) => ({
          status: 200,
          body: { results: await ingestPunchLogs(trx, entries, context) },
        });
        // A device's re-upload is safe by its log ids: it needs no Idempotency-Key (and has no user
        // to keep one for). Either way a batch that lost a conflict runs again whole (retryConflicts).
        const forgetPages = () => forgetAttendancePages(instance);
        if (req.device) {
          const { body } = await retryConflicts(() => instance.db.transaction(write));
          forgetPages();
          sendJson(res, body);
        } else await sendWrite(req, res, now, write, forgetPages);
      },
      get: async (req, res) => {
        const uploader = uploaderOf(req);
        const query = parseQuery(punchLogListQuery, req.query);
        const ownDevice = uploader.deviceId === MANUAL_DEVICE_ID ? undefined : uploader.deviceId;
        const asked = query.device === 'manual' ? MANUAL_DEVICE_ID : query.device;
        if (ownDevice !== undefined && asked !== undefined && asked !== ownDevice) {
          throw new ForbiddenError({ detail: 'A device may read only its own punch logs' });
        }
        const criteria = {
          deviceId: ownDevice ?? asked,
          employeeId: query.employee,
          result: query.result,
          from: query.from && toSqlDateTimeSeconds(query.from),
          to: query.to && toSqlDateTimeSeconds(query.to),
          beforeId: query.before,
        };
        const { rows, total, more } = await listPunchLogs(instanceOf(req).db, criteria, {
          limit: query.limit,
          offset: offsetOf(query.page, query.limit),
        });
        const data = rows.map(toPunchLogResponse);
        sendJson(res, { data, total, nextPage: more ? query.page + 1 : null, nextBefore: more ? (data.at(-1)?.id ?? null) : null });
      },
    },
    // Terminals upload with their device token; only this route accepts one.
    { bodyLimitBytes: PUNCH_LOG_BODY_LIMIT_BYTES, deviceToken: true, heavy: true },
  );

  return [devices, punchLogs];
}
