import { HostSelector, isUsableNode, parseMysqlUrl } from '../../src/db/mysql-hosts';

const status = (ready: string, state: string) => [
  { Variable_name: 'wsrep_local_state', Value: state },
  { Variable_name: 'wsrep_ready', Value: ready },
];

describe('isUsableNode', () => {
  it('accepts a server without Galera (no wsrep status) and a ready, synced node', () => {
    expect(isUsableNode([])).toBe(true);
    expect(isUsableNode(status('ON', '4'))).toBe(true);
  });

  it.each([
    ['a joiner', 'ON', '1'],
    ['a donor', 'ON', '2'],
    ['a joined node still catching up', 'ON', '3'],
    ['a node outside the primary component', 'OFF', '0'],
  ])('refuses %s', (_name, ready, state) => {
    expect(isUsableNode(status(ready, state))).toBe(false);
  });
});

describe('HostSelector', () => {
  const url = parseMysqlUrl('mysql://hrm@db1:3306,db2:3306,db3:3306/hrm');

  it('prefers the first host, moves away from one marked unusable, and back once it is usable again', () => {
    const events: Array<{ host: string; usable: boolean }> = [];
    const selector = new HostSelector(url, (event) => events.push(event));
    expect(selector.candidates()).toEqual([0, 1, 2]);

    selector.mark(0, false);
    expect(selector.preferred()).toBe(1);
    expect(selector.candidates()).toEqual([1, 2, 0]);
    selector.mark(1, false);
    expect(selector.candidates()).toEqual([2, 0, 1]);

    selector.mark(0, true);
    expect(selector.preferred()).toBe(0);
    expect(selector.candidates()).toEqual([0, 2, 1]);
    // Only changes are reported.
    selector.mark(0, true);
    expect(events).toEqual([
      { host: 'db1:3306', usable: false },
      { host: 'db2:3306', usable: false },
      { host: 'db1:3306', usable: true },
    ]);
  });
});

describe('parseMysqlUrl', () => {
  it.each(['mysql://hrm@/hrm', 'mysql://hrm@db1:3306,/hrm', 'mysql://hrm@db1:3306', 'postgres://hrm@db1/hrm', 'mysql://hrm@db1:99999/hrm'])(
    'refuses %s',
    (url) => {
      expect(() => parseMysqlUrl(url)).toThrow();
    },
  );
});
