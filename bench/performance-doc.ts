import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** docs/performance.md, from the compiled dist/bench/ directory. */
export const PERFORMANCE_DOC = path.join(__dirname, '..', '..', 'docs', 'performance.md');

/**
 * Replaces one generated section of docs/performance.md (between its start and end markers,
 * appended when missing) with the latest table and the machine it came from. The rest of the
 * file, the analysis written by people, is left as it is.
 */
export function writeSection(section: 'core' | 'deploy', title: string, body: string): void {
  const start = `<!-- bench:${section}:start -->`;
  const end = `<!-- bench:${section}:end -->`;
  const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.availableParallelism()} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, node ${process.version}`;
  const block = [
    start,
    `### ${title}`,
    '',
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}.`,
    '',
    '```',
    body,
    '```',
    end,
  ].join('\n');
  const current = fs.existsSync(PERFORMANCE_DOC) ? fs.readFileSync(PERFORMANCE_DOC, 'utf8') : '# Performance\n';
  const pattern = new RegExp(`${start}[\\s\\S]*?${end}`);
  const next = pattern.test(current) ? current.replace(pattern, block) : `${current.trimEnd()}\n\n${block}\n`;
  fs.writeFileSync(PERFORMANCE_DOC, next);
}
