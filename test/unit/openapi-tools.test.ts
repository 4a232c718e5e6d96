import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';

// docs/openapi.json as third-party tools read it: Spectral (its OpenAPI ruleset and the OWASP
// one), Redocly's recommended ruleset, and a client generated with openapi-typescript used with
// openapi-fetch. The tools are devDependencies and run offline.

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..');
const DOCUMENT = path.join(ROOT, 'docs', 'openapi.json');
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);
const ruleset = (name: string) => path.join(ROOT, 'test', 'openapi', name);
const OFFLINE = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

interface SpectralResult {
  code: string;
  path: string[];
  severity: number;
  message: string;
}

/**
 * Spectral's findings of every severity for the OpenAPI ruleset and the OWASP one, from `spectral
 * lint`'s own linter run in one process for both (test/helpers/spectral-lint.cjs); a crash fails
 * the tests that read them.
 */
async function spectral(): Promise<{ oas: SpectralResult[]; owasp: SpectralResult[] }> {
  const script = path.join(ROOT, 'test', 'helpers', 'spectral-lint.cjs');
  const args = [script, DOCUMENT, ruleset('spectral-oas.yaml'), ruleset('spectral-owasp.yaml')];
  const output = await run(process.execPath, args, { cwd: ROOT, env: OFFLINE, maxBuffer: 64 * 1024 * 1024 });
  const [oas, owasp, ...rest] = JSON.parse(output.stdout) as SpectralResult[][];
  if (oas === undefined || owasp === undefined || rest.length > 0)
    throw new Error(`not one list of findings per ruleset: ${output.stdout}`);
  return { oas, owasp };
}

/** Redocly's JSON report (it exits 1 when there are errors; the JSON is printed either way). */
async function redocly(): Promise<string> {
  const args = ['lint', '--config', ruleset('redocly.yaml'), '--format', 'json', DOCUMENT];
  const output = await run(bin('redocly'), args, { cwd: ROOT, env: OFFLINE, maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: { stdout?: string }) => ({
      stdout: error.stdout ?? '',
    }),
  );
  return output.stdout;
}

/** A tool started ahead of the test that reads it: its failure waits for that test (no unhandled rejection). */
function started<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/**
 * A finding's place as docs/security.md writes it: the path Spectral reports, joined with dots,
 * with a parameter named rather than numbered (`paths./employees.get.parameters.filters.schema`).
 */
function placeOf(document: unknown, spectralPath: string[]): string {
  let node = document as Record<string, unknown> | undefined;
  return spectralPath
    .map((segment, index) => {
      const parent = node;
      node = (node?.[segment] as Record<string, unknown> | undefined) ?? undefined;
      const parameter = spectralPath[index - 1] === 'parameters' && Array.isArray(parent) ? (node?.name as string | undefined) : undefined;
      return parameter ?? segment;
    })
    .join('.');
}

/** `*` is any text without a dot, `**` any text: places as docs/security.md lists them. */
function globMatches(pattern: string, place: string): boolean {
  const source = pattern
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((text) => text.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
        .join('[^.]*'),
    )
    .join('.*');
  return new RegExp(`^${source}$`).test(place);
}

/**
 * The OWASP errors docs/security.md explains: per rule (a bullet opening with the rule id), the
 * places it names (code spans starting with `paths.`, `components.` or `webhooks.`) and the count
 * it gives ("(N places)"), if any.
 */
