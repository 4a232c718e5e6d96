import type { Caller } from '../../src/caller';
import { readersOf } from '../../src/db/coalesced-reads';
import { parseQuery } from '../../src/http/parse';
import { employeeListCacheOf, listEmployees } from '../../src/employees/list';
import { listEmployeesQuery } from '../../src/employees/list-query';
import { toEmployeeListJson, toEmployeeView } from '../../src/employees/output';
import { referenceNamesOf } from '../../src/lookups/reference-names';
import { testDialects } from '../helpers/databases';
import { createEmployee } from '../helpers/factories';
import { useTestApp } from '../helpers/test-app';

// The requests that share one read of a page (src/db/coalesced-reads.ts) share its JSON too
// (toEmployeeListJson): never across what a caller may see or asked for, never across a rename,
// and never a page written with a reference name missing.
describe.each(testDialects())('a shared page of employees written as JSON on %s', (dialect) => {
  const t = useTestApp(dialect);
  const admin: Caller = { userId: 1, username: 'admin', role: 'admin', employeeId: null, tokenId: 'admin' };
  let department: number;
  let ids: number[];

  beforeAll(async () => {
    department = Number((await t.db('departments').insert({ name: 'Before' }))[0]);
    ids = [];
    for (let index = 0; index < 3; index++) {
      ids.push(await createEmployee(t, { first_name: `Shared${index}`, department_id: department, birthday: '1990-01-0' + (index + 1) }));
    }
  });

  /**
   * One read of the list's first page as the requests sharing it get it: four asking at once, of
   * which on MySQL the last three share the second query (src/db/coalesced-reads.ts). SQLite
   * shares no read, so there every page is written for its own request.
   */
  async function readPage() {
    const query = parseQuery(listEmployeesQuery, { limit: '50' });
    const reads = await Promise.all([1, 2, 3, 4].map(() => listEmployees(t.db, admin, query, employeeListCacheOf(t.instance))));
    const last = reads[3] as (typeof reads)[number];
    expect(readersOf(last.read)).toBe(dialect === 'mysql' ? 3 : 1);
    return last;
  }

  /** The page as written without sharing: every view made and written anew. */
  async function unshared(records: Parameters<typeof toEmployeeView>[0][], caller: Caller, fields?: string) {
    const selection = fields === undefined ? undefined : parseQuery(listEmployeesQuery, { fields }).fields;
    return referenceNamesOf(t.instance).render((names) =>
      JSON.stringify(records.map((record) => toEmployeeView(record, caller, names, selection))),
    );
  }

  it('gives each caller of one read the page as they may see it and asked for it', async () => {
    const { records, read } = await readPage();
    const self: Caller = { userId: 2, username: 'self', role: 'employee', employeeId: ids[1] as number, tokenId: 'self' };
    const other: Caller = { userId: 3, username: 'other', role: 'manager', employeeId: ids[2] as number, tokenId: 'other' };
    const selection = parseQuery(listEmployeesQuery, { fields: 'first_name,birthday' }).fields;

    // Asked in turn on the same read, each after another caller's page was kept.
    const pages = [
      await toEmployeeListJson(t.instance, read, records, admin),
      await toEmployeeListJson(t.instance, read, records, self),
      await toEmployeeListJson(t.instance, read, records, other),
      await toEmployeeListJson(t.instance, read, records, admin, selection),
      await toEmployeeListJson(t.instance, read, records, admin),
    ];

    expect(pages[0]).toBe(await unshared(records, admin));
    expect(pages[1]).toBe(await unshared(records, self));
    expect(pages[2]).toBe(await unshared(records, other));
    expect(pages[3]).toBe(await unshared(records, admin, 'first_name,birthday'));
    expect(pages[4]).toBe(pages[0]);
    // The views differ where they should: the employee sees their own birthday only.
    const birthdays = (json: string) => (JSON.parse(json) as Array<{ id: string; birthday?: string }>).map((view) => view.birthday);
    expect(birthdays(pages[1] as string)).toEqual(records.map((record) => (record.id === ids[1] ? record.birthday : undefined)));
    expect(birthdays(pages[0] as string)).toEqual(records.map((record) => record.birthday));
  });

  it('writes a read again with the names read anew after a rename', async () => {
    const { records, read } = await readPage();
    const before = await toEmployeeListJson(t.instance, read, records, admin);
    expect(before).toContain('"display":"Before"');

    await t.db('departments').where({ id: department }).update({ name: 'After' });
    referenceNamesOf(t.instance).invalidate();

    const after = await toEmployeeListJson(t.instance, read, records, admin);
    expect(after).toBe(await unshared(records, admin));
    expect(after).toContain('"display":"After"');
    expect(after).not.toContain('"display":"Before"');
  });

  it('keeps no page written with a name missing: a department added by another process shows by its name, never null', async () => {
    const { records: primed, read: primedRead } = await readPage();
    await toEmployeeListJson(t.instance, primedRead, primed, admin);
    // Added by another process: this process's names, read just now, do not know it.
    const arrived = Number((await t.db('departments').insert({ name: 'Arrived' }))[0]);
    const id = await createEmployee(t, { first_name: 'Newcomer', department_id: arrived });

    const { records, read } = await readPage();
    // At once, as the requests sharing a read ask: the second renders while the first reads the names anew.
    const pages = await Promise.all([
      toEmployeeListJson(t.instance, read, records, admin),
      toEmployeeListJson(t.instance, read, records, admin),
    ]);

    for (const page of pages) {
      const view = (JSON.parse(page) as Array<{ id: string; department: unknown }>).find((item) => item.id === String(id));
      expect(view?.department).toEqual({ type: 'Department', id: String(arrived), display: 'Arrived' });
    }
    expect(pages[1]).toBe(await unshared(records, admin));
  });
});
