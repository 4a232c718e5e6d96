import type { Clock } from '../clock';
import type { Db } from '../db/connect';
import type { Instance } from '../instances/instance';

/** The reference tables whose names are shown as the `display` of reference objects. */
export const NAMED_TABLES = [
  'nationalities',
  'employment_statuses',
  'job_titles',
  'pay_grades',
  'pay_groups',
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

/** Which read of the names a render was given: one object per read of the tables. */
export type NamesSnapshot = object;

/** How long names are trusted before a request reads them again. */
const REFERENCE_NAMES_TTL_MS = 2000;

/**
 * The names of the reference tables, held in memory so that reading an employee needs no join
 * per reference. The tables are small and rarely renamed; a rename made by another process shows
 * within about two seconds. A row this process has not seen yet (just created elsewhere) makes it
 * read them again at once rather than answer a null display.
 *
 * Every read runs for a request, on the handle it passes, and the requests that need names
 * meanwhile on the same handle wait for that read. None runs in the background: in cloud mode an
 * idle or moved instance's pool is closed once no request holds it, and a read left on it waited
 * out the pool's acquire timeout, with every request that joined it.
 */
class ReferenceNames {
  private names: Names | undefined;
  private readAt = 0;
  private reading: { db: Db; names: Promise<Names> } | undefined;
  /** Counts invalidate() calls. */
  private generation = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ttlMs = REFERENCE_NAMES_TTL_MS,
  ) {}

  /**
   * A lookup that knows every key in `wanted`, reading the tables again when they are older than
   * the TTL or one is missing. Inside a transaction pass it as `db`: the read then happens on it
   * (SQLite has one connection).
   */
  async lookup(wanted: Array<[NamedTable, number | string]>, db: Db = this.db): Promise<NameLookup> {
    const cached = this.fresh();
    let names = cached ?? (await this.read(db));
    if (cached && wanted.some(([table, key]) => !cached.get(table)?.has(String(key)))) names = await this.read(db);
    return lookupIn(names);
  }

  /**
   * What `render` makes with the names, as lookup() would give them, without listing the wanted
   * keys first: when it asked for a key the cached names lack, they are read again and it runs
   * once more. A list of 50 employees asks for hundreds of keys, each checked only as it is used.
   */
  async render<T>(render: (names: NameLookup, snapshot: NamesSnapshot) => T, db: Db = this.db): Promise<T> {
    const cached = this.fresh();
    if (cached) {
      let missed = false;
      const lookup: NameLookup = {
        name: (table, key) => {
          const name = cached.get(table)?.get(String(key));
          if (name !== undefined) return name;
          missed = true;
          return null;
        },
      };
      const rendered = render(lookup, cached);
      if (!missed) return rendered;
    }
    const names = await this.read(db);
    return render(lookupIn(names), names);
  }

  private fresh(): Names | undefined {
    return this.names !== undefined && this.clock.now().getTime() - this.readAt < this.ttlMs ? this.names : undefined;
  }

  /** Forget the names, after this process renamed or added a row itself. */
  invalidate(): void {
    this.names = undefined;
    this.reading = undefined;
    this.generation += 1;
  }

  /** The names read on `db`: the read already running on it, or a new one. */
  private read(db: Db): Promise<Names> {
    if (this.reading?.db === db) return this.reading.names;
    const reading = { db, names: this.load(db) };
    this.reading = reading;
    const done = () => {
      if (this.reading === reading) this.reading = undefined;
    };
    reading.names.then(done, done);
    return reading.names;
  }

  /** Every named table in one query (one connection, one round trip). */
  private async load(db: Db): Promise<Names> {
    const startedAt = this.clock.now().getTime();
    const generation = this.generation;
    const [first, ...others] = NAMED_TABLES.map((table) =>
      db(table).select(db.raw('? as ??', [table, 'table_name']), `${table === 'countries' ? 'code' : 'id'} as key`, 'name'),
    );
    const rows: Array<{ table_name: NamedTable; key: number | string; name: string }> = await first!.unionAll(others);
    const names: Names = new Map(NAMED_TABLES.map((table) => [table, new Map<string, string>()]));
    for (const row of rows) names.get(row.table_name)?.set(String(row.key), row.name);
    // A read begun before invalidate() answers its own request but is not kept.
    if (generation === this.generation) {
      this.names = names;
      this.readAt = startedAt;
    }
    return names;
  }
}

function lookupIn(names: Names): NameLookup {
  return { name: (table, key) => names.get(table)?.get(String(key)) ?? null };
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
