import type { Request, Response } from 'express';
import { z } from 'zod';
import type { Clock } from '../clock';
import type { Db } from '../db/connect';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { callerOf, instanceOf } from '../http/context';
import { requireJsonObject } from '../http/json-body';
import { offsetOf, paginationFields, toPage } from '../http/pagination';
import { pathId } from '../http/params';
import { parseFields, parseQuery } from '../http/parse';
import { Routes } from '../http/routes';
import { sendJson } from '../http/send';
import { sendWrite } from '../http/write';
import { referenceNamesOf } from './reference-names';
import { countEmployeesUsing, deleteLookupRow, findLookupRow, insertLookupRow, listLookupRows, updateLookupRow } from './repository';
import { LOOKUP_TABLES, type LookupTable } from './tables';
import { LOOKUP_WRITES, type LookupWrites } from './writes';

// Reference tables are small; one page holds all of a typical installation's rows.
const pagination = paginationFields({ defaultLimit: 500, maxLimit: 500 });

/** The row key from the path: a numeric id, or a two-letter code for countries. */
function keyOf(lookup: LookupTable, value: unknown): string | number {
  if (lookup.key === 'id') return pathId(value, lookup.noun);
  if (typeof value !== 'string' || !/^[A-Za-z]{2}$/.test(value)) throw new NotFoundError({ detail: `No such ${lookup.noun}` });
  return value.toUpperCase();
}

/**
 * The reference tables, each under its own prefix (/departments, ...): lists and rows for
 * everyone, so clients can find valid ids for employee fields; create, change and delete for
 * admins, except the seeded countries and nationalities.
 */
export function lookupRoutes({ clock }: { clock: Clock }): Routes[] {
  return LOOKUP_TABLES.map((lookup) => lookupTableRoutes(lookup, clock));
}

function lookupTableRoutes(lookup: LookupTable, clock: Clock): Routes {
  const filterFields = Object.fromEntries(Object.keys(lookup.filters).map((name) => [name, z.string().min(1).max(100).optional()]));
  const listQuery = z.strictObject({ ...pagination, ...filterFields });
  const writes = LOOKUP_WRITES[lookup.path];
  const update = writes && (async (req: Request, res: Response) => updateRow(req, res, lookup, writes, clock));

  return new Routes(`/${lookup.path}`)
    .route('/', {
      ...(writes && { post: async (req: Request, res: Response) => createRow(req, res, lookup, writes, clock) }),
      get: async (req, res) => {
        const query = parseQuery(listQuery, req.query) as { limit: number; page: number } & Record<string, string | undefined>;
        const where: Record<string, string> = {};
        for (const [name, column] of Object.entries(lookup.filters)) {
          const value = query[name];
          if (value !== undefined) where[column] = name === 'country' ? value.toUpperCase() : value;
        }
        const { rows, total } = await listLookupRows(instanceOf(req).db, lookup, {
          where,
          limit: query.limit,
          offset: offsetOf(query.page, query.limit),
        });
        sendJson(res, toPage(rows.map(lookup.toResponse), total, query.page, query.limit));
      },
    })
    .route('/:key', {
      get: async (req, res) => {
        const row = await findLookupRow(instanceOf(req).db, lookup, keyOf(lookup, req.params.key));
        if (!row) throw new NotFoundError({ detail: `No such ${lookup.noun}` });
        sendJson(res, lookup.toResponse(row));
      },
      ...(writes &&
        update && {
          put: update,
          patch: update,
          delete: async (req: Request, res: Response) => deleteRow(req, res, lookup, writes, clock),
        }),
    });
}

function assertAdmin(req: Request, lookup: LookupTable): void {
  if (callerOf(req).role !== 'admin') throw new ForbiddenError({ detail: `Only admins may change ${lookup.path.replace(/-/g, ' ')}` });
}

async function parseWrite(
  db: Db,
  req: Request,
  writes: LookupWrites,
  id: number | undefined,
  noun: string,
): Promise<Record<string, unknown>> {
  const { values, errors } = parseFields(writes.shape, requireJsonObject(req), {
    pathId: id,
    required: writes.required,
    noun: `a ${noun}`,
  });
  errors.push(...(await writes.check(db, values, id)));
  if (errors.length > 0) throw new ValidationError(errors);
  return writes.toColumns(values);
}

async function createRow(req: Request, res: Response, lookup: LookupTable, writes: LookupWrites, clock: Clock): Promise<void> {
  assertAdmin(req, lookup);
  const instance = instanceOf(req);
  const columns = await parseWrite(instance.db, req, writes, undefined, lookup.noun);
  await sendWrite(
    req,
    res,
    clock.now(),
    async (trx) => {
      const id = await insertLookupRow(trx, lookup, columns);
      return { status: 201, headers: { Location: `${req.baseUrl}/${id}` }, body: lookup.toResponse(await requireRow(trx, lookup, id)) };
    },
    () => referenceNamesOf(instance).invalidate(),
  );
}

async function updateRow(req: Request, res: Response, lookup: LookupTable, writes: LookupWrites, clock: Clock): Promise<void> {
  assertAdmin(req, lookup);
  const instance = instanceOf(req);
  const id = pathId(req.params.key, lookup.noun);
  await requireRow(instance.db, lookup, id);
  const columns = await parseWrite(instance.db, req, writes, id, lookup.noun);
  await sendWrite(
    req,
    res,
    clock.now(),
    async (trx) => {
      await updateLookupRow(trx, lookup, id, columns);
      return { status: 200, body: lookup.toResponse(await requireRow(trx, lookup, id)) };
    },
    () => referenceNamesOf(instance).invalidate(),
  );
}

async function deleteRow(req: Request, res: Response, lookup: LookupTable, writes: LookupWrites, clock: Clock): Promise<void> {
  assertAdmin(req, lookup);
  const instance = instanceOf(req);
  const id = pathId(req.params.key, lookup.noun);
  await requireRow(instance.db, lookup, id);
  await sendWrite(
    req,
    res,
    clock.now(),
    async (trx) => {
      // Checked here for a clear answer; the foreign key still refuses a use that races this delete.
      const users = await countEmployeesUsing(trx, writes.usedBy, id);
      if (users > 0) {
        throw new ConflictError({ code: 'in_use', detail: `${users} employee(s) still use this ${lookup.noun}; change them first` });
      }
      await deleteLookupRow(trx, lookup, id);
      return { status: 200, body: { id: String(id) } };
    },
    () => referenceNamesOf(instance).invalidate(),
  );
}

async function requireRow(db: Db, lookup: LookupTable, id: number): Promise<Record<string, unknown>> {
  const row = await findLookupRow(db, lookup, id);
  if (!row) throw new NotFoundError({ detail: `No such ${lookup.noun}` });
  return row;
}
