// `npm install` (prepare) and `npm start` (prestart) run this: it compiles the server
// (tsconfig.build.json) only when a source is newer than the last build, so a start after an
// install serves at once instead of compiling the same sources again (15 s, minutes on a loaded
// machine). Plain JavaScript: it runs before anything is compiled. `--check` compiles nothing and
// exits 1 when a compile is due.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const stamp = path.join(root, 'dist', '.build-stamp');
// What the build reads. Folders count too: deleting or renaming a file changes its folder's mtime.
const inputs = ['src', 'migrations', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

function newestMtime(target) {
  let stat;
  try {
    stat = fs.statSync(target);
  } catch {
    return 0;
  }
  let newest = stat.mtimeMs;
  if (stat.isDirectory()) {
    for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  }
  return newest;
}

function builtAt() {
  if (!fs.existsSync(path.join(root, 'dist', 'src', 'main.js'))) return -1;
  try {
    return fs.statSync(stamp).mtimeMs;
  } catch {
    return -1;
  }
}

const newestSource = Math.max(...inputs.map((input) => newestMtime(path.join(root, input))));
if (newestSource <= builtAt()) process.exit(0);
if (process.argv.includes('--check')) {
  process.stderr.write('hrm: the build is older than the sources\n');
  process.exit(1);
}

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  process.stderr.write('hrm: the build is missing or older than the sources, and TypeScript is not installed: run npm ci\n');
  process.exit(1);
}
process.stderr.write('hrm: compiling the server (sources changed since the last build)\n');
// The stamp gets the time the compile started: a source saved during the compile is newer than
// the stamp, so the next start compiles again.
const started = new Date();
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);
fs.writeFileSync(stamp, `${started.toISOString()}\n`);
fs.utimesSync(stamp, started, started);
