import path from 'node:path';
import madge from 'madge';

const SRC = path.join(__dirname, '..', '..', 'src');
const FEATURES = ['attendance', 'auth', 'docs', 'echo', 'employees', 'lookups', 'users'];

/** What each module of src/ imports, as paths relative to src/ (e.g. 'auth/tokens.ts'). */
let imports: Record<string, string[]>;

beforeAll(async () => {
  const result = await madge(SRC, { fileExtensions: ['ts'], tsConfig: path.join(__dirname, '..', '..', 'tsconfig.json') });
  imports = result.obj();
}, 60_000);

function importsFrom(folder: string, into: string): string[] {
  return Object.entries(imports).flatMap(([from, tos]) =>
    from.startsWith(`${folder}/`)
      ? tos.filter((to) => to.startsWith(`${into}/`) || to === `${into}.ts`).map((to) => `${from} -> ${to}`)
      : [],
  );
}

describe('the import graph of src/', () => {
  it('has no cycles', async () => {
    const cycles = (await madge(SRC, { fileExtensions: ['ts'], tsConfig: path.join(__dirname, '..', '..', 'tsconfig.json') })).circular();

    expect(cycles).toEqual([]);
  }, 60_000);

  it('keeps auth and employees apart, and rate limits out of auth', () => {
    expect(importsFrom('auth', 'employees')).toEqual([]);
    expect(importsFrom('employees', 'auth')).toEqual([]);
    expect(importsFrom('rate-limits', 'auth')).toEqual([]);
  });

  it('keeps the features out of the HTTP glue, the instance and the OpenAPI aggregator', () => {
    expect(FEATURES.flatMap((feature) => importsFrom('http', feature))).toEqual([]);
    expect(imports['instances/instance.ts']).toBeDefined();
    expect((imports['instances/instance.ts'] ?? []).filter((to) => to.startsWith('employees/'))).toEqual([]);
    expect(FEATURES.flatMap((feature) => importsFrom(feature, 'openapi'))).toEqual([]);
  });
});

/** The room of a module: its top folder under src/, or the file itself when it sits at the top. */
const roomOf = (module: string) => (module.includes('/') ? `${module.split('/')[0]}/` : module);

describe('the rooms of src/ (each folder, and each top-level file)', () => {
  /** Room -> the rooms it imports (type-only imports included), with one import that shows it. */
  function roomGraph(): Map<string, Map<string, string>> {
    const graph = new Map<string, Map<string, string>>();
    for (const [from, tos] of Object.entries(imports)) {
      const arrows = graph.get(roomOf(from)) ?? new Map<string, string>();
      graph.set(roomOf(from), arrows);
      for (const to of tos) if (roomOf(to) !== roomOf(from)) arrows.set(roomOf(to), `${from} -> ${to}`);
    }
    return graph;
  }

  it('import each other in no loop, directly or around others', () => {
    const graph = roomGraph();
    // Depth-first search; a room met again while it is still on the path closes a loop.
    const loops: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (room: string, path: string[]) => {
      state.set(room, 'open');
      for (const [next, example] of graph.get(room) ?? []) {
        if (state.get(next) === 'open') loops.push([...path, example].join(', '));
        else if (!state.has(next)) visit(next, [...path, example]);
      }
      state.set(room, 'done');
    };
    for (const room of graph.keys()) if (!state.has(room)) visit(room, []);

    expect(loops).toEqual([]);
  });

  it('keep at least 20 rooms, the features below the front door and infrastructure below the features', () => {
    const graph = roomGraph();
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      [...(graph.get(from)?.keys() ?? [])].some((next) => next === to || (!seen.has(next) && (seen.add(next), reaches(next, to, seen))));

    expect(graph.size).toBeGreaterThanOrEqual(20);
    for (const infrastructure of ['db/', 'http/', 'instances/', 'webhooks/', 'tokens/', 'employee-records/']) {
      for (const feature of ['employees/', 'attendance/', 'terminals/', 'auth/', 'lookups/'])
        expect([infrastructure, reaches(infrastructure, feature)]).toEqual([infrastructure, false]);
    }
  });
});
