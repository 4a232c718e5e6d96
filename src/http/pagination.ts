import { z } from 'zod';

interface Page<T> {
  data: T[];
  total: number;
  /** page + 1 while more rows exist, null on the last page (IceHrm: always page + 1). */
  nextPage: number | null;
}

/**
 * Query values are text, and only plain decimal digits are taken as a number: "0x10", "1e3",
 * " 5" or "5.0" stay text and fail as not a number.
 */
const decimal = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : value), schema);

/** `limit` and `page` query parameters as zod fields, for a list whose largest page is `maxLimit`. */
export function paginationFields(options: { defaultLimit: number; maxLimit: number }) {
  const limitError = `must be a whole number from 1 to ${options.maxLimit}`;
  return {
    limit: decimal(
      z.number({ error: limitError }).int({ error: limitError }).min(1, { error: limitError }).max(options.maxLimit, { error: limitError }),
    )
      .default(options.defaultLimit)
      .meta({ format: 'int32' }),
    page: decimal(
      z
        .number({ error: 'must be a whole number from 1' })
        .int({ error: 'must be a whole number from 1' })
        .min(1, { error: 'must be a whole number from 1' })
        .max(1_000_000, { error: 'must be at most 1000000' }),
    )
      .default(1)
      .meta({ format: 'int32' }),
  };
}

export function offsetOf(page: number, limit: number): number {
  return (page - 1) * limit;
}

/** `hasMore` says whether rows follow this page; by default the total decides. */
export function toPage<T>(data: T[], total: number, page: number, limit: number, hasMore = page * limit < total): Page<T> {
  return { data, total, nextPage: nextPageOf(page, hasMore) };
}

/** The same page as JSON text, from its items already written as JSON (see sendJsonText). */
export function toPageJson(items: string[], total: number, page: number, hasMore: boolean): string {
  return toPageJsonOf(`[${items.join(',')}]`, total, page, hasMore);
}

/** The same page as JSON text, from its `data` array already written as JSON. */
export function toPageJsonOf(data: string, total: number, page: number, hasMore: boolean): string {
  return `{"data":${data},"total":${total},"nextPage":${nextPageOf(page, hasMore) ?? 'null'}}`;
}

function nextPageOf(page: number, hasMore: boolean): number | null {
  return hasMore ? page + 1 : null;
}
