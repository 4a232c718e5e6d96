import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '../errors';
import { instanceOf } from '../http/context';
import { offsetOf, paginationFields, toPage } from '../http/pagination';
import { parseQuery } from '../http/parse';
import { route } from '../http/routes';
import { param, pathId } from '../http/params';
import { listLookupRows, findLookupRow } from './repository';
import { LOOKUP_TABLES, type LookupTable } from './tables';

// Reference tables are small; one page holds all of a typical installation's rows.
const pagination = paginationFields({ defaultLimit: 500, maxLimit: 500 });

/** The row key from the path: a numeric id, or a two-letter code for countries. */
function keyOf(lookup: LookupTable, value: unknown): string | number {
  if (lookup.key === 'id') return pathId(value, lookup.noun);
  if (typeof value !== 'string' || !/^[A-Za-z]{2}$/.test(value)) throw new NotFoundError({ detail: `No such ${lookup.noun}` });
  return value.toUpperCase();
}

/** Read-only lists of the reference tables, so clients can find valid ids for employee fields. */
export function registerLookupRoutes(app: FastifyInstance): void {
  for (const lookup of LOOKUP_TABLES) registerLookup(app, lookup);
}

function registerLookup(app: FastifyInstance, lookup: LookupTable): void {
  const filterFields = Object.fromEntries(
    Object.keys(lookup.filters).map((name) => [name, z.string().min(1).max(100).optional()]),
  );
  const listQuery = z.strictObject({ ...pagination, ...filterFields });

  route(app, `/${lookup.path}`, {
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

  route(app, `/${lookup.path}/:key`, {
    get: async (request) => {
      const row = await findLookupRow(instanceOf(request).db, lookup, keyOf(lookup, param(request.params, 'key')));
      if (!row) throw new NotFoundError({ detail: `No such ${lookup.noun}` });
      return lookup.toResponse(row);
    },
  });
}
