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
    from.startsWith(`${folder}/`) ? tos.filter((to) => to.startsWith(`${into}/`) || to === `${into}.ts`).map((to) => `${from} -> ${to}`) : [],
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
    expect((imports['instance.ts'] ?? []).filter((to) => to.startsWith('employees/'))).toEqual([]);
    expect(FEATURES.flatMap((feature) => importsFrom(feature, 'openapi'))).toEqual([]);
  });
});
