import type { Clock } from '../clock';
import type { Db } from '../db/connect';
import type { Instance } from '../instances/instance';

/** The reference tables whose names are shown as the `display` of reference objects. */
export const NAMED_TABLES = [
  'nationalities',
  'employment_statuses',
  'job_titles',
  'pay_grades',
  'provinces',
  'departments',
  'countries',
] as const;
export type NamedTable = (typeof NAMED_TABLES)[number];

export interface NameLookup {
  /** The name of row `key` (an id, or a country code) of `table`; null if there is none. */
  name(table: NamedTable, key: number | string): string | null;
}

type Names = Map<NamedTable, Map<string, string>>;

/** How long names are trusted before a request triggers a re-read in the background. */
const REFERENCE_NAMES_TTL_MS = 2000;

/**
 * The names of the reference tables, held in memory so that reading an employee needs no join
 * per reference. The tables are small and rarely renamed; a rename made by another process shows
 * within about two seconds. A row this process has not seen yet (just created elsewhere) makes it
 * re-read at once rather than answer a null display.
 */
class ReferenceNames {
  private names: Names | undefined;
  private readAt = 0;
  private reading: Promise<Names> | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ttlMs = REFERENCE_NAMES_TTL_MS,
  ) {}

  /**
   * A lookup that knows every key in `wanted`, re-reading the tables if one is missing. Inside a
   * transaction pass it as `db`: a read that must wait happens on it (SQLite has one connection).
   */
  async lookup(wanted: Array<[NamedTable, number | string]>, db: Db = this.db): Promise<NameLookup> {
    let names = this.names ?? (await this.read(db));
    if (this.clock.now().getTime() - this.readAt >= this.ttlMs) {
      // Stale: answer with what we have and refresh for the next request; a failed refresh is
      // retried by the next request after this one.
      this.read(this.db).catch(() => undefined);
    }
    if (wanted.some(([table, key]) => !names.get(table)?.has(String(key)))) names = await this.read(db);
    return { name: (table, key) => names.get(table)?.get(String(key)) ?? null };
  }

  /** Forget the names, after this process renamed or added a row itself. */
  invalidate(): void {
    this.names = undefined;
  }

  private read(db: Db): Promise<Names> {
    this.reading ??= this.load(db).finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async load(db: Db): Promise<Names> {
    const startedAt = this.clock.now().getTime();
    const tables = await Promise.all(
      NAMED_TABLES.map(async (table) => {
        const key = table === 'countries' ? 'code' : 'id';
        const rows: Array<{ key: number | string; name: string }> = await db(table).select(`${key} as key`, 'name');
        return [table, new Map(rows.map((row) => [String(row.key), row.name]))] as const;
      }),
    );
    this.names = new Map(tables);
    this.readAt = startedAt;
    return this.names;
  }
}

const namesOf = new WeakMap<Instance, ReferenceNames>();

/** The instance's reference names: one cache per instance, forgotten by this module's writers. */
export function referenceNamesOf(instance: Instance): ReferenceNames {
  let names = namesOf.get(instance);
  if (!names) namesOf.set(instance, (names = new ReferenceNames(instance.db, instance.clock)));
  return names;
}

/**
 * The names of `wanted` as they are in `db` (a write's transaction): one primary-key read per
 * reference, for an event that must carry the names of its moment rather than the cache's.
 */
export async function readReferenceNames(db: Db, wanted: ReadonlyArray<[NamedTable, number | string]>): Promise<NameLookup> {
  const names = new Map<string, string>();
  for (const [table, key] of wanted) {
    const row: { name: string } | undefined = await db(table)
      .where(table === 'countries' ? 'code' : 'id', key)
      .first('name');
    if (row) names.set(`${table}:${key}`, row.name);
  }
  return { name: (table, key) => names.get(`${table}:${key}`) ?? null };
}
