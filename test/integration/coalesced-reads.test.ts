import { batchedLookup, preparedListRead } from '../../src/db/coalesced-reads';
import { testDialects } from '../helpers/databases';
import { countingConnections } from '../helpers/query-count';
import { createEmployee } from '../helpers/factories';
import { useTestApp } from '../helpers/test-app';

// The two coalescers of src/db/coalesced-reads.ts share one query between callers asking at once;
// no caller may change what another request answers: a list read's rows and a lookup's row are
// shaped once and frozen (a change throws), and shared.
describe.each(testDialects())('coalesced reads on %s', (dialect) => {
  const t = useTestApp(dialect);
  const shares = dialect === 'mysql';
  let ids: number[];
  beforeAll(async () => {
    ids = [];
    for (let index = 0; index < 3; index++) ids.push(await createEmployee(t, { first_name: `Owner${index}` }));
  });

  const countingQueries = <T>(work: () => Promise<T>) => countingConnections(t.db, work);

  /** Changes every row a caller got, as a careless field transform would. */
  const scribble = (rows: Array<Record<string, unknown>>) => {
    for (const row of rows) {
      row.first_name = 'changed';
      row.added = true;
    }
  };

  it('gives the callers of one shared list read its rows shaped once and frozen: a change by one throws and reaches no other', async () => {
    const sql = 'select `e`.`id`, `e`.`first_name` from `employees` as `e` where `e`.`id` >= ? order by `e`.`id` asc limit ?';
    const values = [ids[0], shares ? '3' : 3];
    let shaped = 0;
    const shape = (row: Record<string, unknown>) => {
      shaped++;
      row.names = { first: row.first_name };
    };

    // The first goes at once; the three asked while it is out share the next query.
    const { result, queries } = await countingQueries(() =>
      Promise.all([1, 2, 3, 4].map(() => preparedListRead(t.db, sql, values, shape))),
    );
    const [first, second, third, fourth] = result as [(typeof result)[0], (typeof result)[0], (typeof result)[0], (typeof result)[0]];

    expect(() => scribble(second as Array<Record<string, unknown>>)).toThrow(TypeError);
    expect(() => ((second[0]!.names as Record<string, unknown>).first = 'changed')).toThrow(TypeError);
    expect(queries).toBe(shares ? 2 : 4);
    expect(shaped).toBe(shares ? 6 : 12);
    const expected = ids.map((id, index) => ({ id, first_name: `Owner${index}`, names: { first: `Owner${index}` } }));
    for (const rows of [first, second, third, fourth]) expect(rows.map((row) => ({ ...row, id: Number(row.id) }))).toEqual(expected);
    if (shares) expect(third).toBe(second);
  });

  it('gives the callers of one batched lookup its row shaped once and frozen: a change by one throws and reaches no other', async () => {
    let shaped = 0;
    const lookup = batchedLookup(
      (db, keys) => db('employees').whereIn('id', keys).select('id', 'first_name'),
      (row) => Number(row.id),
      (row) => {
        shaped++;
        row.names = { first: row.first_name };
      },
    );

    // The first goes at once; the other four (two of each key) wait and go together.
    const { result, queries } = await countingQueries(() =>
      Promise.all([ids[0]!, ids[0]!, ids[0]!, ids[1]!, ids[1]!].map((id) => lookup(t.db, id))),
    );
    const rows = result.map((row) => row! as Record<string, unknown>);

    expect(() => scribble([rows[1]!])).toThrow(TypeError);
    expect(() => ((rows[3]!.names as Record<string, unknown>).first = 'changed')).toThrow(TypeError);
    expect(queries).toBe(2);
    expect(shaped).toBe(3);
    expect(rows.map((row) => ({ ...row, id: Number(row.id) }))).toEqual([
      { id: ids[0], first_name: 'Owner0', names: { first: 'Owner0' } },
      { id: ids[0], first_name: 'Owner0', names: { first: 'Owner0' } },
      { id: ids[0], first_name: 'Owner0', names: { first: 'Owner0' } },
      { id: ids[1], first_name: 'Owner1', names: { first: 'Owner1' } },
      { id: ids[1], first_name: 'Owner1', names: { first: 'Owner1' } },
    ]);
    expect(rows[2]).toBe(rows[1]);
    expect(rows[4]).toBe(rows[3]);
  });

  it('outside jest freezes only the list rows several callers share: a lone caller gets rows of its own', async () => {
    // The module reads NODE_ENV when it loads: a copy of it loaded as a server process loads it.
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    let served: { preparedListRead: typeof preparedListRead } | undefined;
    try {
      await jest.isolateModulesAsync(async () => {
        served = await import('../../src/db/coalesced-reads');
      });
    } finally {
      process.env.NODE_ENV = previous;
    }
    const read = () =>
      served!.preparedListRead(t.db, 'select `e`.`id` from `employees` as `e` where `e`.`id` >= ? order by `e`.`id`', [ids[0]]);

    const alone = (await read()) as Array<Record<string, unknown>>;
    expect(Object.isFrozen(alone)).toBe(false);
    alone[0]!.id = 'changed';
    expect((await read()).map((row) => Number(row.id))).toEqual(ids);

    if (shares) {
      // The first goes at once; the two asked while it is out share the next read, frozen.
      const [, second, third] = await Promise.all([read(), read(), read()]);
      expect(third).toBe(second);
      expect(Object.isFrozen(second)).toBe(true);
      expect(() => scribble(second as Array<Record<string, unknown>>)).toThrow(TypeError);
    }
  });
});
