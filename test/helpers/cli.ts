import { runCli } from '../../src/cli/program';
import type { TestApp } from './test-app';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs an hrm command in-process against the test app's database, as an operator would. */
export async function runHrm(
  t: TestApp,
  argv: string[],
  options: { stdin?: string; env?: Record<string, string>; terminal?: boolean } = {},
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    // `terminal`: standard output is a terminal, as `process.stdout.isTTY` says.
    stdout: { write: (text: string) => (stdout += text), ...(options.terminal ? { isTTY: true } : {}) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { DATABASE_URL: t.database.url, LOG_LEVEL: 'silent', ...options.env },
    readStdin: async () => options.stdin ?? '',
    clock: t.clock,
  });
  return { code, stdout, stderr };
}
