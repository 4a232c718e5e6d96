import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Clock } from '../clock';
import type { Db } from '../db/connect';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { callerOf, instanceOf } from '../http/context';
import { requireJsonObject } from '../http/json-body';
import { runWrite } from '../idempotency/idempotent';
import { offsetOf, paginationFields, toPage } from '../http/pagination';
import { parseFields, parseQuery } from '../http/parse';
import { route } from '../http/routes';
import { param, pathId } from '../http/params';
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
 * The reference tables: lists and rows for everyone, so clients can find valid ids for employee
 * fields; create, change and delete for admins, except the seeded countries and nationalities.
 */
export function registerLookupRoutes(app: FastifyInstance, { clock }: { clock: Clock }): void {
  for (const lookup of LOOKUP_TABLES) registerLookup(app, lookup, clock);
}

function registerLookup(app: FastifyInstance, lookup: LookupTable, clock: Clock): void {
  const filterFields = Object.fromEntries(
    Object.keys(lookup.filters).map((name) => [name, z.string().min(1).max(100).optional()]),
  );
  const listQuery = z.strictObject({ ...pagination, ...filterFields });

  const writes = LOOKUP_WRITES[lookup.path];
  route(app, `/${lookup.path}`, {
    ...(writes && { post: async (request, reply) => createRow(request, reply, lookup, writes, clock) }),
    get: async (request) => {
      const query = parseQuery(listQuery, request.query) as { limit: number; page: number } & Record<string, string | undefined>;
      const where: Record<string, string> = {};
      for (const [name, column] of Object.entries(lookup.filters)) {
        const value = query[name];
        if (value !== undefined) where[column] = name === 'country' ? value.toUpperCase() : value;
      }
      const { rows, total } = await listLookupRows(instanceOf(request).db, lookup, {
        where,
        limit: query.limit,
        offset: offsetOf(query.page, query.limit),
      });
      return toPage(rows.map(lookup.toResponse), total, query.page, query.limit);
    },
  });

  const update = writes && (async (request: FastifyRequest, reply: FastifyReply) => updateRow(request, reply, lookup, writes, clock));
  route(app, `/${lookup.path}/:key`, {
    get: async (request) => {
      const row = await findLookupRow(instanceOf(request).db, lookup, keyOf(lookup, param(request.params, 'key')));
      if (!row) throw new NotFoundError({ detail: `No such ${lookup.noun}` });
      return lookup.toResponse(row);
    },
    ...(writes && update && { put: update, patch: update, delete: async (request, reply) => deleteRow(request, reply, lookup, writes, clock) }),
  });
}

function assertAdmin(request: FastifyRequest, lookup: LookupTable): void {
  if (callerOf(request).role !== 'admin') throw new ForbiddenError({ detail: `Only admins may change ${lookup.path.replace(/-/g, ' ')}` });
}

async function parseWrite(
  db: Db,
  request: FastifyRequest,
  writes: LookupWrites,
  id: number | undefined,
  noun: string,
): Promise<Record<string, unknown>> {
  const { values, errors } = parseFields(writes.shape, requireJsonObject(request), { pathId: id, required: writes.required, noun: `a ${noun}` });
  errors.push(...(await writes.check(db, values, id)));
  if (errors.length > 0) throw new ValidationError(errors);
  return writes.toColumns(values);
}

async function createRow(request: FastifyRequest, reply: FastifyReply, lookup: LookupTable, writes: LookupWrites, clock: Clock) {
  assertAdmin(request, lookup);
  const instance = instanceOf(request);
  const columns = await parseWrite(instance.db, request, writes, undefined, lookup.noun);
  return runWrite(request, reply, clock, async (db) => {
    const id = await insertLookupRow(db, lookup, columns);
    instance.referenceNames.invalidate();
    const collection = request.url.split('?')[0]?.replace(/\/+$/, '');
    return { status: 201, headers: { Location: `${collection}/${id}` }, body: lookup.toResponse(await requireRow(db, lookup, id)) };
  });
}

async function updateRow(request: FastifyRequest, reply: FastifyReply, lookup: LookupTable, writes: LookupWrites, clock: Clock) {
  assertAdmin(request, lookup);
  const instance = instanceOf(request);
  const id = pathId(param(request.params, 'key'), lookup.noun);
  await requireRow(instance.db, lookup, id);
  const columns = await parseWrite(instance.db, request, writes, id, lookup.noun);
  return runWrite(request, reply, clock, async (db) => {
    await updateLookupRow(db, lookup, id, columns);
    instance.referenceNames.invalidate();
    return { status: 200, body: lookup.toResponse(await requireRow(db, lookup, id)) };
  });
}

async function deleteRow(request: FastifyRequest, reply: FastifyReply, lookup: LookupTable, writes: LookupWrites, clock: Clock) {
  assertAdmin(request, lookup);
  const instance = instanceOf(request);
  const id = pathId(param(request.params, 'key'), lookup.noun);
  await requireRow(instance.db, lookup, id);
  return runWrite(request, reply, clock, async (db) => {
    // Checked here for a clear answer; the foreign key still refuses a use that races this delete.
    const users = await countEmployeesUsing(db, writes.usedBy, id);
    if (users > 0) {
      throw new ConflictError({ code: 'in_use', detail: `${users} employee(s) still use this ${lookup.noun}; change them first` });
    }
    await deleteLookupRow(db, lookup, id);
    instance.referenceNames.invalidate();
    return { status: 200, body: { id: String(id) } };
  });
}

async function requireRow(db: Db, lookup: LookupTable, id: number): Promise<Record<string, unknown>> {
  const row = await findLookupRow(db, lookup, id);
  if (!row) throw new NotFoundError({ detail: `No such ${lookup.noun}` });
  return row;
}
