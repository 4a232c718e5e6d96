import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(__dirname, '..', '..');
const SRC = path.join(ROOT, 'src');
const FEATURES = ['attendance', 'auth', 'docs', 'echo', 'employees', 'lookups', 'users'];

/**
 * What each module of src/ imports, and what those import in turn, as paths relative to src/
 * (e.g. 'auth/tokens.ts'), sorted: the graph madge drew, found identical when this replaced it.
 * Every import, export-from, dynamic import and `import('x').T` counts (type-only ones too; a
 * bare require() does not), resolved as tsconfig.json resolves it, leaving out what resolves into
 * node_modules or to nothing. TypeScript's import scanner finds them without parsing each file.
 */
function importGraph(): Record<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  const options = config?.options ?? {};
  const cache = ts.createModuleResolutionCache(ROOT, (fileName) => fileName, options);
  const files = fs
    .readdirSync(SRC, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
  const seen = new Set(files);
  const graph: Record<string, string[]> = {};
  // Breadth-first from the files of src/: what they import outside it (migrations/) joins the graph.
  for (let index = 0; index < files.length; index++) {
    const file = files[index] as string;
    const targets = new Set<string>();
    for (const { fileName } of ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, false).importedFiles) {
      const target = ts.resolveModuleName(fileName, file, options, ts.sys, cache).resolvedModule?.resolvedFileName;
      if (target === undefined || target.includes('node_modules') || !fs.existsSync(target)) continue;
      targets.add(target);
      if (seen.has(target)) continue;
      seen.add(target);
      files.push(target);
    }
    graph[path.relative(SRC, file)] = [...targets].map((target) => path.relative(SRC, target)).sort();
  }
  return Object.fromEntries(
    Object.keys(graph)
      .sort()
      .map((module) => [module, graph[module] as string[]]),
  );
}

/**
 * The cycles madge reports, found its way: depth first from each module in turn, a module met again
 * while its own imports are still being followed closes a cycle, listed from that module on.
 */
function circular(modules: Record<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const resolved = new Set<string>();
  const unresolved = new Map<string, boolean>();
  const visit = (id: string) => {
    unresolved.set(id, true);
    for (const next of modules[id] ?? []) {
      if (resolved.has(next)) continue;
      if (unresolved.get(next)) {
        const open = [...unresolved.keys()];
        cycles.push(open.slice(open.indexOf(next)).filter((module) => unresolved.get(module)));
        continue;
      }
      visit(next);
    }
    resolved.add(id);
    unresolved.set(id, false);
  };
  for (const id of Object.keys(modules)) visit(id);
  return cycles;
}

/** What each module of src/ imports, as paths relative to src/ (e.g. 'auth/tokens.ts'). */
let imports: Record<string, string[]>;

beforeAll(() => {
  imports = importGraph();
});

function importsFrom(folder: string, into: string): string[] {
  return Object.entries(imports).flatMap(([from, tos]) =>
    from.startsWith(`${folder}/`)
      ? tos.filter((to) => to.startsWith(`${into}/`) || to === `${into}.ts`).map((to) => `${from} -> ${to}`)
      : [],
  );
}

describe('the import graph of src/', () => {
  it('has no cycles', () => {
    const cycles = circular(imports);

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
