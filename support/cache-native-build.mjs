// Keeps the better-sqlite3 addon this machine compiled where its installer looks for a
// downloaded prebuild (prebuild-install's cache in npm's cache folder), so the next `npm ci` here
// unpacks it in a second instead of compiling SQLite again for about a minute. The installer
// loads the unpacked addon before using it and compiles as before when that fails, and the
// file's name holds the package version, Node's ABI, platform and architecture.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const packageDir = path.resolve('node_modules/better-sqlite3');
const addon = path.join(packageDir, 'build/Release/better_sqlite3.node');
if (!existsSync(addon)) process.exit(0);

const require = createRequire(path.join(packageDir, 'package.json'));
const rc = require('prebuild-install/rc');
const util = require('prebuild-install/util');
const pkg = require('./package.json');
const cached = util.cachedPrebuild(util.getDownloadUrl({ ...rc(pkg), pkg }));
if (existsSync(cached)) process.exit(0);

mkdirSync(path.dirname(cached), { recursive: true });
const partial = `${cached}.${process.pid}.tmp`;
execFileSync('tar', ['-czf', partial, '-C', packageDir, 'build/Release/better_sqlite3.node']);
renameSync(partial, cached);
console.log(`kept the compiled better-sqlite3 addon for the next install: ${cached}`);
