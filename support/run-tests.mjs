// `npm test` after the build: the type-check and the two projects of jest.config.js at the same
// time, in three processes. The `serial` project (its files one at a time) is the run's longest
// path and is almost always on the CPU, so it keeps the normal priority; the `parallel` project
// (two workers) and the type-check run at a lower one (nice 10) and take what it leaves, so the
// two cores stay busy and both projects end at about the same time. Only the parallel project
// prints as it goes; the serial project's and the type-check's output are kept in files and
// printed whole when they end, so nothing interleaves. Arguments (file patterns, jest flags) go
// to both projects.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';

const args = process.argv.slice(2);
// A pattern may match files of one project only; the other then has nothing to run, which is fine.
const extra = args.length > 0 ? ['--passWithNoTests', ...args] : [];
// A larger young generation for jest and its workers (they inherit the flag): the suite's short-lived
// objects then die in fewer scavenges, as the server's do (npm start sets the same flag).
const jest = ['--max-semi-space-size=32', path.resolve('node_modules/.bin/jest')];
const tsc = [path.resolve('node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'];

// Children inherit the priority at fork, so nice must wrap the process that forks the workers.
const niceBinary = ['/usr/bin/nice', '/bin/nice'].find((file) => fs.existsSync(file));
const lowPriority = (argv) => (niceBinary ? [niceBinary, '-n', '10', process.execPath, ...argv] : [process.execPath, ...argv]);

const logs = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-jest-'));
/** A child whose output goes to a file of its own, printed when it ends. */
function quiet(name, command) {
  const file = path.join(logs, `${name}.log`);
  const out = fs.openSync(file, 'w');
  const child = spawn(command[0], command.slice(1), { stdio: ['ignore', out, out] });
  return { name, child, file, out };
}

console.log(`npm test: the type-check and the serial project run beside the parallel one; their output is printed when they end (${logs})`);
const typecheck = quiet('type-check', lowPriority(tsc));
const serial = quiet('serial', [process.execPath, ...jest, '--selectProjects', 'serial', '--runInBand', ...extra]);
const [command, ...argv] = lowPriority([...jest, '--selectProjects', 'parallel', '--maxWorkers=2', ...extra]);
const parallel = spawn(command, argv, { stdio: 'inherit' });

const exited = (child) => new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
const children = [typecheck.child, serial.child, parallel];
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of children) if (child.exitCode === null) child.kill(signal);
  });
}

const quietExits = [typecheck, serial].map((run) => exited(run.child));
const parallelStatus = await exited(parallel);
if (serial.child.exitCode === null) console.log('\nnpm test: waiting for the serial project');
const [typecheckStatus, serialStatus] = await Promise.all(quietExits);
for (const run of [typecheck, serial]) {
  fs.closeSync(run.out);
  console.log(`\n==> ${run.name === 'serial' ? 'jest, serial project' : 'tsc, the type-check'}\n`);
  const output = fs.readFileSync(run.file);
  process.stdout.write(output.length > 0 ? output : 'no errors\n');
}
const verdict = (status) => (status === 0 ? 'passed' : 'FAILED');
console.log(
  `\nnpm test: type-check ${verdict(typecheckStatus)}, parallel project ${verdict(parallelStatus)}, serial project ${verdict(serialStatus)}`,
);
process.exit([typecheckStatus, parallelStatus, serialStatus].find((status) => status !== 0) ?? 0);
