// `npm test`'s jest step: the two projects of jest.config.js at the same time, in two jest
// processes. The `parallel` project keeps both cores busy; the `serial` one (its files one at a
// time) mostly waits on the servers, clusters and browser it starts, so beside it it adds little
// and the run takes about the longer of the two instead of their sum. The parallel project
// prints as it goes; the serial project's output is kept in a file and printed whole when it ends,
// so the two never interleave. Arguments (file patterns, jest flags) go to both.
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

const serialLog = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-jest-')), 'serial.log');
const serialOut = fs.openSync(serialLog, 'w');
console.log(`jest: the serial project runs beside the parallel one; its output is printed when it ends (${serialLog})`);
const serial = spawn(process.execPath, [...jest, '--selectProjects', 'serial', '--runInBand', ...extra], {
  stdio: ['ignore', serialOut, serialOut],
});
const parallel = spawn(process.execPath, [...jest, '--selectProjects', 'parallel', '--maxWorkers=2', ...extra], { stdio: 'inherit' });

const exited = (child) => new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
const children = [serial, parallel];
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of children) if (child.exitCode === null) child.kill(signal);
  });
}

const serialExit = exited(serial);
const parallelStatus = await exited(parallel);
if (serial.exitCode === null) console.log('\njest: waiting for the serial project');
const serialStatus = await serialExit;
fs.closeSync(serialOut);
console.log('\n==> jest, serial project\n');
process.stdout.write(fs.readFileSync(serialLog));
console.log(
  `\njest: parallel project ${parallelStatus === 0 ? 'passed' : 'FAILED'}, serial project ${serialStatus === 0 ? 'passed' : 'FAILED'}`,
);
process.exit(parallelStatus !== 0 ? parallelStatus : serialStatus);
