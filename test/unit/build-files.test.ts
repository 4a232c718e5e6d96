import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.join(__dirname, '..', '..');

/** The project's own files a tsconfig compiles (what `tsc -p <config> --listFilesOnly` lists), relative to the root. */
function compiledFiles(config: string): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, config), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!parsed) throw new Error(`${config} could not be read`);
  // Imports are followed too: a file the listed ones import is compiled even if no include names it.
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  return program
    .getSourceFiles()
    .map((file) => path.relative(root, file.fileName).split(path.sep).join('/'))
    .filter((file) => !file.startsWith('node_modules/') && !file.startsWith('..'));
}

describe('the production build (npm run build, npm start, prepare)', () => {
  const files = compiledFiles('tsconfig.build.json');

  it('compiles the server and its migrations', () => {
    expect(files).toContain('src/main.ts');
    expect(files).toContain('migrations/index.ts');
  });

  it('compiles nothing from test/, bench/ or support/', () => {
    expect(files.filter((file) => /^(test|bench|support)\//.test(file))).toEqual([]);
    expect(files.filter((file) => !/^(src|migrations)\//.test(file))).toEqual([]);
  });
});

describe('the bench build (npm run build:bench)', () => {
  it('compiles the bench, the tools it shares with the tests and the server it starts', () => {
    const files = compiledFiles('tsconfig.bench.json');

    expect(files).toEqual(expect.arrayContaining(['bench/run.ts', 'support/web-servers.ts', 'src/main.ts']));
    expect(files.filter((file) => file.startsWith('test/'))).toEqual([]);
  });

  it('is what every bench script builds with', () => {
    const scripts = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const bench = Object.entries(scripts).filter(([name]) => name.startsWith('bench'));

    expect(scripts['build:bench']).toBe('tsc -p tsconfig.bench.json');
    expect(bench.length).toBeGreaterThan(1);
    for (const [name, command] of bench) expect([name, command.startsWith('npm run build:bench --silent && ')]).toEqual([name, true]);
  });
});
