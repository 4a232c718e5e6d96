import type { Request, Response } from 'express';
import type { Caller } from '../caller';
import type { Clock } from '../clock';
import { ForbiddenError } from '../errors';
import { answeredNotModified } from '../http/conditional';
import { callerOf, instanceOf, requestIdOf } from '../http/context';
import { requireJsonObject } from '../http/json-body';
import { offsetOf, toPage } from '../http/pagination';
import { pathId } from '../http/params';
import { parseQuery } from '../http/parse';
import { Routes } from '../http/routes';
import { sendJson } from '../http/send';
import { responseSink } from '../http/stream';
import { sendWrite } from '../http/write';
import { reopenForRules } from '../period-guard/reopen';
import { adjustmentVersions, writeAdjustment } from './adjustments';
import { approveTimesheet, reopenTimesheet, visibleSheetEmployee } from './approvals';
import { exportEtag, exportProfileOf, sendExportHeaders, writeExport } from './export';
import { ExportBudget } from './export-budget';
import { lockInTwoSteps, lockPayPeriod, unlockPayPeriod } from './lock';
import { listPeriods, periodListRange, settingsAndPeriod } from './periods';
import { exportQuery, lockQuery, periodListQuery, periodQuery, timesheetListQuery } from './schemas';
import { applySettingsBody, payPeriodSettingsResponse, readPayPeriodSettings, readPeriodGroup, savePayPeriodSettings } from './settings';
import { forgetSheetTotals, timesheetPage } from './sheet-list';
import { findSheet, sheetResponse } from './timesheets';

function assertAdmin(caller: Caller, what: string): void {
  if (caller.role !== 'admin') throw new ForbiddenError({ detail: `Only admins may ${what}` });
}

/**
 * Pay periods and timesheets (docs/pay-periods.md): the settings, the periods, their lock and
 * export (/pay-periods), each employee's timesheet and its approval
 * (/employees/{id}/timesheets/{start}), and a period's timesheets of everyone visible (/timesheets).
 */
