import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/**
 * A tiny project laid out like this one (src/, migrations/, the tsconfigs, package.json) with the
 * real script and the real TypeScript, so a compile takes a second, not the server's fifteen.
 */
function tinyProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-build-if-stale-'));
  fs.mkdirSync(path.join(dir, 'support'));
  fs.copyFileSync(path.join(ROOT, 'support', 'build-if-stale.mjs'), path.join(dir, 'support', 'build-if-stale.mjs'));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  fs.mkdirSync(path.join(dir, 'src'));
  fs.mkdirSync(path.join(dir, 'migrations'));
  fs.writeFileSync(path.join(dir, 'src', 'main.ts'), 'export const answer: number = 1;\n');
  fs.writeFileSync(path.join(dir, 'migrations', 'index.ts'), 'export const migrations: string[] = [];\n');
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "tiny", "private": true }\n');
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      // skipLibCheck: TypeScript's own lib files are not what a compile here is about, and checking
      // them was most of each compile's time.
      compilerOptions: { module: 'commonjs', rootDir: '.', outDir: 'dist', types: [], strict: true, skipLibCheck: true },
      include: ['src', 'migrations'],
    }),
  );
  fs.writeFileSync(path.join(dir, 'tsconfig.build.json'), JSON.stringify({ extends: './tsconfig.json' }));
  return dir;
}

function run(dir: string, ...args: string[]): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [path.join(dir, 'support', 'build-if-stale.mjs'), ...args], { cwd: dir, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** Sets a file's mtime `seconds` from now (a save after the build, without waiting for the clock). */
function touch(file: string, seconds: number): void {
  const at = new Date(Date.now() + seconds * 1000);
  fs.utimesSync(file, at, at);
}

describe('support/build-if-stale.mjs (prepare and prestart)', () => {
  let dir: string;
  const stamp = () => path.join(dir, 'dist', '.build-stamp');
  beforeEach(() => {
    dir = tinyProject();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('compiles when there is no build yet, and leaves a stamp', () => {
    const result = run(dir);

    expect(result).toEqual({ status: 0, output: 'hrm: compiling the server (sources changed since the last build)\n' });
    expect(fs.readFileSync(path.join(dir, 'dist', 'src', 'main.js'), 'utf8')).toContain('exports.answer = 1');
    expect(fs.existsSync(stamp())).toBe(true);
  }, 60_000);

  it('compiles nothing when no source is newer than the build', () => {
    run(dir);
    const stamped = fs.statSync(stamp()).mtimeMs;
    const built = fs.statSync(path.join(dir, 'dist', 'src', 'main.js')).mtimeMs;

    const result = run(dir);

    expect(result).toEqual({ status: 0, output: '' });
    expect(fs.statSync(stamp()).mtimeMs).toBe(stamped);
    expect(fs.statSync(path.join(dir, 'dist', 'src', 'main.js')).mtimeMs).toBe(built);
  }, 60_000);

  it('compiles again when a source is newer than the build', () => {
    run(dir);
    fs.writeFileSync(path.join(dir, 'src', 'main.ts'), 'export const answer: number = 2;\n');
    touch(path.join(dir, 'src', 'main.ts'), 60);

    const result = run(dir);

    expect(result).toEqual({ status: 0, output: 'hrm: compiling the server (sources changed since the last build)\n' });
    expect(fs.readFileSync(path.join(dir, 'dist', 'src', 'main.js'), 'utf8')).toContain('exports.answer = 2');
  }, 90_000);

  it('fails with the compiler errors, and leaves no stamp, when the sources do not compile', () => {
    fs.writeFileSync(path.join(dir, 'src', 'main.ts'), 'export const answer: number = "one";\n');

    const result = run(dir);

    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(/error TS2322/);
    expect(fs.existsSync(stamp())).toBe(false);
  }, 60_000);
});

describe('support/build-if-stale.mjs --check', () => {
  let dir: string;
  beforeAll(() => {
    dir = tinyProject();
    run(dir);
  }, 60_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  // `src` itself: a file added, renamed or deleted there changes only the folder's mtime.
  it.each([['src/main.ts'], ['migrations/index.ts'], ['tsconfig.json'], ['tsconfig.build.json'], ['package.json'], ['src']])(
    'finds a compile due when %s is newer than the build',
    (input) => {
      expect(run(dir, '--check')).toEqual({ status: 0, output: '' });
      touch(path.join(dir, input), 60);
      try {
        expect(run(dir, '--check')).toEqual({ status: 1, output: 'hrm: the build is older than the sources\n' });
      } finally {
        touch(path.join(dir, input), -3600);
      }
    },
  );
});