function explainedOwaspPlaces(markdown: string): Map<string, { places: string[]; count: number | undefined }> {
  const section = /## The OpenAPI document, as third-party tools read it\n([\s\S]*?)\n## /.exec(markdown)?.[1] ?? '';
  const explained = new Map<string, { places: string[]; count: number | undefined }>();
  for (const bullet of section.split(/\n- (?=`owasp:)/).slice(1)) {
    const rule = /^`([^`]+)`/.exec(bullet)?.[1] as string;
    const places = [...bullet.matchAll(/`((?:paths|components|webhooks)\.[^`]+)`/g)].map((match) => match[1] as string);
    const count = /\((\d+) places?\b/.exec(bullet)?.[1];
    explained.set(rule, { places, count: count === undefined ? undefined : Number(count) });
  }
  return explained;
}

describe('docs/openapi.json read by third-party tools', () => {
  const dir = path.join(ROOT, 'test', 'artifacts', 'openapi-client');
  // The tools run side by side from the start, each test waiting for the one it reads; the
  // type-checks come first, done here while Spectral, the longest, still runs.
  let spectralFindings: Promise<{ oas: SpectralResult[]; owasp: SpectralResult[] }>;
  let redoclyReport: Promise<string>;
  let generatedClient: Promise<unknown>;
  beforeAll(() => {
    spectralFindings = started(spectral());
    redoclyReport = started(redocly());
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    generatedClient = started(
      run(bin('openapi-typescript'), [DOCUMENT, '--output', path.join(dir, 'hrm-api.d.ts')], { cwd: ROOT, env: OFFLINE }),
    );
  });

  describe('a client generated with openapi-typescript, used with openapi-fetch', () => {
    beforeAll(async () => {
      await generatedClient;
      fs.writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'ESNext',
            moduleResolution: 'Bundler',
            lib: ['ES2023', 'DOM'],
            types: ['node'],
            typeRoots: [path.join(ROOT, 'node_modules', '@types')],
            strict: true,
            noEmit: true,
            skipLibCheck: true,
          },
          include: ['*.ts'],
        }),
      );
    }, 120_000);

    /**
     * The libraries' and the generated types' parsed (and bound) files, shared by the checks: only
     * the checked file differs between them.
     */
    const sourceFiles = new Map<string, ts.SourceFile | undefined>();

    /**
     * Type-checks `source` against the generated types as `tsc -p` on the folder does, in this
     * process; tsc's complaints as it prints them, or '' when there are none.
     */
    async function typeCheck(name: string, source: string): Promise<string> {
      for (const file of fs.readdirSync(dir).filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')))
        fs.rmSync(path.join(dir, file));
      const checked = path.join(dir, name);
      fs.writeFileSync(checked, `${source}\nexport {};\n`);
      const config = ts.getParsedCommandLineOfConfigFile(path.join(dir, 'tsconfig.json'), undefined, {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
          throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
        },
      });
      if (config === undefined) throw new Error('no tsconfig.json');
      const host = ts.createCompilerHost(config.options);
      const read = host.getSourceFile.bind(host);
      host.getSourceFile = (fileName, ...rest) => {
        if (path.resolve(fileName) === checked) return read(fileName, ...rest);
        if (!sourceFiles.has(fileName)) sourceFiles.set(fileName, read(fileName, ...rest));
        return sourceFiles.get(fileName);
      };
      const program = ts.createProgram({
        rootNames: config.fileNames,
        options: config.options,
        projectReferences: config.projectReferences,
        configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config),
        host,
      });
      // What tsc reports, in its order: type errors only when the files parse and the options hold.
      const diagnostics = [...program.getConfigFileParsingDiagnostics()];
      const fromConfig = diagnostics.length;
      diagnostics.push(...program.getSyntacticDiagnostics());
      if (diagnostics.length === fromConfig) {
        diagnostics.push(...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics());
        if (diagnostics.length === fromConfig) diagnostics.push(...program.getSemanticDiagnostics());
      }
      return ts.formatDiagnostics(ts.sortAndDeduplicateDiagnostics(diagnostics), {
        getCurrentDirectory: () => ROOT,
        getCanonicalFileName: (fileName) => fileName,
        getNewLine: () => '\n',
      });
    }

    it("type-checks the README's example without casts", async () => {
      const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
      const example = /### A generated client[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
      expect(example).toBeDefined();
      // No casts: no `x as T`, no `<T>x`, no non-null assertions, no @ts- comments.
      const code = (example ?? '').replace(/\/\/.*$/gm, '');
      expect(code).not.toMatch(/\sas\s|<any>|\w!\.|@ts-/);

      expect(await typeCheck('readme.ts', example ?? '')).toBe('');
    }, 120_000);

    it('refuses what the server refuses (the generated types are not too loose)', async () => {
      const source = `
import createClient from 'openapi-fetch';
import type { paths } from './hrm-api';
const api = createClient<paths>({ baseUrl: 'http://127.0.0.1:8080/app/api' });
await api.POST('/employees', { body: { employee_id: 'E1', first_name: 'A', last_name: 'B', department: true } });
await api.POST('/employees', { body: { first_name: 'A', last_name: 'B' } });
const record = (await api.GET('/attendance/{id}', { params: { path: { id: '1' } } })).data;
if (record) { const id: string = record.employee.id; const unknownField = record.salary; console.log(id, unknownField); }
`;
      const complaints = await typeCheck('wrong.ts', source);

      expect(complaints).toMatch(/wrong\.ts\(5,/);
      expect(complaints).toMatch(/wrong\.ts\(6,/);
      expect(complaints).toMatch(/wrong\.ts\(8,.*salary/);
      // record.employee is never null: reading its id needs no check (no complaint on that line before salary).
      expect(complaints).not.toMatch(/employee' is possibly 'null'/);
    }, 120_000);
  });

  it('has nothing at all for Spectral\'s OpenAPI ruleset (extends: ["spectral:oas"]): no error, warning, info or hint', async () => {
    const findings = (await spectralFindings).oas;

    expect(findings.map((finding) => `${finding.code} at ${finding.path.join('.')}: ${finding.message}`)).toEqual([]);
  }, 120_000);

  it('has no OWASP ruleset error that docs/security.md does not explain, place by place, with the count it gives', async () => {
    const explained = explainedOwaspPlaces(fs.readFileSync(path.join(ROOT, 'docs', 'security.md'), 'utf8'));
    const document = JSON.parse(fs.readFileSync(DOCUMENT, 'utf8')) as unknown;
    const findings = (await spectralFindings).owasp;

    const errors = findings
      .filter((finding) => finding.severity === 0)
      .map((finding) => ({ rule: finding.code, place: placeOf(document, finding.path) }));
    const explains = (rule: string, place: string) => explained.get(rule)?.places.some((pattern) => globMatches(pattern, place)) ?? false;
    expect(errors.filter(({ rule, place }) => !explains(rule, place))).toEqual([]);
    // Nothing explained that is not found: a place no longer reported, a rule that no longer fires.
    const stale = [...explained].flatMap(([rule, { places }]) =>
      places
        .filter((pattern) => !errors.some((error) => error.rule === rule && globMatches(pattern, error.place)))
        .map((pattern) => `${rule} ${pattern}`),
    );
    expect(stale).toEqual([]);
    const counts = [...explained].filter(([, { count }]) => count !== undefined).map(([rule, { count }]) => ({ rule, count }));
    expect(counts).toEqual(counts.map(({ rule }) => ({ rule, count: errors.filter((error) => error.rule === rule).length })));
    expect(counts.length).toBeGreaterThan(1);
  }, 120_000);

  it("has no error for Redocly's recommended ruleset", async () => {
    const report = JSON.parse(await redoclyReport) as {
      totals: { errors: number };
      problems: Array<{ ruleId: string; severity: string; message: string }>;
    };

    expect(report.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 120_000);
});