export function payPeriodRoutes({
  clock,
  exportConcurrency,
  exportProcessConcurrency,
}: {
  clock: Clock;
  exportConcurrency: number;
  exportProcessConcurrency: number;
}): Routes[] {
  const exports = new ExportBudget(exportConcurrency, exportProcessConcurrency);
  const writeContext = (req: Request) => ({ caller: callerOf(req), now: clock.now(), requestId: requestIdOf(req) });
  /** POST .../approve and .../reopen of /employees/{id}/timesheets/{start}. */
  const changeTimesheet =
    (change: typeof approveTimesheet) =>
    async (req: Request, res: Response): Promise<void> => {
      const id = pathId(req.params.id, 'employee');
      const context = writeContext(req);
      await sendWrite(
        req,
        res,
        context.now,
        async (trx) => ({ status: 200, body: await change(trx, id, String(req.params.start), context) }),
        forgetTotals(req),
      );
    };
  /** After a write that may change a list's total (an approval, a lock, the settings). */
  const forgetTotals = (req: Request) => () => forgetSheetTotals(instanceOf(req));

  const periods = new Routes('/pay-periods')
    .route('/settings', {
      get: async (req, res) => {
        assertAdmin(callerOf(req), 'read the pay-period settings');
        sendJson(res, payPeriodSettingsResponse(await readPayPeriodSettings(instanceOf(req).db)));
      },
      put: async (req, res) => {
        assertAdmin(callerOf(req), 'change the pay-period settings');
        const body = requireJsonObject(req);
        const context = writeContext(req);
        await sendWrite(
          req,
          res,
          context.now,
          async (trx) => {
            const before = await readPayPeriodSettings(trx);
            const after = applySettingsBody(before, body);
            await savePayPeriodSettings(trx, before, after, context);
            // At the write, as for attendance: approvals whose numbers the new rules change reopen.
            // Group 1's settings are its own employees' periods and rules (docs/pay-periods.md, "Groups").
            if (JSON.stringify(before) !== JSON.stringify(after)) await reopenForRules(trx, after, context, { groupId: 1 });
            return { status: 200, body: payPeriodSettingsResponse(after) };
          },
          forgetTotals(req),
        );
      },
    })
    .route('/', {
      get: async (req, res) => {
        const caller = callerOf(req);
        if (caller.role === 'employee') throw new ForbiddenError({ detail: 'Only admins and managers may list pay periods' });
        const query = parseQuery(periodListQuery, req.query);
        const range = periodListRange(query, clock.now().toISOString().slice(0, 10));
        const db = instanceOf(req).db;
        const all = await listPeriods(db, (await readPeriodGroup(db, query.group)).settings, range, query.group);
        const offset = offsetOf(query.page, query.limit);
        sendJson(res, toPage(all.slice(offset, offset + query.limit), all.length, query.page, query.limit));
      },
    })
    .route('/:start', {
      get: async (req, res) => {
        const caller = callerOf(req);
        if (caller.role === 'employee') throw new ForbiddenError({ detail: 'Only admins and managers may read pay periods' });
        const { group } = parseQuery(periodQuery, req.query);
        sendJson(res, (await settingsAndPeriod(instanceOf(req).db, group, req.params.start)).period);
      },
    })
    .route('/:start/lock', {
      post: async (req, res) => {
        assertAdmin(callerOf(req), 'lock pay periods');
        const query = parseQuery(lockQuery, req.query);
        const instance = instanceOf(req);
        const context = { ...writeContext(req), defaultTimezone: (await instance.settings.get()).defaultTimezone };
        const options = { requireApproved: query.require_approved === true, allowOpenRecords: query.allow_open_records === true };
        const start = String(req.params.start);
        await lockInTwoSteps(
          instance.db,
          start,
          { ...context, ...options },
          () =>
            sendWrite(
              req,
              res,
              context.now,
              async (trx) => ({ status: 200, body: await lockPayPeriod(trx, start, { ...context, ...options }, query.group) }),
              forgetTotals(req),
            ),
          query.group,
        );
      },
    })
    .route('/:start/unlock', {
      post: async (req, res) => {
        assertAdmin(callerOf(req), 'unlock pay periods');
        const { group } = parseQuery(periodQuery, req.query);
        const context = writeContext(req);
        await sendWrite(
          req,
          res,
          context.now,
          async (trx) => ({
            status: 200,
            body: await unlockPayPeriod(trx, String(req.params.start), context, group),
          }),
          forgetTotals(req),
        );
      },
    })
    .route(
      '/:start/export',
      {
        get: async (req, res) => {
          assertAdmin(callerOf(req), 'export pay periods');
          const query = parseQuery(exportQuery, req.query);
          const { format } = query;
          const instance = instanceOf(req);
          const { group, period } = await settingsAndPeriod(instance.db, query.group, req.params.start);
          const profile = await exportProfileOf(instance.db, query.profile, group);
          const since = query.since_version;
          // An adjustment (?since_version=N): 409 while open, 404 for a version the period never had.
          const versions = since === undefined ? undefined : await adjustmentVersions(instance.db, period, since, group.id);
          const etag = await exportEtag(instance.db, instance.entityTagKey, period, group, format, profile, since);
          if (answeredNotModified(req, res, etag)) return;
          const giveBack = exports.take(instance);
          try {
            sendExportHeaders(res, period, group, format, profile, since);
            if (req.method !== 'HEAD') {
              if (versions) await writeAdjustment(instance.db, period, versions, format, responseSink(res), group, profile);
              else await writeExport(instance.db, period, group, format, responseSink(res), profile);
            }
            res.end();
          } finally {
            giveBack();
          }
        },
      },
      { heavy: true },
    );

  const ofEmployee = new Routes('/employees/:id/timesheets')
    .route('/:start', {
      get: async (req, res) => {
        const db = instanceOf(req).db;
        // The timesheet is of the employee's pay group: `start` must start one of its periods.
        const employee = await visibleSheetEmployee(db, callerOf(req), pathId(req.params.id, 'employee'));
        const { settings, period } = await settingsAndPeriod(db, employee.group_id, req.params.start);
        sendJson(res, sheetResponse(await findSheet(db, employee, period, settings), period, true));
      },
    })
    .route('/:start/approve', { post: changeTimesheet(approveTimesheet) })
    .route('/:start/reopen', { post: changeTimesheet(reopenTimesheet) });

  const timesheets = new Routes('/timesheets').route(
    '/',
    {
      get: async (req, res) => {
        const query = parseQuery(timesheetListQuery, req.query);
        sendJson(res, await timesheetPage(instanceOf(req), callerOf(req), query));
      },
    },
    { heavy: true },
  );

  return [periods, ofEmployee, timesheets];
}
