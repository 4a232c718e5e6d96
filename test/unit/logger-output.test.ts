import type pino from 'pino';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger, standardOutput } from '../../src/logger';

// eslint-disable-next-line no-control-regex
const COLOURS = /\u001b\[[0-9;]*m/g;

describe('the log output', () => {
  let directory: string;
  let fd: number;
  let file: string;
  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'hrm-log-'));
    file = path.join(directory, 'out');
    fd = fs.openSync(file, 'w');
  });
  afterEach(() => {
    fs.closeSync(fd);
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('is one readable line per entry on a terminal, in the order written', () => {
    const logger = createLogger({ logLevel: 'info' }, standardOutput(true, fd));

    logger.info({ url: 'http://127.0.0.1:8080/app/api' }, 'server listening');
    fs.writeSync(fd, 'the start message\n');
    logger.error({ workerPid: 42 }, 'worker exited');

    const lines = fs.readFileSync(file, 'utf8').replace(COLOURS, '').split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(\d+\): server listening \{"url":"http:\/\/127\.0\.0\.1:8080\/app\/api"\}$/),
      'the start message',
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] ERROR \(\d+\): worker exited \{"workerPid":42\}$/),
      '',
    ]);
  });

  it('is JSON lines when standard output is not a terminal', async () => {
    const destination = standardOutput(false, fd) as ReturnType<typeof pino.destination>;
    const logger = createLogger({ logLevel: 'info' }, destination);

    logger.info({ url: 'http://127.0.0.1:8080/app/api' }, 'server listening');
    destination.flushSync();

    const lines = (await writtenLines(file)).trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      level: 30,
      pid: process.pid,
      msg: 'server listening',
      url: 'http://127.0.0.1:8080/app/api',
    });
  });
});

/**
 * The file's text once it ends a line. flushSync writes what is buffered but not a write already
 * handed to the thread pool, which may still be on its way when the test reads.
 */
async function writtenLines(file: string): Promise<string> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const text = fs.readFileSync(file, 'utf8');
    if (text.endsWith('\n')) return text;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return fs.readFileSync(file, 'utf8');
}
